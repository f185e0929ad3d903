#include "touch_input.h"

#include <stdlib.h>
#include <string.h>

#include <freerdp/client/rdpei.h>
#include <freerdp/event.h>
#include <freerdp/log.h>

#include "channel_watch.h"
#include "input_queue.h"
#include "js_events.h"

#define TAG "lanterna.touch_input"

typedef struct
{
	INT32 id;
	INT32 x;
	INT32 y;
	INT32 pressure; /* negative: none */
	int kind;       /* enum lt_touch_kind */
} LtTouchEvent;

struct LtTouchInput
{
	_Atomic(RdpeiClientContext*) rdpei; /* set while the server has the channel open */
	LtInputQueue queue;                 /* the contacts' changes JS queued, in events */
	LtTouchEvent events[LT_TOUCH_QUEUE_CAPACITY];
};

BOOL lt_touch_input_init(LtContext* lt)
{
	LtTouchInput* touch = calloc(1, sizeof(*touch));
	if (!touch)
		return FALSE;
	lt->touch = touch;
	return lt_input_queue_init(&touch->queue, touch->events, sizeof(LtTouchEvent),
	                           LT_TOUCH_QUEUE_CAPACITY);
}

void lt_touch_input_free(LtContext* lt)
{
	LtTouchInput* touch = lt->touch;
	if (!touch)
		return;
	lt_input_queue_free(&touch->queue);
	free(touch);
	lt->touch = NULL;
}

static void lt_touch_connected(void* context, const ChannelConnectedEventArgs* e)
{
	if (strcmp(e->name, RDPEI_DVC_CHANNEL_NAME) != 0)
		return;
	LtContext* lt = (LtContext*)context;
	atomic_store(&lt->touch->rdpei, (RdpeiClientContext*)e->pInterface);
	lt_post_event(lt->id, LT_EVENT_TOUCH, 1, 0, 0, 0);
}

static void lt_touch_disconnected(void* context, const ChannelDisconnectedEventArgs* e)
{
	if (strcmp(e->name, RDPEI_DVC_CHANNEL_NAME) != 0)
		return;
	LtContext* lt = (LtContext*)context;
	/* the channel's context lives until the session's channels are freed, after
	 * the event loop: a flush that still holds it only sends into a closed channel */
	atomic_store(&lt->touch->rdpei, NULL);
	lt_post_event(lt->id, LT_EVENT_TOUCH, 0, 0, 0, 0);
}

BOOL lt_touch_input_install(LtContext* lt)
{
	return lt_channel_watch(&lt->common.context, lt_touch_connected, lt_touch_disconnected);
}

void lt_touch_input_uninstall(LtContext* lt)
{
	lt_channel_unwatch(&lt->common.context, lt_touch_connected, lt_touch_disconnected);
	atomic_store(&lt->touch->rdpei, NULL);
}

int lt_touch_input_offered(LtContext* lt)
{
	return atomic_load(&lt->touch->rdpei) != NULL;
}

BOOL lt_touch_input_queue(LtContext* lt, int kind, INT32 id, INT32 x, INT32 y, INT32 pressure)
{
	if ((kind < LT_TOUCH_DOWN) || (kind > LT_TOUCH_CANCEL) || !atomic_load(&lt->connected) ||
	    !lt_touch_input_offered(lt))
		return FALSE;
	/* [MS-RDPEI] 2.2.3.3.1.1: pressure is normalized to 0–1024 */
	const INT32 normalized = (pressure < 0) ? -1 : (pressure > 1024) ? 1024 : pressure;
	const LtTouchEvent event = { .id = id, .x = x, .y = y, .pressure = normalized, .kind = kind };
	return lt_input_queue_push(&lt->touch->queue, &event);
}

HANDLE lt_touch_input_event(LtContext* lt)
{
	return lt_input_queue_event(&lt->touch->queue);
}

#define LT_ENGAGED (RDPINPUT_CONTACT_FLAG_INRANGE | RDPINPUT_CONTACT_FLAG_INCONTACT)

static UINT lt_touch_send(RdpeiClientContext* rdpei, const LtTouchEvent* e)
{
	INT32 contactId = 0;
	const UINT32 fields = (e->pressure >= 0) ? CONTACT_DATA_PRESSURE_PRESENT : 0;
	const UINT32 pressure = (e->pressure >= 0) ? (UINT32)e->pressure : 0;
	switch (e->kind)
	{
		case LT_TOUCH_DOWN:
			return rdpei->TouchRawEvent(rdpei, e->id, e->x, e->y, &contactId,
			                            RDPINPUT_CONTACT_FLAG_DOWN | LT_ENGAGED, fields, pressure);
		case LT_TOUCH_MOVE:
			return rdpei->TouchRawEvent(rdpei, e->id, e->x, e->y, &contactId,
			                            RDPINPUT_CONTACT_FLAG_UPDATE | LT_ENGAGED, fields, pressure);
		case LT_TOUCH_UP:
		{
			/* [MS-RDPEI] 3.1.1.1: an engaged contact leaves by an update to its last
			 * place, then an up (as FreeRDP's own TouchEnd does) */
			const UINT rc =
			    rdpei->TouchRawEvent(rdpei, e->id, e->x, e->y, &contactId,
			                         RDPINPUT_CONTACT_FLAG_UPDATE | LT_ENGAGED, fields, pressure);
			if (rc != CHANNEL_RC_OK)
				return rc;
			return rdpei->TouchRawEvent(rdpei, e->id, e->x, e->y, &contactId,
			                            RDPINPUT_CONTACT_FLAG_UP, 0, 0);
		}
		default:
			return rdpei->TouchRawEvent(rdpei, e->id, e->x, e->y, &contactId,
			                            RDPINPUT_CONTACT_FLAG_UP | RDPINPUT_CONTACT_FLAG_CANCELED,
			                            0, 0);
	}
}

void lt_touch_input_flush(LtContext* lt)
{
	LtTouchInput* touch = lt->touch;
	LtTouchEvent event = { 0 };
	while (lt_input_queue_pop(&touch->queue, &event))
	{
		RdpeiClientContext* rdpei = atomic_load(&touch->rdpei);
		if (!rdpei)
			continue; /* the channel closed: what was queued goes nowhere */
		const UINT rc = lt_touch_send(rdpei, &event);
		if (rc != CHANNEL_RC_OK)
			WLog_WARN(TAG, "touch %d of contact %" PRId32 " not sent: 0x%08" PRIx32, event.kind,
			          event.id, rc);
	}
}
