#include "clipboard_handshake.h"

#include <string.h>

#include <freerdp/client/cliprdr.h>
#include <freerdp/settings.h>

/*
 * Why join the clipboard channel at all: some servers open their cliprdr
 * end during activation and end the session when the client has none
 * (Weston's RDP backend: "WTSVirtualChannelOpen for cliprdr failed", then
 * "Activate for peer failed"). A projector must not share a clipboard: the
 * presenter's copied passwords have no business on a wall screen, and a
 * kiosk has nothing to give back. So the channel is joined and its
 * handshake ([MS-RDPECLIP] 1.3.2.1) is answered as a client with an empty
 * clipboard would, and nothing else:
 *
 * - Monitor Ready → Client Capabilities (general set, long format names if
 *   the server has them: FreeRDP drops what the server did not offer) and a
 *   Format List with no formats. We never have anything to paste.
 * - the server's Format List → Format List Response "OK" (the spec wants a
 *   response to every list); its data is never asked for (no Format Data
 *   Request is ever sent, so no server clipboard content arrives).
 * - the server's Format Data / File Contents Requests → FreeRDP's channel
 *   answers them with a failure itself, before any callback, because the
 *   feature mask below leaves out local → remote. No content leaves.
 * - locks, temporary directories, unasked-for data responses: ignored.
 */

/* Remote → local is on only so that FreeRDP hands us the server's format
 * lists (it filters them by this mask) for the response the spec asks for;
 * their data is never requested. Local → remote is off: FreeRDP refuses
 * every request for our clipboard by itself. */
#define LT_CLIPBOARD_FEATURE_MASK CLIPRDR_FLAG_REMOTE_TO_LOCAL

BOOL lt_clipboard_handshake_settings(rdpSettings* settings)
{
	return freerdp_settings_set_bool(settings, FreeRDP_RedirectClipboard, TRUE) &&
	       freerdp_settings_set_uint32(settings, FreeRDP_ClipboardFeatureMask,
	                                   LT_CLIPBOARD_FEATURE_MASK);
}

static UINT lt_clipboard_monitor_ready(CliprdrClientContext* cliprdr,
                                       const CLIPRDR_MONITOR_READY* monitorReady)
{
	(void)monitorReady;
	CLIPRDR_GENERAL_CAPABILITY_SET general = { 0 };
	general.capabilitySetType = CB_CAPSTYPE_GENERAL;
	general.capabilitySetLength = CB_CAPSTYPE_GENERAL_LEN;
	general.version = CB_CAPS_VERSION_2;
	/* the format list below is empty, but the server's lists are parsed with
	 * whatever naming was agreed: agree on what the server offers */
	general.generalFlags = CB_USE_LONG_FORMAT_NAMES;
	CLIPRDR_CAPABILITIES capabilities = { 0 };
	capabilities.common.msgType = CB_CLIP_CAPS;
	capabilities.cCapabilitiesSets = 1;
	capabilities.capabilitySets = (CLIPRDR_CAPABILITY_SET*)&general;
	const UINT rc = cliprdr->ClientCapabilities(cliprdr, &capabilities);
	if (rc != CHANNEL_RC_OK)
		return rc;

	CLIPRDR_FORMAT_LIST empty = { 0 };
	empty.common.msgType = CB_FORMAT_LIST;
	empty.numFormats = 0;
	empty.formats = NULL;
	return cliprdr->ClientFormatList(cliprdr, &empty);
}

static UINT lt_clipboard_server_format_list(CliprdrClientContext* cliprdr,
                                            const CLIPRDR_FORMAT_LIST* formatList)
{
	(void)formatList;
	CLIPRDR_FORMAT_LIST_RESPONSE response = { 0 };
	response.common.msgType = CB_FORMAT_LIST_RESPONSE;
	response.common.msgFlags = CB_RESPONSE_OK;
	return cliprdr->ClientFormatListResponse(cliprdr, &response);
}

/* Our two handlers on the channel named, when it is cliprdr (on: ours, off: none). */
static void set_handlers(const char* channel, void* pInterface, BOOL on)
{
	if (strcmp(channel, CLIPRDR_SVC_CHANNEL_NAME) != 0)
		return;
	CliprdrClientContext* cliprdr = pInterface;
	cliprdr->MonitorReady = on ? lt_clipboard_monitor_ready : NULL;
	cliprdr->ServerFormatList = on ? lt_clipboard_server_format_list : NULL;
}

void lt_clipboard_handshake_on_connected(void* context, const ChannelConnectedEventArgs* e)
{
	(void)context;
	set_handlers(e->name, e->pInterface, TRUE);
}

void lt_clipboard_handshake_on_disconnected(void* context, const ChannelDisconnectedEventArgs* e)
{
	(void)context;
	set_handlers(e->name, e->pInterface, FALSE);
}
