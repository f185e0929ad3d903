/* The capped queue that carries the page's input to the RDP thread (mouse_input.c,
 * touch_input.c): JS pushes on any thread; the RDP thread, the one that owns the
 * transport, pops in order from its event loop, woken by the queue's event,
 * which is set while anything waits. Records are fixed-size copies in storage
 * the owner gives: a page that queues faster than the session sends loses the
 * newest records, never grows the heap. */
#ifndef LANTERNA_INPUT_QUEUE_H
#define LANTERNA_INPUT_QUEUE_H

#include <pthread.h>
#include <stddef.h>

#include <winpr/wtypes.h>

typedef struct
{
	pthread_mutex_t lock;
	HANDLE queued; /* set while any record waits; manual reset (WinPR has no other) */
	BYTE* records; /* capacity × recordSize bytes, the owner's */
	size_t recordSize;
	UINT32 capacity;
	UINT32 head;
	UINT32 count;
} LtInputQueue;

/* storage holds capacity records of recordSize bytes and outlives the queue.
 * FALSE when the event could not be made (lt_input_queue_free still follows). */
BOOL lt_input_queue_init(LtInputQueue* queue, void* storage, size_t recordSize, UINT32 capacity);
void lt_input_queue_free(LtInputQueue* queue);

/* Copies one record in; FALSE when the queue is full. Any thread. */
BOOL lt_input_queue_push(LtInputQueue* queue, const void* record);

/* Copies the oldest record out; FALSE when none waits (and the event is reset
 * under the lock, so a push that comes after sets it again). */
BOOL lt_input_queue_pop(LtInputQueue* queue, void* record);

/* The event the RDP thread waits on beside FreeRDP's handles. */
HANDLE lt_input_queue_event(const LtInputQueue* queue);

#endif
