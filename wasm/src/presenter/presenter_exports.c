/* The C entry points wasm/js/lanternaPresenter.js calls (on the JS thread that
 * owns the module). A presenter is known to JS by its context's address. */
#include <stdlib.h>
#include <string.h>

#include <emscripten.h>

#include "audio_output.h"
#include "presenter.h"
#include "presenter_events.h"

/* Above this a picture is not a picture of a screen (8192×8192 BGRX). */
#define LP_MAX_FRAME_BYTES (256u * 1024u * 1024u)

static LpContext* from_handle(intptr_t handle)
{
	return (LpContext*)handle;
}

EMSCRIPTEN_KEEPALIVE intptr_t lp_presenter_new(int width, int height)
{
	if ((width <= 0) || (height <= 0))
		return 0;
	LpContext* lp = lp_presenter_create((UINT32)width, (UINT32)height);
	return lp ? lp->id : 0;
}

EMSCRIPTEN_KEEPALIVE int lp_presenter_set(intptr_t handle, const char* name, const char* value)
{
	return freerdp_settings_set_value_for_name(from_handle(handle)->context.settings, name, value);
}

/* connectTimeoutMs: from here to the client's activation (<= 0: 20 s). */
EMSCRIPTEN_KEEPALIVE int lp_presenter_start_thread(intptr_t handle, int connectTimeoutMs)
{
	LpContext* lp = from_handle(handle);
	if (connectTimeoutMs > 0)
		lp->connectTimeoutMs = (UINT32)connectTimeoutMs;
	return lp_presenter_start(lp);
}

/* Bytes from the gateway: 1 taken, 0 no room now (retry), -1 the input is closed. */
EMSCRIPTEN_KEEPALIVE int lp_presenter_push(intptr_t handle, const BYTE* data, int length)
{
	LpContext* lp = from_handle(handle);
	if (length <= 0)
		return 1;
	if (lt_ring_closed(lp->ring))
		return -1;
	return lt_ring_push(lp->ring, data, (size_t)length) ? 1 : 0;
}

EMSCRIPTEN_KEEPALIVE void lp_presenter_close_input(intptr_t handle)
{
	lt_ring_close(from_handle(handle)->ring);
}

/* Queues data (malloc'd by JS, taken over here, freed on every path) as a
 * picture of the rectangle at (x, y); returns 1 when queued. Refused (0): a
 * picture the caller found bad (valid FALSE), a rectangle not inside the
 * desktop, more than LP_MAX_FRAME_BYTES, or no memory. */
static int queue_picture(LpContext* lp, BOOL valid, UINT32 codec, int x, int y, int width,
                         int height, UINT32 stride, BYTE* data, size_t length)
{
	if (!valid || (x < 0) || (y < 0) || (width <= 0) || (height <= 0) ||
	    ((UINT32)x + (UINT32)width > lp->width) || ((UINT32)y + (UINT32)height > lp->height) ||
	    (length > LP_MAX_FRAME_BYTES))
	{
		free(data);
		return 0;
	}
	LpFrame* frame = calloc(1, sizeof(LpFrame));
	if (!frame)
	{
		free(data);
		return 0;
	}
	frame->codec = codec;
	frame->x = (UINT32)x;
	frame->y = (UINT32)y;
	frame->width = (UINT32)width;
	frame->height = (UINT32)height;
	frame->stride = stride;
	frame->pixels = data;
	frame->length = length;
	lp_presenter_queue_frame(lp, frame);
	return 1;
}

/* A picture in B,G,R,X bytes; pixels is malloc'd by JS and taken over here
 * (freed on every path). Returns 1 when queued. */
EMSCRIPTEN_KEEPALIVE int lp_presenter_send_frame(intptr_t handle, int codec, int x, int y,
                                                 int width, int height, int stride, BYTE* pixels)
{
	const BOOL valid = (stride >= width * 4) &&
	                   ((codec == LP_CODEC_UNCOMPRESSED) || (codec == LP_CODEC_PLANAR));
	return queue_picture(from_handle(handle), valid, (UINT32)codec, x, y, width, height,
	                     (UINT32)stride, pixels, (size_t)stride * (size_t)height);
}

/* An H.264 access unit (Annex-B) for the rectangle at (x, y), sent as GFX
 * AVC420; data is malloc'd by JS and taken over here. Returns 1 when queued.
 * Whether the client takes AVC420 is checked when it is sent (frame dropped,
 * LP_DROP_AVC_NOT_ALLOWED). */
EMSCRIPTEN_KEEPALIVE int lp_presenter_send_avc420(intptr_t handle, int x, int y, int width,
                                                  int height, BYTE* data, int length)
{
	return queue_picture(from_handle(handle), length > 0, LP_CODEC_AVC420, x, y, width, height,
	                     0, data, (size_t)length);
}

/* Sound, before start: mode 1 static rdpsnd, 2 dynamic; the PCM the page will
 * send; opus 1 when it can send Opus packets instead (offered first). */
EMSCRIPTEN_KEEPALIVE int lp_presenter_configure_audio(intptr_t handle, int mode, int sampleRate,
                                                      int channels, int opus)
{
	LpContext* lp = from_handle(handle);
	if ((sampleRate <= 0) || (channels <= 0))
		return 0;
	return lp_audio_configure(lp, mode, (UINT32)sampleRate, (UINT32)channels, opus == 1);
}

/* One Opus packet (malloc'd by JS, taken over: freed on every path) of `frames`
 * at 48 kHz, once the client chose Opus. 0 when queued, else enum lp_audio_refusal. */
EMSCRIPTEN_KEEPALIVE int lp_presenter_send_audio_packet(intptr_t handle, BYTE* packet, int length,
                                                        int frames, double timestampMs)
{
	LpContext* lp = from_handle(handle);
	if ((length <= 0) || (frames <= 0) || (timestampMs < 0))
	{
		free(packet);
		return lp->audio ? LP_AUDIO_REFUSED_BAD : LP_AUDIO_REFUSED_OFF;
	}
	return lp_audio_queue_packet(lp, packet, (size_t)length, (size_t)frames,
	                             (UINT32)((UINT64)timestampMs & 0xFFFFFFFFu));
}

/* Interleaved int16 PCM (malloc'd by JS, taken over here: freed on every path)
 * of frames × channels samples, at the configured rate and channel count.
 * Returns 0 when queued, else enum lp_audio_refusal. */
EMSCRIPTEN_KEEPALIVE int lp_presenter_send_audio(intptr_t handle, INT16* samples, int frames,
                                                 int sampleRate, int channels, double timestampMs)
{
	LpContext* lp = from_handle(handle);
	if (!lp->audio)
	{
		free(samples);
		return LP_AUDIO_REFUSED_OFF;
	}
	if ((frames <= 0) || (frames > 192000) || (timestampMs < 0) ||
	    !lp_audio_matches(lp, (UINT32)sampleRate, (UINT32)channels))
	{
		free(samples);
		return LP_AUDIO_REFUSED_BAD;
	}
	return lp_audio_queue(lp, samples, (size_t)frames, (UINT32)((UINT64)timestampMs & 0xFFFFFFFFu));
}

EMSCRIPTEN_KEEPALIVE void lp_presenter_stop_thread(intptr_t handle)
{
	lp_presenter_stop(from_handle(handle));
}

/* Joins the peer thread (it has posted LP_EVENT_ENDED) and frees everything. */
EMSCRIPTEN_KEEPALIVE void lp_presenter_free(intptr_t handle)
{
	lp_presenter_destroy(from_handle(handle));
}

EMSCRIPTEN_KEEPALIVE const BYTE* lp_presenter_public_key(intptr_t handle)
{
	return from_handle(handle)->publicKey;
}

EMSCRIPTEN_KEEPALIVE int lp_presenter_public_key_length(intptr_t handle)
{
	return (int)from_handle(handle)->publicKeyLength;
}
