#include "channel_transport.h"

#include <freerdp/transport_io.h>
#include <winpr/sysinfo.h>

#include "js_events.h"
#include "ring_layer.h"

static LtContext* lt_from_transport(rdpTransport* transport)
{
	return (LtContext*)transport_get_context(transport);
}

/* While connecting, every read is bounded by the connect deadline, so a
 * server that stops answering ends the attempt instead of hanging it. */
static BOOL connect_deadline_passed(LtContext* lt)
{
	if (atomic_load(&lt->connected) || (lt->connectDeadline == 0))
		return FALSE;
	if (GetTickCount64() < lt->connectDeadline)
		return FALSE;
	atomic_store(&lt->timedOut, 1);
	return TRUE;
}

static BOOL channel_read_fails(void* owner)
{
	LtContext* lt = owner;
	return atomic_load(&lt->stopRequested) || connect_deadline_passed(lt);
}

static DWORD channel_wait_limit(void* owner, DWORD timeout)
{
	LtContext* lt = owner;
	if (!atomic_load(&lt->connected) && (lt->connectDeadline != 0))
	{
		const UINT64 now = GetTickCount64();
		const UINT64 left = (now < lt->connectDeadline) ? lt->connectDeadline - now : 0;
		if (left < timeout)
			timeout = (DWORD)left;
	}
	return timeout;
}

/* What closing keeps is the error that ended the connection: FreeRDP clears
 * it before it retries (and the retry is refused, see connect_layer), so
 * afterwards it is gone. */
static void channel_closed(void* owner)
{
	LtContext* lt = owner;
	if (!lt->layerClosed)
	{
		lt->layerClosed = TRUE;
		lt->layerCloseError = freerdp_get_last_error(&lt->common.context);
	}
}

static rdpTransportLayer* connect_layer(rdpTransport* transport,
                                        WINPR_ATTR_UNUSED const char* hostname,
                                        WINPR_ATTR_UNUSED int port, WINPR_ATTR_UNUSED DWORD timeout)
{
	/* FreeRDP reconnects after a failed negotiation (falling back from NLA to
	 * TLS) and after a transport failure during connect; each would send a
	 * second Connection Request down the same data socket, which the gateway
	 * treats as a bad message. One socket carries one connection attempt. */
	LtContext* lt = lt_from_transport(transport);
	if (lt->layerConnects++ > 0)
	{
		freerdp_set_last_error_if_not(&lt->common.context,
		                              FREERDP_ERROR_SECURITY_NEGO_CONNECT_FAILED);
		return NULL;
	}
	/* each PDU to JS (LT_EVENT_SEND) as one WebSocket frame */
	const LtRingLayerHooks hooks = { .ring = lt->ring,
		                             .id = lt->id,
		                             .kind = LT_EVENT_SEND,
		                             .owner = lt,
		                             .readFails = channel_read_fails,
		                             .waitLimit = channel_wait_limit,
		                             .closed = channel_closed };
	return lt_ring_layer_new(transport, &hooks);
}

/* There are no sockets in the browser: anything that asks for one fails. */
static int tcp_connect(rdpContext* context, WINPR_ATTR_UNUSED rdpSettings* settings,
                       WINPR_ATTR_UNUSED const char* hostname, WINPR_ATTR_UNUSED int port,
                       WINPR_ATTR_UNUSED DWORD timeout)
{
	freerdp_set_last_error_if_not(context, FREERDP_ERROR_CONNECT_FAILED);
	return -1;
}

/* The gateway did the TLS handshake; what is left is to have its report. The
 * `secured` message always arrives before the Connection Confirm, so by the
 * time FreeRDP asks for TLS the key is there, or the gateway broke protocol. */
static BOOL tls_connect(rdpTransport* transport)
{
	LtContext* lt = lt_from_transport(transport);
	pthread_mutex_lock(&lt->keyLock);
	const BOOL secured = lt->publicKey != NULL;
	pthread_mutex_unlock(&lt->keyLock);
	if (!secured)
		freerdp_set_last_error_if_not(&lt->common.context, FREERDP_ERROR_TLS_CONNECT_FAILED);
	return secured;
}

static BOOL get_public_key(rdpTransport* transport, const BYTE** data, DWORD* length)
{
	LtContext* lt = lt_from_transport(transport);
	pthread_mutex_lock(&lt->keyLock);
	*data = lt->publicKey;
	*length = lt->publicKeyLength;
	pthread_mutex_unlock(&lt->keyLock);
	return *data != NULL;
}

/* One whole PDU per frame, as the gateway protocol requires. */
static int write_pdu(rdpTransport* transport, wStream* s)
{
	LtContext* lt = lt_from_transport(transport);
	return lt_post_pdu(&lt->common.context, lt->id, LT_EVENT_SEND, s);
}

BOOL lt_channel_transport_install(LtContext* lt)
{
	rdpContext* context = &lt->common.context;
	rdpTransportIo io;
	if (!lt_transport_io_of(context, &io))
		return FALSE;
	io.TCPConnect = tcp_connect;
	io.ConnectLayer = connect_layer;
	io.TLSConnect = tls_connect;
	io.GetPublicKey = get_public_key;
	io.WritePdu = write_pdu;
	return freerdp_set_io_callbacks(context, &io);
}
