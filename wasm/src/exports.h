/* The lt_* entry points of exports.c: wasm/js/lanternaRdp.js calls them by
 * name; the native twin (../bench/native/replay_native.c) through this header. */
#ifndef LANTERNA_EXPORTS_H
#define LANTERNA_EXPORTS_H

#include <stdint.h>

#include <winpr/wtypes.h>

intptr_t lt_session_new(void);
int lt_session_set(intptr_t handle, const char* name, const char* value);
int lt_session_set_assistance(intptr_t handle, const char* invitation, const char* password);
void lt_session_configure(intptr_t handle, int pixelLayout, int waitFrameAck,
                          int frameAckTimeoutMs, int connectTimeoutMs);
int lt_session_configure_audio(intptr_t handle, int ackTimeoutMs, int opus);
void lt_session_audio_played(intptr_t handle, int seq, int delayMs);
int lt_session_late_audio_acks(intptr_t handle);
int lt_session_dropped_audio(intptr_t handle);
int lt_session_start_thread(intptr_t handle);
int lt_session_set_public_key(intptr_t handle, const BYTE* key, int length);
int lt_session_push(intptr_t handle, const BYTE* data, int length);
int lt_session_input_space(intptr_t handle);
void lt_session_close_input(intptr_t handle);
void lt_session_frame_done(intptr_t handle);
int lt_session_late_frame_acks(intptr_t handle);
void lt_session_stop_thread(intptr_t handle);
int lt_session_mouse(intptr_t handle, int flags, int x, int y);
void lt_session_free(intptr_t handle);

#endif
