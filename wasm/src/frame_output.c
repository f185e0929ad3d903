#include "frame_output.h"

#include <stdlib.h>

#include <freerdp/gdi/gdi.h>

#include "dirty_rects.h"
#include "js_events.h"

static BOOL end_paint(rdpContext* context)
{
	LtContext* lt = (LtContext*)context;
	rdpGdi* gdi = context->gdi;
	if (!gdi || !gdi->primary || !gdi->primary->hdc || !gdi->primary->hdc->hwnd)
		return TRUE;

	HGDI_WND hwnd = gdi->primary->hdc->hwnd;
	if (hwnd->invalid->null || (hwnd->ninvalid <= 0))
		return TRUE;

	const size_t count = (size_t)hwnd->ninvalid;
	int32_t* record = malloc((LT_FRAME_HEADER_WORDS + 4 * count) * sizeof(int32_t));
	if (!record)
		return FALSE;

	LtRect* rects = (LtRect*)&record[LT_FRAME_HEADER_WORDS];
	for (size_t i = 0; i < count; i++)
		rects[i] = (LtRect){ hwnd->cinvalid[i].x, hwnd->cinvalid[i].y, hwnd->cinvalid[i].w,
			                 hwnd->cinvalid[i].h };
	const size_t n = lt_coalesce_rects(rects, count, gdi->width, gdi->height);
	if (n == 0)
	{
		free(record);
		return TRUE;
	}

	record[0] = (int32_t)++lt->frameSeq;
	record[1] = (int32_t)(intptr_t)gdi->primary_buffer;
	record[2] = gdi->width;
	record[3] = gdi->height;
	record[4] = (int32_t)gdi->stride;
	record[5] = lt->pixelLayout;
	record[6] = (int32_t)n;

	/* Only a stop ends the wait early: lt_session_stop sets the flag, then the
	 * event, and the flag is read after the reset, so neither is lost. Not
	 * FreeRDP's abort event: that is set when the input ends, while the GFX
	 * channel's thread still draws what it queued; waking on it, that thread drew
	 * over frames JS was still reading, and the surface was freed at disconnect
	 * under the last ones (replays ended on different pictures). */
	if (lt->waitFrameAck)
		(void)ResetEvent(lt->frameAck);
	if (atomic_load(&lt->stopRequested))
	{
		free(record);
		return TRUE;
	}
	lt_post_event(lt->id, LT_EVENT_FRAME, (intptr_t)record, 0, 0, 0);

	if (lt->waitFrameAck &&
	    (WaitForSingleObject(lt->frameAck, lt->frameAckTimeoutMs) == WAIT_TIMEOUT))
		atomic_fetch_add(&lt->lateFrameAcks, 1);
	return TRUE;
}

static BOOL desktop_resize(rdpContext* context)
{
	LtContext* lt = (LtContext*)context;
	rdpSettings* settings = context->settings;
	const UINT32 width = freerdp_settings_get_uint32(settings, FreeRDP_DesktopWidth);
	const UINT32 height = freerdp_settings_get_uint32(settings, FreeRDP_DesktopHeight);
	if (!gdi_resize(context->gdi, width, height))
		return FALSE;
	lt_post_event(lt->id, LT_EVENT_RESIZE, (int)width, (int)height, 0, 0);
	return TRUE;
}

void lt_frame_output_install(LtContext* lt)
{
	rdpUpdate* update = lt->common.context.update;
	update->EndPaint = end_paint;
	update->DesktopResize = desktop_resize;
}
