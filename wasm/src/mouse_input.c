#include "mouse_input.h"

#include <freerdp/input.h>
#include <freerdp/log.h>

#define TAG "lanterna.mouse_input"

BOOL lt_mouse_input_init(LtContext* lt)
{
	return lt_input_queue_init(&lt->mouse, lt->mouseEvents, sizeof(LtMouseEvent),
	                           LT_MOUSE_QUEUE_CAPACITY);
}

void lt_mouse_input_free(LtContext* lt)
{
	lt_input_queue_free(&lt->mouse);
}

BOOL lt_mouse_input_queue(LtContext* lt, UINT16 flags, UINT16 x, UINT16 y)
{
	if (!atomic_load(&lt->connected))
		return FALSE;
	const LtMouseEvent event = { .flags = flags, .x = x, .y = y };
	return lt_input_queue_push(&lt->mouse, &event);
}

HANDLE lt_mouse_input_event(LtContext* lt)
{
	return lt_input_queue_event(&lt->mouse);
}

void lt_mouse_input_flush(LtContext* lt)
{
	rdpInput* input = lt->common.context.input;
	LtMouseEvent event = { 0 };
	while (lt_input_queue_pop(&lt->mouse, &event))
	{
		if (!freerdp_input_send_mouse_event(input, event.flags, event.x, event.y))
			WLog_WARN(TAG, "mouse event 0x%04" PRIx16 " not sent", event.flags);
	}
}
