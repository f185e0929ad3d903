/* The native twin decodes H.264 with FreeRDP's own FFmpeg backend
 * (../freerdp-native.sh builds it with WITH_VIDEO_FFMPEG): the picture the
 * wasm build's WebCodecs path must match. Nothing to install. */
#include "video_decoder.h"

BOOL lt_video_decoder_install(LtContext* lt)
{
	(void)lt;
	return TRUE;
}

void lt_video_decoder_uninstall(LtContext* lt)
{
	(void)lt;
}
