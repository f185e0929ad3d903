#include "ring_layer.h"

#include <stdlib.h>
#include <string.h>

#include <freerdp/freerdp.h>

#include "js_events.h"

static const LtRingLayerHooks* hooks_of(void* userContext)
{
	return (const LtRingLayerHooks*)userContext;
}

static int layer_read(void* userContext, void* data, int bytes)
{
	const LtRingLayerHooks* hooks = hooks_of(userContext);
	if (bytes <= 0)
		return 0;
	const int n = lt_ring_read(hooks->ring, data, (size_t)bytes);
	if ((n == 0) && hooks->readFails(hooks->owner))
		return -1;
	return n;
}

static int layer_write(void* userContext, const void* data, int bytes)
{
	const LtRingLayerHooks* hooks = hooks_of(userContext);
	if (bytes < 0)
		return -1;
	return lt_post_copy(hooks->id, hooks->kind, data, (size_t)bytes) ? bytes : -1;
}

static BOOL layer_wait(void* userContext, BOOL waitWrite, DWORD timeout)
{
	const LtRingLayerHooks* hooks = hooks_of(userContext);
	if (waitWrite)
		return TRUE; /* JS queues every message: writing never blocks */
	if (hooks->waitLimit)
		timeout = hooks->waitLimit(hooks->owner, timeout);
	return WaitForSingleObject(lt_ring_event(hooks->ring), timeout) == WAIT_OBJECT_0;
}

static HANDLE layer_get_event(void* userContext)
{
	return lt_ring_event(hooks_of(userContext)->ring);
}

/* The ring belongs to the owner, not to the layer: closing frees nothing. */
static BOOL layer_close(void* userContext)
{
	const LtRingLayerHooks* hooks = hooks_of(userContext);
	if (hooks->closed)
		hooks->closed(hooks->owner);
	return TRUE;
}

rdpTransportLayer* lt_ring_layer_new(rdpTransport* transport, const LtRingLayerHooks* hooks)
{
	rdpTransportLayer* layer = transport_layer_new(transport, sizeof(LtRingLayerHooks));
	if (!layer)
		return NULL;
	*(LtRingLayerHooks*)layer->userContext = *hooks;
	layer->Read = layer_read;
	layer->Write = layer_write;
	layer->Wait = layer_wait;
	layer->GetEvent = layer_get_event;
	layer->Close = layer_close;
	return layer;
}

BOOL lt_post_copy(intptr_t id, int kind, const BYTE* data, size_t length)
{
	if ((length == 0) || (length > INT32_MAX))
		return length == 0;
	BYTE* copy = malloc(length);
	if (!copy)
		return FALSE;
	memcpy(copy, data, length);
	lt_post_event(id, kind, (intptr_t)copy, (intptr_t)length, 0, 0);
	return TRUE;
}

int lt_post_pdu(rdpContext* context, intptr_t id, int kind, wStream* s)
{
	const size_t length = Stream_GetPosition(s);
	if (length > INT32_MAX)
		return -1;
	if (!lt_post_copy(id, kind, Stream_Buffer(s), length))
	{
		freerdp_set_last_error_if_not(context, FREERDP_ERROR_CONNECT_TRANSPORT_FAILED);
		return -1;
	}
	return (int)length;
}

BOOL lt_transport_io_of(rdpContext* context, rdpTransportIo* io)
{
	const rdpTransportIo* current = freerdp_get_io_callbacks(context);
	if (!current)
		return FALSE;
	*io = *current;
	return TRUE;
}
