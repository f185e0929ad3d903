/* Coalescing of a frame's invalid rectangles into few, larger ones, so the
 * renderer issues few texture uploads. Pure: rectangles in, rectangles out. */
#ifndef LANTERNA_DIRTY_RECTS_H
#define LANTERNA_DIRTY_RECTS_H

#include <stddef.h>
#include <stdint.h>

typedef struct
{
	int32_t x;
	int32_t y;
	int32_t w;
	int32_t h;
} LtRect;

/* Past this many rectangles one bounding box is cheaper to upload than the list. */
#define LT_MAX_RECTS 128

/* Clips rects[0..count) to width×height, merges touching runs, and rewrites
 * them in place. Returns the new count (0 when nothing visible changed). */
size_t lt_coalesce_rects(LtRect* rects, size_t count, int32_t width, int32_t height);

#endif
