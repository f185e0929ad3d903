/* FreeRDP's H.264 backend in wasm (patch 0010's external decoder): each access
 * unit goes to the JS thread, whose WebCodecs VideoDecoder (wasm/js/h264Decoders.js)
 * decodes it and copies the picture into the context's I420 planes, while the
 * decoding thread (the RDP or GFX thread) sleeps on a futex. VideoDecoder calls
 * back asynchronously on the JS thread's event loop, which this thread cannot
 * run while FreeRDP waits for the picture, hence the hand-over. */
#include "video_decoder.h"

#include <stdlib.h>
#include <string.h>

#include <emscripten/threading.h>
#include <freerdp/client/rdpgfx.h>
#include <freerdp/codec/h264.h>
#include <freerdp/gdi/gdi.h>
#include <winpr/sysinfo.h>

#include "h264_webcodecs.h"
#include "js_events.h"

/* A decode takes ~5 ms at 1080p; only a wedged JS thread takes this long. */
#define LT_H264_DEADLINE_MS 10000u
#define LT_H264_WAIT_SLICE_MS 100.0

typedef struct
{
	LtContext* lt;
	int32_t* record; /* JS frees it after LT_EVENT_H264_CLOSE: it may still look at it */
	uint32_t sequence;
} LtH264Decoder;

/* FreeRDP creates H.264 contexts deep inside GFX surface commands, with no way
 * back to the session; the wrapped SurfaceCommand says which session runs. */
static _Thread_local LtContext* surface_command_session = NULL;

static BOOL decoder_init(H264_CONTEXT* h264, void** state)
{
	LtContext* lt = surface_command_session;
	if (!lt)
		return FALSE;
	LtH264Decoder* decoder = calloc(1, sizeof(LtH264Decoder));
	int32_t* record = calloc(LT_H264_RECORD_WORDS, sizeof(int32_t));
	if (!decoder || !record)
	{
		free(decoder);
		free(record);
		return FALSE;
	}
	decoder->lt = lt;
	decoder->record = record;
	*state = decoder;
	return TRUE;
}

static void decoder_uninit(H264_CONTEXT* h264, void* state)
{
	LtH264Decoder* decoder = state;
	if (!decoder)
		return;
	lt_post_event(decoder->lt->id, LT_EVENT_H264_CLOSE, (intptr_t)decoder->record, 0, 0, 0);
	free(decoder);
}

static void fail_session(LtContext* lt, int reason)
{
	int none = 0;
	if (atomic_compare_exchange_strong(&lt->videoFailure, &none, reason))
		(void)freerdp_abort_connect_context(&lt->common.context);
}

static INT32 decoder_decompress(H264_CONTEXT* h264, void* state, const BYTE* data, UINT32 size)
{
	LtH264Decoder* decoder = state;
	LtContext* lt = decoder->lt;
	if (atomic_load(&lt->videoFailure) || atomic_load(&lt->stopRequested))
		return -1;

	BYTE* planes[3] = { 0 };
	UINT32 strides[3] = { 0 };
	UINT32 width = 0;
	UINT32 height = 0;
	if (!h264_context_get_yuv420_planes(h264, planes, strides, &width, &height))
		return -1;

	int32_t* record = decoder->record;
	record[LT_H264_STATUS] = LT_H264_SKIPPED;
	record[LT_H264_DATA] = (int32_t)(intptr_t)data;
	record[LT_H264_SIZE] = (int32_t)size;
	for (size_t i = 0; i < 3; i++)
	{
		record[LT_H264_PLANES + i] = (int32_t)(intptr_t)planes[i];
		record[LT_H264_STRIDES + i] = (int32_t)strides[i];
	}
	record[LT_H264_WIDTH] = (int32_t)width;
	record[LT_H264_HEIGHT] = (int32_t)height;
	/* a new sequence number: a late answer to an abandoned request cannot claim this one */
	const int32_t ticket = (int32_t)((++decoder->sequence & 0x0fffffffu) << 4);
	__atomic_store_n(&record[LT_H264_TICKET], ticket | LT_H264_PENDING, __ATOMIC_SEQ_CST);
	lt_post_event(lt->id, LT_EVENT_H264_DECODE, (intptr_t)record, 0, 0, 0);

	const UINT64 deadline = GetTickCount64() + LT_H264_DEADLINE_MS;
	for (;;)
	{
		const int32_t now = __atomic_load_n(&record[LT_H264_TICKET], __ATOMIC_SEQ_CST);
		if (now == (ticket | LT_H264_DONE))
			break;
		if ((now == (ticket | LT_H264_PENDING)) &&
		    (atomic_load(&lt->stopRequested) || (GetTickCount64() >= deadline)))
		{
			int32_t expected = ticket | LT_H264_PENDING;
			if (__atomic_compare_exchange_n(&record[LT_H264_TICKET], &expected,
			                                ticket | LT_H264_ABANDONED, FALSE, __ATOMIC_SEQ_CST,
			                                __ATOMIC_SEQ_CST))
			{
				if (!atomic_load(&lt->stopRequested))
					fail_session(lt, LT_REASON_VIDEO_FAILED);
				return -1;
			}
			continue;
		}
		/* once JS has claimed the record it finishes (a copy already under way) */
		(void)emscripten_futex_wait(&record[LT_H264_TICKET], (uint32_t)now, LT_H264_WAIT_SLICE_MS);
	}

	const int32_t status = record[LT_H264_STATUS];
	switch (status)
	{
		case LT_H264_PICTURE:
			return 1;
		case LT_H264_NO_PICTURE:
			return 0;
		case LT_H264_UNSUPPORTED:
			fail_session(lt, LT_REASON_VIDEO_UNSUPPORTED);
			return -1;
		case LT_H264_FAILED:
			fail_session(lt, LT_REASON_VIDEO_FAILED);
			return -1;
		default:
			return -1;
	}
}

static const H264_EXTERNAL_DECODER webcodecs_decoder = { "webcodecs", decoder_init,
	                                                     decoder_uninit, decoder_decompress };

static UINT surface_command(RdpgfxClientContext* gfx, const RDPGFX_SURFACE_COMMAND* cmd)
{
	/* GDI keeps itself in the channel's custom pointer, and its context is our session */
	const rdpGdi* gdi = (const rdpGdi*)gfx->custom;
	LtContext* lt = (LtContext*)gdi->context;
	LtContext* outer = surface_command_session;
	surface_command_session = lt;
	const UINT rc = lt->gfxSurfaceCommand(gfx, cmd);
	surface_command_session = outer;
	return rc;
}

/* after client-common's handler, which gives the channel GDI's SurfaceCommand */
static void on_channel_connected(void* context, const ChannelConnectedEventArgs* e)
{
	LtContext* lt = (LtContext*)context;
	if (strcmp(e->name, RDPGFX_DVC_CHANNEL_NAME) != 0)
		return;
	RdpgfxClientContext* gfx = (RdpgfxClientContext*)e->pInterface;
	if (!gfx->SurfaceCommand || (gfx->SurfaceCommand == surface_command))
		return;
	lt->gfxSurfaceCommand = gfx->SurfaceCommand;
	gfx->SurfaceCommand = surface_command;
}

BOOL lt_video_decoder_install(LtContext* lt)
{
	h264_set_external_decoder(&webcodecs_decoder);
	return PubSub_SubscribeChannelConnected(lt->common.context.pubSub, on_channel_connected) >= 0;
}

void lt_video_decoder_uninstall(LtContext* lt)
{
	(void)PubSub_UnsubscribeChannelConnected(lt->common.context.pubSub, on_channel_connected);
}
