#include "peer_transport.h"

#include <freerdp/transport_io.h>

#include "../ring_layer.h"
#include "presenter_events.h"

static LpContext* lp_from_transport(rdpTransport* transport)
{
	return (LpContext*)transport_get_context(transport);
}

static BOOL peer_read_fails(void* owner)
{
	LpContext* lp = owner;
	return atomic_load(&lp->stopRequested);
}

/* The display's client asked for TLS (it always does, and it gets it: the
 * X.224 Connection Confirm says PROTOCOL_SSL, so the display's client stays
 * as it is). The TLS the client sees is the gateway's; this leg is already
 * inside the presenter page's wss connection, so the handshake is skipped
 * here: the bytes after the Confirm are the plaintext of that TLS. */
static BOOL tls_accept_passthrough(WINPR_ATTR_UNUSED rdpTransport* transport)
{
	return TRUE;
}

/* One whole PDU per message, as the gateway's framing expects. */
static int write_pdu(rdpTransport* transport, wStream* s)
{
	LpContext* lp = lp_from_transport(transport);
	return lt_post_pdu(&lp->context, lp->id, LP_EVENT_OUTPUT, s);
}

BOOL lp_peer_transport_install(LpContext* lp)
{
	rdpContext* context = &lp->context;
	rdpTransportIo io;
	if (!lt_transport_io_of(context, &io))
		return FALSE;
	io.TLSAccept = tls_accept_passthrough;
	io.WritePdu = write_pdu;
	if (!freerdp_set_io_callbacks(context, &io))
		return FALSE;

	/* the peer was made without a socket (freerdp_peer_new(-1)); the ring
	 * becomes its front BIO through FreeRDP's own layer BIO */
	rdpTransport* transport = freerdp_get_transport(context);
	const LtRingLayerHooks hooks = { .ring = lp->ring,
		                             .id = lp->id,
		                             .kind = LP_EVENT_OUTPUT,
		                             .owner = lp,
		                             .readFails = peer_read_fails };
	rdpTransportLayer* layer = lt_ring_layer_new(transport, &hooks);
	if (!layer)
		return FALSE;
	if (!io.AttachLayer || !io.AttachLayer(transport, layer))
	{
		transport_layer_free(layer);
		return FALSE;
	}
	lp->layerAttached = 1;
	return TRUE;
}
