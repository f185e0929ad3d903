/* A FreeRDP transport layer whose reads come from a receive ring and whose
 * writes go out as JS events: the client's (channel_transport.c) and the
 * presenter's peer's (presenter/peer_transport.c) one layer, each owner
 * adding only what differs through its hooks (when an empty read fails, a
 * wait's limit, what closing keeps). */
#ifndef LANTERNA_RING_LAYER_H
#define LANTERNA_RING_LAYER_H

#include <stdint.h>

#include <freerdp/transport_io.h>

#include "receive_ring.h"

typedef struct
{
	LtReceiveRing* ring; /* the owner's, for the owner's whole life */
	/* bytes that bypass WritePdu still go out one message per call: this
	 * JS event (lt_post_copy) of this handle */
	intptr_t id;
	int kind;
	void* owner; /* handed back to each hook */
	/* TRUE when a read that finds the ring empty must fail (a stop, a deadline) */
	BOOL (*readFails)(void* owner);
	/* optional: the longest a wait for data may last now, at most timeout */
	DWORD (*waitLimit)(void* owner, DWORD timeout);
	/* optional: told when FreeRDP closes the layer */
	void (*closed)(void* owner);
} LtRingLayerHooks;

/* A layer for transport with these hooks (copied); NULL without memory. */
rdpTransportLayer* lt_ring_layer_new(rdpTransport* transport, const LtRingLayerHooks* hooks);

/* A malloc'd copy of data posted to JS as event kind (a: the copy, b: its
 * length; JS frees it): one PDU, one WebSocket message. Nothing is posted
 * for no bytes; FALSE when a copy cannot be made or data is too long. */
BOOL lt_post_copy(intptr_t id, int kind, const BYTE* data, size_t length);

/* WritePdu's work for either end: the PDU in s whole as one such event (the
 * default path goes through a buffered BIO whose ring buffer may split a
 * PDU in two); when it cannot go, context's last error says so. Returns
 * the length, or -1. */
int lt_post_pdu(rdpContext* context, intptr_t id, int kind, wStream* s);

/* Copies context's transport callbacks (FreeRDP's defaults until an owner
 * sets its own) into io, for either end to replace the few it owns (its
 * WritePdu through lt_post_pdu, its TLS step) before freerdp_set_io_callbacks;
 * FALSE when the context has none. */
BOOL lt_transport_io_of(rdpContext* context, rdpTransportIo* io);

#endif
