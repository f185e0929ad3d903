#include "mouse_input.h"

#include <freerdp/input.h>
#include <freerdp/log.h>
#include <winpr/synch.h>

#define TAG "lanterna.mouse_input"

BOOL lt_mouse_input_init(LtContext* lt)
{
	pthread_mutex_init(&lt->mouseLock, NULL);
	lt->mouseQueued = CreateEventA(NULL, TRUE, FALSE, NULL); /* manual reset: WinPR has no other */
	lt->mouseHead = 0;
	lt->mouseCount = 0;
	return lt->mouseQueued != NULL;
}

void lt_mouse_input_free(LtContext* lt)
{
	if (lt->mouseQueued)
		(void)CloseHandle(lt->mouseQueued);
	lt->mouseQueued = NULL;
	pthread_mutex_destroy(&lt->mouseLock);
}

BOOL lt_mouse_input_queue(LtContext* lt, UINT16 flags, UINT16 x, UINT16 y)
{
	if (!atomic_load(&lt->connected))
		return FALSE;
	BOOL taken = FALSE;
	pthread_mutex_lock(&lt->mouseLock);
	if (lt->mouseCount < LT_MOUSE_QUEUE_CAPACITY)
	{
		LtMouseEvent* slot =
		    &lt->mouseEvents[(lt->mouseHead + lt->mouseCount) % LT_MOUSE_QUEUE_CAPACITY];
		slot->flags = flags;
		slot->x = x;
		slot->y = y;
		lt->mouseCount++;
		taken = TRUE;
	}
	pthread_mutex_unlock(&lt->mouseLock);
	if (taken)
		(void)SetEvent(lt->mouseQueued);
	return taken;
}

HANDLE lt_mouse_input_event(LtContext* lt)
{
	return lt->mouseQueued;
}

void lt_mouse_input_flush(LtContext* lt)
{
	rdpInput* input = lt->common.context.input;
	for (;;)
	{
		LtMouseEvent event = { 0 };
		pthread_mutex_lock(&lt->mouseLock);
		const BOOL any = lt->mouseCount > 0;
		if (any)
		{
			event = lt->mouseEvents[lt->mouseHead];
			lt->mouseHead = (lt->mouseHead + 1) % LT_MOUSE_QUEUE_CAPACITY;
			lt->mouseCount--;
		}
		else
			(void)ResetEvent(lt->mouseQueued);
		pthread_mutex_unlock(&lt->mouseLock);
		if (!any)
			return;
		if (!freerdp_input_send_mouse_event(input, event.flags, event.x, event.y))
			WLog_WARN(TAG, "mouse event 0x%04" PRIx16 " not sent", event.flags);
	}
}
