#include "touch_input.h"

#include <stdlib.h>

#include <emscripten.h>

#include <freerdp/channels/drdynvc.h>
#include <freerdp/channels/wtsvc.h>
#include <freerdp/log.h>
#include <freerdp/server/rdpei.h>

#include "../js_events.h"
#include "presenter_events.h"

#define TAG "lanterna.presenter.touch"

struct LpTouch
{
	RdpeiServerContext* rdpei;
	BOOL opened;
	BOOL off;
};

static LpContext* lp_of(RdpeiServerContext* rdpei)
{
	return (LpContext*)rdpei->user_data;
}

static UINT on_client_ready(RdpeiServerContext* rdpei)
{
	lt_post_event(lp_of(rdpei)->id, LP_EVENT_TOUCH_READY, (intptr_t)rdpei->clientVersion,
	              rdpei->maxTouchPoints, (int)rdpei->protocolFlags, 0);
	return CHANNEL_RC_OK;
}

static INT32 clip_to_int32(UINT64 value)
{
	return (value > INT32_MAX) ? INT32_MAX : (INT32)value;
}

static UINT on_touch_event(RdpeiServerContext* rdpei, const RDPINPUT_TOUCH_EVENT* event)
{
	LpContext* lp = lp_of(rdpei);
	for (UINT16 f = 0; f < event->frameCount; f++)
	{
		const RDPINPUT_TOUCH_FRAME* frame = &event->frames[f];
		const UINT32 count = (frame->contactCount > LP_TOUCH_MAX_CONTACTS) ? LP_TOUCH_MAX_CONTACTS
		                                                                   : frame->contactCount;
		INT32* record = calloc(LP_TOUCH_RECORD_HEADER_WORDS + (count * LP_TOUCH_WORDS_PER_CONTACT),
		                       sizeof(INT32));
		if (!record)
			return CHANNEL_RC_NO_MEMORY;
		record[0] = (INT32)count;
		record[1] = clip_to_int32(frame->frameOffset);
		for (UINT32 i = 0; i < count; i++)
		{
			const RDPINPUT_CONTACT_DATA* contact = &frame->contacts[i];
			INT32* word = &record[LP_TOUCH_RECORD_HEADER_WORDS + (i * LP_TOUCH_WORDS_PER_CONTACT)];
			word[0] = (INT32)contact->contactId;
			word[1] = (INT32)contact->contactFlags;
			word[2] = contact->x;
			word[3] = contact->y;
			word[4] = (contact->fieldsPresent & CONTACT_DATA_PRESSURE_PRESENT)
			              ? (INT32)contact->pressure
			              : -1;
			word[5] = (INT32)contact->fieldsPresent;
		}
		lt_post_event(lp->id, LP_EVENT_TOUCH, (intptr_t)record, (intptr_t)count, 0, 0);
	}
	return CHANNEL_RC_OK;
}

BOOL lp_touch_create(LpContext* lp)
{
	LpTouch* touch = calloc(1, sizeof(*touch));
	if (!touch)
		return FALSE;
	touch->rdpei = rdpei_server_context_new(lp->vcm);
	if (!touch->rdpei)
	{
		free(touch);
		return FALSE;
	}
	touch->rdpei->user_data = lp;
	touch->rdpei->onClientReady = on_client_ready;
	touch->rdpei->onTouchEvent = on_touch_event;
	lp->touch = touch;
	return TRUE;
}

void lp_touch_free(LpContext* lp)
{
	LpTouch* touch = lp->touch;
	if (!touch)
		return;
	/* closes the channel if it is open (NULL once touch went off) */
	rdpei_server_context_free(touch->rdpei);
	free(touch);
	lp->touch = NULL;
}

static void lp_touch_off(LpContext* lp, UINT error)
{
	LpTouch* touch = lp->touch;
	touch->off = TRUE;
	/* close the channel (the client hears it closed and sends no more): left
	 * open and unread, what the client sends would queue in it for the session */
	rdpei_server_context_free(touch->rdpei);
	touch->rdpei = NULL;
	lt_post_event(lp->id, LP_EVENT_TOUCH_OFF, (intptr_t)error, 0, 0, 0);
}

BOOL lp_touch_poll(LpContext* lp)
{
	LpTouch* touch = lp->touch;
	if (!touch || touch->opened || touch->off || !lp->peer->activated ||
	    !WTSVirtualChannelManagerIsChannelJoined(lp->vcm, DRDYNVC_SVC_CHANNEL_NAME) ||
	    (WTSVirtualChannelManagerGetDrdynvcState(lp->vcm) != DRDYNVC_STATE_READY))
		return TRUE;
	UINT rc = rdpei_server_init(touch->rdpei);
	if (rc != CHANNEL_RC_OK)
	{
		/* a failed init may have closed the channel without forgetting it */
		rdpei_server_context_reset(touch->rdpei);
		lp_touch_off(lp, rc);
		return TRUE; /* touch is not worth the picture */
	}
	touch->opened = TRUE;
	/* [MS-RDPEI] 3.2.5.1: the server speaks first. Sent right behind the channel's
	 * Create Request: a client that has the channel has created it by then, one
	 * that has not drops the data with the channel it refused. Version 3.0.0
	 * carries supportedFeatures; no multipen injection here */
	rc = rdpei_server_send_sc_ready(touch->rdpei, RDPINPUT_PROTOCOL_V300, 0);
	if (rc != CHANNEL_RC_OK)
		lp_touch_off(lp, rc);
	return TRUE;
}

HANDLE lp_touch_event(LpContext* lp)
{
	LpTouch* touch = lp->touch;
	return (touch && touch->opened && !touch->off) ? rdpei_server_get_event_handle(touch->rdpei)
	                                               : NULL;
}

void lp_touch_handle_messages(LpContext* lp)
{
	HANDLE event = lp_touch_event(lp);
	if (!event)
		return;
	/* one call reads one header or one body; a bounded number per wake-up */
	for (int i = 0; (i < 64) && (WaitForSingleObject(event, 0) == WAIT_OBJECT_0); i++)
	{
		const UINT rc = rdpei_server_handle_messages(lp->touch->rdpei);
		if (rc == ERROR_READ_FAULT)
			break; /* nothing more to read (FreeRDP's word for it) */
		if (rc != CHANNEL_RC_OK)
		{
			WLog_WARN(TAG, "rdpei message refused: 0x%08" PRIx32 "; touch off", rc);
			lp_touch_off(lp, rc);
			return;
		}
	}
}

/* JS's switch, before start (lanternaPresenter.js createSession's `touch: false`):
 * a presenter that offers no RDPEI, as a server without it. Exported here, beside
 * what it switches off. */
EMSCRIPTEN_KEEPALIVE void lp_presenter_no_touch(intptr_t handle)
{
	LpContext* lp = (LpContext*)handle;
	if (!lp->threadStarted)
		lp_touch_free(lp);
}
