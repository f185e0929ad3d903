/* GFX H.264 (AVC420, AVC444 v1/v2): which decoder turns FreeRDP's access units
 * into pictures. In wasm, h264_webcodecs.c hands them to the browser's WebCodecs
 * VideoDecoder on the JS thread; the native twin (../bench/native/) leaves them
 * to FreeRDP's own FFmpeg backend. FreeRDP keeps everything around the decoder. */
#ifndef LANTERNA_VIDEO_DECODER_H
#define LANTERNA_VIDEO_DECODER_H

#include "session.h"

/* Called before connect: makes the session's GFX surfaces decode H.264 with this
 * build's decoder. FALSE only when out of memory. */
BOOL lt_video_decoder_install(LtContext* lt);
void lt_video_decoder_uninstall(LtContext* lt);

#endif
