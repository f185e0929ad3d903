#include "display_control.h"

#include <string.h>

#include <freerdp/client/disp.h>
#include <freerdp/event.h>
#include <freerdp/log.h>

#include "channel_watch.h"

#define TAG "lanterna.display_control"
#define LT_DISP_MIN 200u
#define LT_DISP_MAX 8192u

static LtContext* lt_of(void* context)
{
	return (LtContext*)context;
}

static UINT lt_disp_caps(DispClientContext* disp, UINT32 maxMonitors, UINT32 factorA, UINT32 factorB)
{
	LtContext* lt = (LtContext*)disp->custom;
	WLog_DBG(TAG, "display control caps: %" PRIu32 " monitors, area %" PRIu32 "×%" PRIu32,
	         maxMonitors, factorA, factorB);
	atomic_store(&lt->dispMaxArea, (unsigned)(factorA * factorB));
	atomic_store(&lt->dispReady, 1);
	return CHANNEL_RC_OK;
}

static void lt_disp_connected(void* context, const ChannelConnectedEventArgs* e)
{
	if (strcmp(e->name, DISP_DVC_CHANNEL_NAME) != 0)
		return;
	LtContext* lt = lt_of(context);
	DispClientContext* disp = (DispClientContext*)e->pInterface;
	disp->custom = lt;
	disp->DisplayControlCaps = lt_disp_caps;
	lt->disp = disp;
}

static void lt_disp_disconnected(void* context, const ChannelDisconnectedEventArgs* e)
{
	if (strcmp(e->name, DISP_DVC_CHANNEL_NAME) != 0)
		return;
	LtContext* lt = lt_of(context);
	atomic_store(&lt->dispReady, 0);
	lt->disp = NULL;
}

BOOL lt_display_control_install(LtContext* lt)
{
	return lt_channel_watch(&lt->common.context, lt_disp_connected, lt_disp_disconnected);
}

void lt_display_control_uninstall(LtContext* lt)
{
	lt_channel_unwatch(&lt->common.context, lt_disp_connected, lt_disp_disconnected);
	atomic_store(&lt->dispReady, 0);
	lt->disp = NULL;
}

static UINT32 lt_clamp(UINT32 value)
{
	return (value < LT_DISP_MIN) ? LT_DISP_MIN : (value > LT_DISP_MAX) ? LT_DISP_MAX : value;
}

void lt_display_control_request(LtContext* lt, UINT32 width, UINT32 height, UINT32 desktopScale,
                                UINT32 deviceScale)
{
	/* [MS-RDPEDISP] 2.2.2.2.1: the width MUST NOT be odd */
	const UINT32 w = lt_clamp(width) & ~1u;
	const UINT32 h = lt_clamp(height);
	/* one word, so the RDP thread never reads half of a newer wish */
	atomic_store(&lt->dispWish, ((uint64_t)w << 48) | ((uint64_t)h << 32) |
	                                ((uint64_t)(desktopScale & 0xFFFFu) << 16) |
	                                (uint64_t)(deviceScale & 0xFFFFu));
}

int lt_display_control_ready(LtContext* lt)
{
	return atomic_load(&lt->dispReady);
}

void lt_display_control_poll(LtContext* lt)
{
	if (!atomic_load(&lt->dispReady) || !lt->disp)
		return;
	const uint64_t wish = atomic_exchange(&lt->dispWish, 0);
	if (wish == 0)
		return;
	DISPLAY_CONTROL_MONITOR_LAYOUT layout = { 0 };
	layout.Flags = DISPLAY_CONTROL_MONITOR_PRIMARY;
	layout.Width = (UINT32)(wish >> 48);
	layout.Height = (UINT32)((wish >> 32) & 0xFFFFu);
	const UINT32 maxArea = atomic_load(&lt->dispMaxArea);
	if ((maxArea != 0) && ((UINT64)layout.Width * layout.Height > maxArea))
	{
		WLog_WARN(TAG, "%" PRIu32 "×%" PRIu32 " is over the server's area; not asked", layout.Width,
		          layout.Height);
		return;
	}
	const rdpSettings* settings = lt->common.context.settings;
	layout.PhysicalWidth = freerdp_settings_get_uint32(settings, FreeRDP_DesktopPhysicalWidth);
	layout.PhysicalHeight = freerdp_settings_get_uint32(settings, FreeRDP_DesktopPhysicalHeight);
	layout.Orientation = ORIENTATION_LANDSCAPE;
	layout.DesktopScaleFactor = (UINT32)((wish >> 16) & 0xFFFFu);
	layout.DeviceScaleFactor = (UINT32)(wish & 0xFFFFu);
	const UINT rc = lt->disp->SendMonitorLayout(lt->disp, 1, &layout);
	if (rc != CHANNEL_RC_OK)
		WLog_WARN(TAG, "monitor layout not sent: 0x%08" PRIx32, rc);
}
