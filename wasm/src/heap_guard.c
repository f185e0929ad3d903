#include "heap_guard.h"

#include <malloc.h>
#include <stdatomic.h>
#include <unistd.h>

#ifdef __EMSCRIPTEN__
#include <emscripten.h>
#include <emscripten/heap.h>
#else
#define EMSCRIPTEN_KEEPALIVE
#endif

static atomic_uint refused;

/* Called by heap_guard.js's emscripten_resize_heap, on whichever thread's sbrk failed. */
EMSCRIPTEN_KEEPALIVE void lt_heap_refused(uint32_t requested)
{
	(void)requested;
	atomic_fetch_add(&refused, 1);
}

unsigned lt_heap_failures(void)
{
	return atomic_load(&refused);
}

EMSCRIPTEN_KEEPALIVE void lt_heap_stats(uint32_t out[5])
{
	const struct mallinfo info = mallinfo();
#ifdef __EMSCRIPTEN__
	out[0] = (uint32_t)emscripten_get_heap_size();
#else
	out[0] = 0;
#endif
	out[1] = (uint32_t)(uintptr_t)sbrk(0);
	out[2] = (uint32_t)info.arena;
	out[3] = (uint32_t)info.uordblks;
	out[4] = lt_heap_failures();
}
