/* Multi-touch from the display page through RDPEI ([MS-RDPEI], FreeRDP's
 * `rdpei` dynamic channel, issue 30): when the server opens
 * `Microsoft::Windows::RDS::Input` the page is told (LT_EVENT_TOUCH) and may
 * send touch contacts — down, move, up, cancel, with a contact id of its own,
 * desktop pixels and a pressure where the panel gives one — instead of
 * single-touch as mouse input (mouse_input.h). JS queues them (any thread);
 * the RDP thread hands them to FreeRDP's channel from its event loop, woken by
 * the queue's event; the channel frames them (its contact ids, its 20 ms
 * frames; patch 0016 keeps every down and up). The queue is capped like the
 * mouse's. Whether the presenter allows it is decided by the page; the
 * gateway's gate does not cover this channel yet (docs/ink-and-touch.md). */
#ifndef LANTERNA_TOUCH_INPUT_H
#define LANTERNA_TOUCH_INPUT_H

#include <winpr/wtypes.h>

#include "session.h"

/* The kinds JS queues; the numbers are the contract with wasm/js/lanternaRdp.js. */
enum lt_touch_kind
{
	LT_TOUCH_DOWN = 1,
	LT_TOUCH_MOVE = 2,
	LT_TOUCH_UP = 3,
	LT_TOUCH_CANCEL = 4
};

/* Most contacts' changes waiting for the RDP thread: past it the newest are dropped. */
#define LT_TOUCH_QUEUE_CAPACITY 256u

/* Creates the queue (session creation); FALSE when out of memory. */
BOOL lt_touch_input_init(LtContext* lt);
void lt_touch_input_free(LtContext* lt);

/* Subscribes to channel connects/disconnects (pre-connect). */
BOOL lt_touch_input_install(LtContext* lt);
void lt_touch_input_uninstall(LtContext* lt);

/* 1 while the server has the channel open. Any thread. */
int lt_touch_input_offered(LtContext* lt);

/* Queues one change of a contact: id is the page's (a pointer id), x and y
 * desktop pixels, pressure 0–1024 or negative when the panel gives none.
 * FALSE when the channel is not open, the kind unknown or the queue full. Any thread. */
BOOL lt_touch_input_queue(LtContext* lt, int kind, INT32 id, INT32 x, INT32 y, INT32 pressure);

/* The event the RDP thread waits on beside FreeRDP's handles. */
HANDLE lt_touch_input_event(LtContext* lt);

/* On the RDP thread: hands what is queued to the channel, in order. */
void lt_touch_input_flush(LtContext* lt);

#endif
