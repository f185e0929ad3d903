#include "dirty_rects.h"

#include <stdlib.h>

/* Rows first, then same height, then left to right: tiles that can join are neighbours. */
static int by_row(const void* pa, const void* pb)
{
	const LtRect* a = pa;
	const LtRect* b = pb;
	if (a->y != b->y)
		return (a->y < b->y) ? -1 : 1;
	if (a->h != b->h)
		return (a->h < b->h) ? -1 : 1;
	return (a->x < b->x) ? -1 : (a->x > b->x);
}

static int32_t max32(int32_t a, int32_t b)
{
	return (a > b) ? a : b;
}

static int32_t min32(int32_t a, int32_t b)
{
	return (a < b) ? a : b;
}

/* Tiles on one row with the same height that touch or overlap become one strip. */
static size_t join_rows(LtRect* rects, size_t n)
{
	qsort(rects, n, sizeof(LtRect), by_row);
	size_t m = 0;
	for (size_t i = 1; i < n; i++)
	{
		LtRect* last = &rects[m];
		if ((rects[i].y == last->y) && (rects[i].h == last->h) && (rects[i].x <= last->x + last->w))
			last->w = max32(last->x + last->w, rects[i].x + rects[i].w) - last->x;
		else
			rects[++m] = rects[i];
	}
	return m + 1;
}

/* Mirrors rectangles on the diagonal (x with y, w with h): columns become rows. */
static void transpose(LtRect* rects, size_t n)
{
	for (size_t i = 0; i < n; i++)
		rects[i] = (LtRect){ rects[i].y, rects[i].x, rects[i].h, rects[i].w };
}

size_t lt_coalesce_rects(LtRect* rects, size_t count, int32_t width, int32_t height)
{
	size_t n = 0;
	for (size_t i = 0; i < count; i++)
	{
		const int32_t x0 = max32(rects[i].x, 0);
		const int32_t y0 = max32(rects[i].y, 0);
		const int32_t x1 = min32(rects[i].x + rects[i].w, width);
		const int32_t y1 = min32(rects[i].y + rects[i].h, height);
		if ((x1 > x0) && (y1 > y0))
			rects[n++] = (LtRect){ x0, y0, x1 - x0, y1 - y0 };
	}
	if (n < 2)
		return n;

	/* tiles on one row with the same height become one strip */
	n = join_rows(rects, n);
	/* strips stacked with the same left edge and width become one block: the
	 * same join on the rectangles mirrored, so that columns are rows */
	transpose(rects, n);
	n = join_rows(rects, n);
	transpose(rects, n);

	if (n > LT_MAX_RECTS)
	{
		LtRect box = rects[0];
		for (size_t i = 1; i < n; i++)
		{
			const int32_t x1 = max32(box.x + box.w, rects[i].x + rects[i].w);
			const int32_t y1 = max32(box.y + box.h, rects[i].y + rects[i].h);
			box.x = min32(box.x, rects[i].x);
			box.y = min32(box.y, rects[i].y);
			box.w = x1 - box.x;
			box.h = y1 - box.y;
		}
		rects[0] = box;
		n = 1;
	}
	return n;
}
