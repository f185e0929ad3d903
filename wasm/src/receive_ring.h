/* The bytes the gateway sent, waiting for FreeRDP to read them.
 * JS (any thread) appends whole WebSocket frames; the client thread reads. The
 * "data arrived" WinPR event is set by the writer and reset by the reader when
 * it empties the ring, so the client's WaitForMultipleObjects wakes on data. */
#ifndef LANTERNA_RECEIVE_RING_H
#define LANTERNA_RECEIVE_RING_H

#include <stddef.h>
#include <winpr/wtypes.h>

typedef struct lt_receive_ring LtReceiveRing;

LtReceiveRing* lt_ring_new(size_t capacity);
void lt_ring_free(LtReceiveRing* ring);

/* Appends all of data or nothing; FALSE when it does not fit or the ring is closed. */
BOOL lt_ring_push(LtReceiveRing* ring, const BYTE* data, size_t length);

/* Copies up to length bytes out. Returns the count, 0 when empty, -1 when closed and drained. */
int lt_ring_read(LtReceiveRing* ring, BYTE* data, size_t length);

/* Ends the stream: readers drain what is left and then see -1. Wakes waiters. */
void lt_ring_close(LtReceiveRing* ring);

/* TRUE once lt_ring_close() was called: the byte stream has ended. */
BOOL lt_ring_closed(LtReceiveRing* ring);

size_t lt_ring_used(LtReceiveRing* ring);
size_t lt_ring_capacity(LtReceiveRing* ring);

/* Signalled while there is data to read or the ring is closed. */
HANDLE lt_ring_event(LtReceiveRing* ring);

#endif
