/* What a renderer holds after uploading only the dirty rectangles of each
 * frame (web/src/render does exactly that), kept as a copy so that the final
 * picture can be hashed after the session, and its GDI surface, are gone. The
 * same copy and hash are in ../frameShadow.mjs for the wasm side: equal hashes
 * mean both builds showed the same pixels. */
#ifndef LANTERNA_FRAME_SHADOW_H
#define LANTERNA_FRAME_SHADOW_H

#include <stddef.h>
#include <stdint.h>

#include <winpr/wtypes.h>

typedef struct
{
	BYTE* pixels; /* width * 4 bytes per row, no padding */
	UINT32 width;
	UINT32 height;
} LtFrameShadow;

/* Copies the rectangles (x, y, w, h int32 quadruples) of a 32 bpp surface;
 * a new size starts a new, black shadow. FALSE when out of memory. */
BOOL lt_shadow_apply(LtFrameShadow* shadow, const BYTE* surface, UINT32 width, UINT32 height,
                     UINT32 stride, const int32_t* rects, size_t count);

/* 32-bit FNV-1a over all bytes, row by row. */
UINT32 lt_shadow_hash(const LtFrameShadow* shadow);

void lt_shadow_free(LtFrameShadow* shadow);

#endif
