#include "input_queue.h"

#include <string.h>

#include <winpr/synch.h>

BOOL lt_input_queue_init(LtInputQueue* queue, void* storage, size_t recordSize, UINT32 capacity)
{
	pthread_mutex_init(&queue->lock, NULL);
	queue->queued = CreateEventA(NULL, TRUE, FALSE, NULL);
	queue->records = storage;
	queue->recordSize = recordSize;
	queue->capacity = capacity;
	queue->head = 0;
	queue->count = 0;
	return queue->queued != NULL;
}

void lt_input_queue_free(LtInputQueue* queue)
{
	if (queue->queued)
		(void)CloseHandle(queue->queued);
	queue->queued = NULL;
	pthread_mutex_destroy(&queue->lock);
}

BOOL lt_input_queue_push(LtInputQueue* queue, const void* record)
{
	BOOL taken = FALSE;
	pthread_mutex_lock(&queue->lock);
	if (queue->count < queue->capacity)
	{
		const UINT32 slot = (queue->head + queue->count) % queue->capacity;
		memcpy(queue->records + (size_t)slot * queue->recordSize, record, queue->recordSize);
		queue->count++;
		taken = TRUE;
	}
	pthread_mutex_unlock(&queue->lock);
	if (taken)
		(void)SetEvent(queue->queued);
	return taken;
}

BOOL lt_input_queue_pop(LtInputQueue* queue, void* record)
{
	pthread_mutex_lock(&queue->lock);
	const BOOL any = queue->count > 0;
	if (any)
	{
		memcpy(record, queue->records + (size_t)queue->head * queue->recordSize, queue->recordSize);
		queue->head = (queue->head + 1) % queue->capacity;
		queue->count--;
	}
	else
		(void)ResetEvent(queue->queued);
	pthread_mutex_unlock(&queue->lock);
	return any;
}

HANDLE lt_input_queue_event(const LtInputQueue* queue)
{
	return queue->queued;
}
