#include "dirty_rects.h"

#include <stdlib.h>

/* qsort's order of two rectangles by three keys, the first that differs deciding */
static int by_keys(int32_t a0, int32_t b0, int32_t a1, int32_t b1, int32_t a2, int32_t b2)
{
	if (a0 != b0)
		return (a0 < b0) ? -1 : 1;
	if (a1 != b1)
		return (a1 < b1) ? -1 : 1;
	return (a2 < b2) ? -1 : (a2 > b2);
}

static int by_row(const void* pa, const void* pb)
{
	const LtRect* a = pa;
	const LtRect* b = pb;
	return by_keys(a->y, b->y, a->h, b->h, a->x, b->x);
}

static int by_column(const void* pa, const void* pb)
{
	const LtRect* a = pa;
	const LtRect* b = pb;
	return by_keys(a->x, b->x, a->w, b->w, a->y, b->y);
}

static int32_t max32(int32_t a, int32_t b)
{
	return (a > b) ? a : b;
}

static int32_t min32(int32_t a, int32_t b)
{
	return (a < b) ? a : b;
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
	n = m + 1;

	/* strips stacked with the same left edge and width become one block */
	qsort(rects, n, sizeof(LtRect), by_column);
	m = 0;
	for (size_t i = 1; i < n; i++)
	{
		LtRect* last = &rects[m];
		if ((rects[i].x == last->x) && (rects[i].w == last->w) && (rects[i].y <= last->y + last->h))
			last->h = max32(last->y + last->h, rects[i].y + rects[i].h) - last->y;
		else
			rects[++m] = rects[i];
	}
	n = m + 1;

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
