/* The C entry points wasm/js/lanternaRdp.js calls (all on the JS thread that
 * owns the module). Sessions are known to JS by an integer handle (the context's address). */
#include <stdlib.h>
#include <string.h>

#ifdef __EMSCRIPTEN__
#include <emscripten.h>
#else
/* the native twin (bench/native/replay_native.c) calls these directly */
#define EMSCRIPTEN_KEEPALIVE
#endif
#include <freerdp/assistance.h>
#include <freerdp/settings.h>

#include "audio_output.h"
#include "display_control.h"
#include "exports.h"
#include "mouse_input.h"
#include "session.h"
#include "touch_input.h"

static LtContext* from_handle(intptr_t handle)
{
	return (LtContext*)handle;
}

EMSCRIPTEN_KEEPALIVE intptr_t lt_session_new(void)
{
	LtContext* lt = lt_session_create();
	return lt ? lt->id : 0;
}

/* Any FreeRDP setting by its name (FreeRDP_Username, FreeRDP_DesktopWidth, …), value as text. */
EMSCRIPTEN_KEEPALIVE int lt_session_set(intptr_t handle, const char* name, const char* value)
{
	return freerdp_settings_set_value_for_name(from_handle(handle)->common.context.settings, name,
	                                           value);
}

/* A Remote Assistance invitation (.msrcIncident content) and its password. */
EMSCRIPTEN_KEEPALIVE int lt_session_set_assistance(intptr_t handle, const char* invitation,
                                                   const char* password)
{
	rdpAssistanceFile* file = freerdp_assistance_file_new();
	if (!file)
		return 0;
	const int parsed =
	    freerdp_assistance_parse_file_buffer(file, invitation, strlen(invitation) + 1, password);
	const BOOL ok = (parsed >= 0) && freerdp_assistance_populate_settings_from_assistance_file(
	                                     file, from_handle(handle)->common.context.settings);
	freerdp_assistance_file_free(file);
	return ok;
}

EMSCRIPTEN_KEEPALIVE void lt_session_configure(intptr_t handle, int pixelLayout, int waitFrameAck,
                                               int frameAckTimeoutMs, int connectTimeoutMs)
{
	LtContext* lt = from_handle(handle);
	lt->pixelLayout = (pixelLayout == LT_PIXELS_RGBX) ? LT_PIXELS_RGBX : LT_PIXELS_BGRX;
	lt->waitFrameAck = waitFrameAck != 0;
	lt->frameAckTimeoutMs = (frameAckTimeoutMs > 0) ? (UINT32)frameAckTimeoutMs : 1000;
	lt->connectTimeoutMs = (connectTimeoutMs > 0) ? (UINT32)connectTimeoutMs : 20000;
}

/* Sound (audio_output.h): joins rdpsnd with the page's device; before start.
 * ackTimeoutMs: how long a wave waits for lt_session_audio_played (<= 0: 500 ms);
 * opus: 1 when the page decodes Opus (the device then claims it). */
EMSCRIPTEN_KEEPALIVE int lt_session_configure_audio(intptr_t handle, int ackTimeoutMs, int opus)
{
	LtContext* lt = from_handle(handle);
	lt->audioAckTimeoutMs = (ackTimeoutMs > 0) ? (UINT32)ackTimeoutMs : 500;
	lt->audioOpus = (opus == 1);
	lt->audio = lt_audio_output_settings(lt->common.context.settings);
	return lt->audio;
}

/* JS has handed wave seq on; delayMs until it is heard (0 until the page's worklet says more). */
EMSCRIPTEN_KEEPALIVE void lt_session_audio_played(intptr_t handle, int seq, int delayMs)
{
	lt_audio_output_played(from_handle(handle), (UINT32)seq, (delayMs > 0) ? (UINT32)delayMs : 0);
}

EMSCRIPTEN_KEEPALIVE int lt_session_late_audio_acks(intptr_t handle)
{
	return (int)atomic_load(&from_handle(handle)->lateAudioAcks);
}

EMSCRIPTEN_KEEPALIVE int lt_session_dropped_audio(intptr_t handle)
{
	return (int)atomic_load(&from_handle(handle)->droppedAudio);
}

EMSCRIPTEN_KEEPALIVE int lt_session_start_thread(intptr_t handle)
{
	return lt_session_start(from_handle(handle));
}

EMSCRIPTEN_KEEPALIVE int lt_session_set_public_key(intptr_t handle, const BYTE* key, int length)
{
	return (length > 0) && lt_session_store_public_key(from_handle(handle), key, (size_t)length);
}

/* 1: taken; 0: no room now (retry later); -1: the input is closed. */
EMSCRIPTEN_KEEPALIVE int lt_session_push(intptr_t handle, const BYTE* data, int length)
{
	LtContext* lt = from_handle(handle);
	if (length < 0)
		return -1;
	if (lt_ring_push(lt->ring, data, (size_t)length))
		return 1;
	return (lt_ring_capacity(lt->ring) >= (size_t)length) ? 0 : -1;
}

EMSCRIPTEN_KEEPALIVE int lt_session_input_space(intptr_t handle)
{
	LtContext* lt = from_handle(handle);
	return (int)(lt_ring_capacity(lt->ring) - lt_ring_used(lt->ring));
}

/* The gateway socket ended: FreeRDP reads what is left, then sees the end. */
EMSCRIPTEN_KEEPALIVE void lt_session_close_input(intptr_t handle)
{
	lt_ring_close(from_handle(handle)->ring);
}

EMSCRIPTEN_KEEPALIVE void lt_session_frame_done(intptr_t handle)
{
	(void)SetEvent(from_handle(handle)->frameAck);
}

EMSCRIPTEN_KEEPALIVE int lt_session_late_frame_acks(intptr_t handle)
{
	return (int)atomic_load(&from_handle(handle)->lateFrameAcks);
}

EMSCRIPTEN_KEEPALIVE void lt_session_stop_thread(intptr_t handle)
{
	lt_session_stop(from_handle(handle));
}

/* Display Control: asks the server for a desktop of width×height (any thread;
 * sent by the RDP thread within its 100 ms wait). 1: the server has the channel
 * (the wish is sent), 0: it has not (yet): the page letterboxes. */
EMSCRIPTEN_KEEPALIVE int lt_session_request_size(intptr_t handle, int width, int height,
                                                 int desktopScale, int deviceScale)
{
	LtContext* lt = from_handle(handle);
	if ((width <= 0) || (height <= 0) || (desktopScale < 0) || (deviceScale < 0))
		return 0;
	if (!lt_display_control_ready(lt))
		return 0;
	lt_display_control_request(lt, (UINT32)width, (UINT32)height, (UINT32)desktopScale,
	                           (UINT32)deviceScale);
	return 1;
}

/* Touch or mouse from the display page (mouse_input.h): FreeRDP's PTR_FLAGS_*
 * at desktop pixel (x, y), sent by the RDP thread at once. 1: queued; 0: not
 * connected, out of range, or the queue is full. */
EMSCRIPTEN_KEEPALIVE int lt_session_mouse(intptr_t handle, int flags, int x, int y)
{
	if ((flags < 0) || (flags > 0xFFFF) || (x < 0) || (x > 0xFFFF) || (y < 0) || (y > 0xFFFF))
		return 0;
	return lt_mouse_input_queue(from_handle(handle), (UINT16)flags, (UINT16)x, (UINT16)y) ? 1 : 0;
}

/* Multi-touch through RDPEI (touch_input.h): one change of contact id (the
 * page's pointer id), kind enum lt_touch_kind, at desktop pixel (x, y), with
 * pressure 0–1024 (negative: none). 1: queued; 0: the server has not opened
 * the channel, not connected, out of range, or the queue is full. */
EMSCRIPTEN_KEEPALIVE int lt_session_touch(intptr_t handle, int kind, int id, int x, int y,
                                          int pressure)
{
	if ((x < 0) || (x > 0xFFFF) || (y < 0) || (y > 0xFFFF))
		return 0;
	return lt_touch_input_queue(from_handle(handle), kind, id, x, y, pressure) ? 1 : 0;
}

/* 1 while the server has RDPEI open (LT_EVENT_TOUCH says when it changes). */
EMSCRIPTEN_KEEPALIVE int lt_session_touch_offered(intptr_t handle)
{
	return lt_touch_input_offered(from_handle(handle));
}

/* Only after LT_EVENT_DISCONNECTED (or when never started): joins the thread. */
EMSCRIPTEN_KEEPALIVE void lt_session_free(intptr_t handle)
{
	lt_session_destroy(from_handle(handle));
}
