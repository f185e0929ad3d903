#include "presenter.h"

#include <stdlib.h>
#include <string.h>

#include <freerdp/channels/channels.h>
#include <freerdp/channels/drdynvc.h>
#include <freerdp/channels/wtsvc.h>
#include <freerdp/settings.h>
#include <winpr/synch.h>
#include <winpr/sysinfo.h>

#include "../js_events.h"
#include "../rdp_thread.h"
#include "audio_output.h"
#include "gfx_output.h"
#include "peer_certificate.h"
#include "peer_transport.h"
#include "presenter_events.h"
#include "touch_input.h"

/* Room for what a display's client sends during a session (input, acks): small. */
#define LP_RING_CAPACITY (1u * 1024u * 1024u)

void lp_frame_free(LpFrame* frame)
{
	if (!frame)
		return;
	free(frame->pixels);
	free(frame);
}

/* The presenter's picture size wins over the size the client asked for: the
 * Demand Active PDU carries it, and the GFX surface has it. */
static BOOL lp_capabilities(freerdp_peer* peer)
{
	LpContext* lp = (LpContext*)peer->context;
	rdpSettings* settings = peer->context->settings;
	return freerdp_settings_set_uint32(settings, FreeRDP_DesktopWidth, lp->width) &&
	       freerdp_settings_set_uint32(settings, FreeRDP_DesktopHeight, lp->height);
}

static BOOL lp_post_connect(WINPR_ATTR_UNUSED freerdp_peer* peer)
{
	return TRUE;
}

static BOOL lp_activate(freerdp_peer* peer)
{
	/* a reactivation after GFX was up: the client lost its surfaces */
	LpContext* lp = (LpContext*)peer->context;
	if (atomic_load(&lp->gfxReady))
		lt_post_event(lp->id, LP_EVENT_KEYFRAME_REQUEST, 0, 0, 0, 0);
	return TRUE;
}

static BOOL lp_refresh_rect(rdpContext* context, WINPR_ATTR_UNUSED BYTE count,
                            WINPR_ATTR_UNUSED const RECTANGLE_16* areas)
{
	LpContext* lp = (LpContext*)context;
	lt_post_event(lp->id, LP_EVENT_KEYFRAME_REQUEST, 0, 0, 0, 0);
	return TRUE;
}

static BOOL lp_suppress_output(rdpContext* context, BYTE allow,
                               WINPR_ATTR_UNUSED const RECTANGLE_16* area)
{
	LpContext* lp = (LpContext*)context;
	if (allow)
		lt_post_event(lp->id, LP_EVENT_KEYFRAME_REQUEST, 0, 0, 0, 0);
	return TRUE;
}

static BOOL lp_settings(LpContext* lp)
{
	rdpSettings* settings = lp->context.settings;
	/* TLS is what the display's client asks for and gets (see peer_transport.c);
	 * no NLA: a presenter is authorised by the room PIN at the gateway, and
	 * there is no account here to check a password against */
	return freerdp_settings_set_bool(settings, FreeRDP_RdpSecurity, FALSE) &&
	       freerdp_settings_set_bool(settings, FreeRDP_TlsSecurity, TRUE) &&
	       freerdp_settings_set_bool(settings, FreeRDP_NlaSecurity, FALSE) &&
	       freerdp_settings_set_bool(settings, FreeRDP_RdstlsSecurity, FALSE) &&
	       freerdp_settings_set_uint32(settings, FreeRDP_ColorDepth, 32) &&
	       freerdp_settings_set_uint32(settings, FreeRDP_DesktopWidth, lp->width) &&
	       freerdp_settings_set_uint32(settings, FreeRDP_DesktopHeight, lp->height) &&
	       freerdp_settings_set_bool(settings, FreeRDP_SupportGraphicsPipeline, TRUE) &&
	       freerdp_settings_set_bool(settings, FreeRDP_GfxH264, TRUE) &&
	       freerdp_settings_set_bool(settings, FreeRDP_RefreshRect, TRUE) &&
	       freerdp_settings_set_bool(settings, FreeRDP_SuppressOutput, TRUE) &&
	       /* GFX compresses its own way (ZGFX); slow-path bulk compression would only cost */
	       freerdp_settings_set_bool(settings, FreeRDP_CompressionEnabled, FALSE);
}

static BOOL lp_context_new(freerdp_peer* peer, rdpContext* context)
{
	LpContext* lp = (LpContext*)context;
	lp->peer = peer;
	lp->id = (intptr_t)lp;
	lp->surfaceId = 1;
	lp->nextFrameId = 1;
	lp->connectTimeoutMs = 20000;
	pthread_mutex_init(&lp->frameLock, NULL);
	lp->ring = lt_ring_new(LP_RING_CAPACITY);
	lp->frameEvent = CreateEventA(NULL, TRUE, FALSE, NULL);
	lp->stopEvent = CreateEventA(NULL, TRUE, FALSE, NULL);
	if (!lp->ring || !lp->frameEvent || !lp->stopEvent)
		return FALSE;
	if (!lp_peer_transport_install(lp))
		return FALSE;
	lp->vcm = WTSOpenServerA((LPSTR)context);
	return lp->vcm && (lp->vcm != INVALID_HANDLE_VALUE);
}

static void lp_context_free(WINPR_ATTR_UNUSED freerdp_peer* peer, rdpContext* context)
{
	LpContext* lp = (LpContext*)context;
	if (!lp)
		return;
	lp_touch_free(lp);
	lp_audio_free(lp);
	lp_gfx_free(lp);
	if (lp->vcm && (lp->vcm != INVALID_HANDLE_VALUE))
		WTSCloseServer(lp->vcm);
	lp->vcm = NULL;
	lp_frame_free(lp->pending);
	lp->pending = NULL;
	if (lp->frameEvent)
		(void)CloseHandle(lp->frameEvent);
	if (lp->stopEvent)
		(void)CloseHandle(lp->stopEvent);
	lt_ring_free(lp->ring);
	lp->ring = NULL;
	free(lp->publicKey);
	lp->publicKey = NULL;
	pthread_mutex_destroy(&lp->frameLock);
}

static pthread_once_t wts_api_once = PTHREAD_ONCE_INIT;

/* WinPR's WTS API (virtual channels) is a table the server registers; without
 * it WTSOpenServer looks for FreeRDS's library, which a page cannot load. */
static void register_wts_api(void)
{
	WTSRegisterWtsApiFunctionTable(FreeRDP_InitWtsApi());
}

LpContext* lp_presenter_create(UINT32 width, UINT32 height)
{
	if ((width == 0) || (height == 0) || (width > 8192) || (height > 8192))
		return NULL;
	pthread_once(&wts_api_once, register_wts_api);
	freerdp_peer* peer = freerdp_peer_new(-1); /* no socket: see peer_transport.c */
	if (!peer)
		return NULL;
	peer->ContextSize = sizeof(LpContext);
	peer->ContextNew = lp_context_new;
	peer->ContextFree = lp_context_free;
	if (!freerdp_peer_context_new(peer))
	{
		freerdp_peer_free(peer);
		return NULL;
	}
	LpContext* lp = (LpContext*)peer->context;
	lp->width = width;
	lp->height = height;
	peer->Capabilities = lp_capabilities;
	peer->PostConnect = lp_post_connect;
	peer->Activate = lp_activate;
	peer->context->update->RefreshRect = lp_refresh_rect;
	peer->context->update->SuppressOutput = lp_suppress_output;
	if (!lp_settings(lp) || !lp_peer_certificate_install(lp) || !lp_gfx_create(lp) ||
	    !lp_touch_create(lp))
	{
		freerdp_peer_context_free(peer);
		freerdp_peer_free(peer);
		return NULL;
	}
	return lp;
}

void lp_presenter_destroy(LpContext* lp)
{
	if (!lp)
		return;
	lt_rdp_thread_join(lp->thread, lp->threadStarted);
	freerdp_peer* peer = lp->peer;
	freerdp_peer_context_free(peer);
	freerdp_peer_free(peer);
}

void lp_presenter_queue_frame(LpContext* lp, LpFrame* frame)
{
	pthread_mutex_lock(&lp->frameLock);
	frame->id = lp->nextFrameId++;
	LpFrame* replaced = lp->pending;
	lp->pending = frame;
	(void)SetEvent(lp->frameEvent);
	pthread_mutex_unlock(&lp->frameLock);
	if (replaced)
	{
		lt_post_event(lp->id, LP_EVENT_FRAME_DROPPED, (intptr_t)replaced->id, LP_DROP_NOT_READY, 0,
		              0);
		lp_frame_free(replaced);
	}
}

/* Sends the newest picture once the client can take it (it waits until then). */
static void lp_send_pending(LpContext* lp)
{
	if (!atomic_load(&lp->gfxReady))
		return;
	pthread_mutex_lock(&lp->frameLock);
	LpFrame* frame = lp->pending;
	lp->pending = NULL;
	(void)ResetEvent(lp->frameEvent);
	pthread_mutex_unlock(&lp->frameLock);
	if (!frame)
		return;
	const int dropped = lp_gfx_send_frame(lp, frame);
	if (dropped != 0)
		lt_post_event(lp->id, LP_EVENT_FRAME_DROPPED, (intptr_t)frame->id, dropped, 0, 0);
	lp_frame_free(frame);
}

static int lp_run(LpContext* lp)
{
	freerdp_peer* peer = lp->peer;
	if (!peer->Initialize(peer))
		return LP_REASON_INTERNAL;
	HANDLE channelEvent = WTSVirtualChannelManagerGetEventHandle(lp->vcm);
	/* a client that stalls, or sends what never completes a PDU, must not hold
	 * the presenter: the connection sequence has a deadline */
	const UINT64 deadline = GetTickCount64() + lp->connectTimeoutMs;
	while (!atomic_load(&lp->stopRequested))
	{
		if (!peer->activated && (GetTickCount64() >= deadline))
			return LP_REASON_TIMEOUT;
		HANDLE handles[MAXIMUM_WAIT_OBJECTS] = { 0 };
		DWORD count = peer->GetEventHandles(peer, handles, MAXIMUM_WAIT_OBJECTS - 7);
		if (count == 0)
			return LP_REASON_INTERNAL;
		handles[count++] = channelEvent;
		handles[count++] = lp->stopEvent;
		/* each NULL while its part is not there (yet): a channel not open, no audio */
		const HANDLE optional[] = {
			atomic_load(&lp->gfxReady) ? lp->frameEvent : NULL, /* before then a picture only waits */
			lp_gfx_event(lp), lp_audio_event(lp), lp_touch_event(lp), lp_audio_queue_event(lp)
		};
		for (size_t i = 0; i < ARRAYSIZE(optional); i++)
		{
			if (optional[i])
				handles[count++] = optional[i];
		}
		/* the timeout drives FreeRDP's timers: there are no waitable timers here */
		if (WaitForMultipleObjects(count, handles, FALSE, 100) == WAIT_FAILED)
			return LP_REASON_INTERNAL;
		if (atomic_load(&lp->stopRequested))
			break;
		if (!peer->CheckFileDescriptor(peer))
		{
			/* the client's own disconnect (its Disconnect Provider Ultimatum, which
			 * aborts the context) ends here too, as does the end of the input;
			 * anything else is what the client sent */
			return (lt_ring_closed(lp->ring) || freerdp_shall_disconnect_context(&lp->context))
			           ? LP_REASON_CLOSED
			           : LP_REASON_PROTOCOL_ERROR;
		}
		/* drdynvc is opened (its capabilities sent) once, on the first call that
		 * may: before the client has joined it that attempt fails for good */
		const BOOL dvcJoined =
		    peer->activated &&
		    WTSVirtualChannelManagerIsChannelJoined(lp->vcm, DRDYNVC_SVC_CHANNEL_NAME);
		if (!WTSVirtualChannelManagerCheckFileDescriptorEx(lp->vcm, dvcJoined))
			return LP_REASON_PROTOCOL_ERROR;
		if (!lp_gfx_poll(lp) || !lp_audio_poll(lp) || !lp_audio_handle_messages(lp) ||
		    !lp_touch_poll(lp))
			return LP_REASON_PROTOCOL_ERROR;
		lp_touch_handle_messages(lp);
		const HANDLE gfxEvent = lp_gfx_event(lp);
		if (gfxEvent && (WaitForSingleObject(gfxEvent, 0) == WAIT_OBJECT_0) &&
		    (rdpgfx_server_handle_messages(lp->gfx) != CHANNEL_RC_OK))
			return LP_REASON_PROTOCOL_ERROR;
		lp_send_pending(lp);
		lp_audio_send_pending(lp);
	}
	return LP_REASON_STOPPED;
}

static void* lp_main(void* arg)
{
	LpContext* lp = arg;
	const int reason = lp_run(lp);
	const UINT32 lastError = freerdp_get_last_error(&lp->context);
	/* tell the client, from the thread that owns the transport */
	if (lp->peer->connected && (reason != LP_REASON_CLOSED))
		(void)lp->peer->Close(lp->peer);
	lp->peer->Disconnect(lp->peer);
	lt_post_event(lp->id, LP_EVENT_ENDED, reason, (intptr_t)lastError, 0, 0);
	return NULL;
}

BOOL lp_presenter_start(LpContext* lp)
{
	return lt_rdp_thread_start(&lp->thread, &lp->threadStarted, lp_main, lp);
}

/* Called on the JS thread: raises flags and events only; the peer thread ends the session. */
void lp_presenter_stop(LpContext* lp)
{
	atomic_store(&lp->stopRequested, 1);
	(void)SetEvent(lp->stopEvent);
}
