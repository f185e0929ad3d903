/* Test build only: the pure rectangle coalescing (src/dirty_rects.c) called
 * straight from JS, so the tests can feed it rectangles without a session. */
#include <stdint.h>

#include <emscripten.h>

#include "dirty_rects.h"

/* Rewrites rects (x, y, w, h as int32) in place; returns how many are left. */
EMSCRIPTEN_KEEPALIVE int lt_coalesce(int32_t* rects, int count, int width, int height)
{
	return (int)lt_coalesce_rects((LtRect*)rects, (size_t)count, width, height);
}
