/* Touch and mouse from the display page as RDP mouse input (issue 30): JS
 * queues pointer events (any thread); the RDP thread, the one that owns the
 * transport, sends them with FreeRDP's input API from its event loop, woken by
 * the queue's event. The queue is capped: a page that queues faster than the
 * session sends loses the newest events, never grows the heap. Whether the
 * presenter allows it is decided by the page and enforced by the gateway
 * (README "Ink and touch"), not here. */
#ifndef LANTERNA_MOUSE_INPUT_H
#define LANTERNA_MOUSE_INPUT_H

#include <winpr/wtypes.h>

#include "session.h"

/* Creates the queue's lock and event (session creation). */
BOOL lt_mouse_input_init(LtContext* lt);
void lt_mouse_input_free(LtContext* lt);

/* Queues one event: flags are FreeRDP's PTR_FLAGS_* (TS_POINTER_EVENT), x and
 * y desktop pixels. FALSE when the queue is full or the session is not
 * connected. Any thread. */
BOOL lt_mouse_input_queue(LtContext* lt, UINT16 flags, UINT16 x, UINT16 y);

/* The event the RDP thread waits on beside FreeRDP's handles. */
HANDLE lt_mouse_input_event(LtContext* lt);

/* On the RDP thread: sends what is queued, in order. */
void lt_mouse_input_flush(LtContext* lt);

#endif
