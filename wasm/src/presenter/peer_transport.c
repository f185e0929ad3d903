#include "peer_transport.h"

#include <stdlib.h>
#include <string.h>

#include <freerdp/transport_io.h>

#include "../js_events.h"
#include "presenter_events.h"

typedef struct
{
	LpContext* lp;
} LpLayer;

static LpContext* lp_from_transport(rdpTransport* transport)
{
	return (LpContext*)transport_get_context(transport);
}

/* One whole PDU per message, as the gateway's framing expects. */
static BOOL lp_output(LpContext* lp, const BYTE* data, size_t length)
{
	if ((length == 0) || (length > INT32_MAX))
		return length == 0;
	BYTE* copy = malloc(length);
	if (!copy)
		return FALSE;
	memcpy(copy, data, length);
	lt_post_event(lp->id, LP_EVENT_OUTPUT, (intptr_t)copy, (intptr_t)length, 0, 0);
	return TRUE;
}

static int layer_read(void* userContext, void* data, int bytes)
{
	LpContext* lp = ((LpLayer*)userContext)->lp;
	if (bytes <= 0)
		return 0;
	const int n = lt_ring_read(lp->ring, data, (size_t)bytes);
	if ((n == 0) && atomic_load(&lp->stopRequested))
		return -1;
	return n;
}

/* Only reached for bytes that bypass write_pdu; still one message per call. */
static int layer_write(void* userContext, const void* data, int bytes)
{
	LpContext* lp = ((LpLayer*)userContext)->lp;
	if (bytes < 0)
		return -1;
	return lp_output(lp, data, (size_t)bytes) ? bytes : -1;
}

static BOOL layer_wait(void* userContext, BOOL waitWrite, DWORD timeout)
{
	LpContext* lp = ((LpLayer*)userContext)->lp;
	if (waitWrite)
		return TRUE; /* JS queues every message: writing never blocks */
	return WaitForSingleObject(lt_ring_event(lp->ring), timeout) == WAIT_OBJECT_0;
}

static HANDLE layer_get_event(void* userContext)
{
	return lt_ring_event(((LpLayer*)userContext)->lp->ring);
}

static BOOL layer_close(WINPR_ATTR_UNUSED void* userContext)
{
	return TRUE; /* the ring belongs to the presenter, not to the layer */
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

static int write_pdu(rdpTransport* transport, wStream* s)
{
	LpContext* lp = lp_from_transport(transport);
	const size_t length = Stream_GetPosition(s);
	if (length > INT32_MAX)
		return -1;
	if (!lp_output(lp, Stream_Buffer(s), length))
	{
		freerdp_set_last_error_if_not(&lp->context, FREERDP_ERROR_CONNECT_TRANSPORT_FAILED);
		return -1;
	}
	return (int)length;
}

BOOL lp_peer_transport_install(LpContext* lp)
{
	rdpContext* context = &lp->context;
	const rdpTransportIo* defaults = freerdp_get_io_callbacks(context);
	if (!defaults)
		return FALSE;
	rdpTransportIo io = *defaults;
	io.TLSAccept = tls_accept_passthrough;
	io.WritePdu = write_pdu;
	if (!freerdp_set_io_callbacks(context, &io))
		return FALSE;

	/* the peer was made without a socket (freerdp_peer_new(-1)); the ring
	 * becomes its front BIO through FreeRDP's own layer BIO */
	rdpTransport* transport = freerdp_get_transport(context);
	rdpTransportLayer* layer = transport_layer_new(transport, sizeof(LpLayer));
	if (!layer)
		return FALSE;
	((LpLayer*)layer->userContext)->lp = lp;
	layer->Read = layer_read;
	layer->Write = layer_write;
	layer->Wait = layer_wait;
	layer->GetEvent = layer_get_event;
	layer->Close = layer_close;
	if (!io.AttachLayer || !io.AttachLayer(transport, layer))
	{
		transport_layer_free(layer);
		return FALSE;
	}
	lp->layerAttached = 1;
	return TRUE;
}
