#include "frame_shadow.h"

#include <stdlib.h>
#include <string.h>

static int32_t clamp(int32_t v, int32_t lo, int32_t hi)
{
	return (v < lo) ? lo : ((v > hi) ? hi : v);
}

BOOL lt_shadow_apply(LtFrameShadow* shadow, const BYTE* surface, UINT32 width, UINT32 height,
                     UINT32 stride, const int32_t* rects, size_t count)
{
	if ((shadow->width != width) || (shadow->height != height))
	{
		lt_shadow_free(shadow);
		shadow->pixels = calloc((size_t)width * height, 4);
		if (!shadow->pixels)
			return FALSE;
		shadow->width = width;
		shadow->height = height;
	}
	for (size_t i = 0; i < count; i++)
	{
		const int32_t* r = &rects[4 * i];
		const int32_t x0 = clamp(r[0], 0, (int32_t)width);
		const int32_t y0 = clamp(r[1], 0, (int32_t)height);
		const int32_t x1 = clamp(r[0] + r[2], x0, (int32_t)width);
		const int32_t y1 = clamp(r[1] + r[3], y0, (int32_t)height);
		for (int32_t y = y0; y < y1; y++)
			memcpy(shadow->pixels + ((size_t)y * width + (size_t)x0) * 4,
			       surface + (size_t)y * stride + (size_t)x0 * 4, (size_t)(x1 - x0) * 4);
	}
	return TRUE;
}

UINT32 lt_shadow_hash(const LtFrameShadow* shadow)
{
	UINT32 hash = 0x811c9dc5u;
	const size_t size = (size_t)shadow->width * shadow->height * 4;
	for (size_t i = 0; i < size; i++)
		hash = (hash ^ shadow->pixels[i]) * 0x01000193u;
	return hash;
}

void lt_shadow_free(LtFrameShadow* shadow)
{
	free(shadow->pixels);
	memset(shadow, 0, sizeof(*shadow));
}
