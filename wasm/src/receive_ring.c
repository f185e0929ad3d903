#include "receive_ring.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <winpr/synch.h>

struct lt_receive_ring
{
	pthread_mutex_t lock;
	BYTE* buffer;
	size_t capacity;
	size_t head; /* next byte to read */
	size_t used;
	BOOL closed;
	HANDLE dataEvent; /* manual reset: set while used > 0 or closed */
};

LtReceiveRing* lt_ring_new(size_t capacity)
{
	LtReceiveRing* ring = calloc(1, sizeof(*ring));
	if (!ring)
		return NULL;
	ring->buffer = malloc(capacity);
	ring->dataEvent = CreateEventA(NULL, TRUE, FALSE, NULL);
	if (!ring->buffer || !ring->dataEvent || (pthread_mutex_init(&ring->lock, NULL) != 0))
	{
		if (ring->dataEvent)
			(void)CloseHandle(ring->dataEvent);
		free(ring->buffer);
		free(ring);
		return NULL;
	}
	ring->capacity = capacity;
	return ring;
}

void lt_ring_free(LtReceiveRing* ring)
{
	if (!ring)
		return;
	(void)CloseHandle(ring->dataEvent);
	pthread_mutex_destroy(&ring->lock);
	free(ring->buffer);
	free(ring);
}

BOOL lt_ring_push(LtReceiveRing* ring, const BYTE* data, size_t length)
{
	BOOL ok = FALSE;
	pthread_mutex_lock(&ring->lock);
	if (!ring->closed && (length <= ring->capacity - ring->used))
	{
		const size_t tail = (ring->head + ring->used) % ring->capacity;
		const size_t first = (length < ring->capacity - tail) ? length : ring->capacity - tail;
		memcpy(ring->buffer + tail, data, first);
		memcpy(ring->buffer, data + first, length - first);
		ring->used += length;
		ok = TRUE;
		if (length > 0)
			(void)SetEvent(ring->dataEvent);
	}
	pthread_mutex_unlock(&ring->lock);
	return ok;
}

int lt_ring_read(LtReceiveRing* ring, BYTE* data, size_t length)
{
	int result = 0;
	pthread_mutex_lock(&ring->lock);
	if (ring->used == 0)
		result = ring->closed ? -1 : 0;
	else
	{
		size_t n = (length < ring->used) ? length : ring->used;
		if (n > INT32_MAX)
			n = INT32_MAX;
		const size_t first = (n < ring->capacity - ring->head) ? n : ring->capacity - ring->head;
		memcpy(data, ring->buffer + ring->head, first);
		memcpy(data + first, ring->buffer, n - first);
		ring->head = (ring->head + n) % ring->capacity;
		ring->used -= n;
		result = (int)n;
	}
	/* under the lock, so a concurrent push cannot lose its SetEvent */
	if ((ring->used == 0) && !ring->closed)
		(void)ResetEvent(ring->dataEvent);
	pthread_mutex_unlock(&ring->lock);
	return result;
}

BOOL lt_ring_closed(LtReceiveRing* ring)
{
	pthread_mutex_lock(&ring->lock);
	const BOOL closed = ring->closed;
	pthread_mutex_unlock(&ring->lock);
	return closed;
}

void lt_ring_close(LtReceiveRing* ring)
{
	pthread_mutex_lock(&ring->lock);
	ring->closed = TRUE;
	(void)SetEvent(ring->dataEvent);
	pthread_mutex_unlock(&ring->lock);
}

size_t lt_ring_used(LtReceiveRing* ring)
{
	pthread_mutex_lock(&ring->lock);
	const size_t used = ring->used;
	pthread_mutex_unlock(&ring->lock);
	return used;
}

size_t lt_ring_capacity(LtReceiveRing* ring)
{
	return ring->capacity;
}

HANDLE lt_ring_event(LtReceiveRing* ring)
{
	return ring->dataEvent;
}
