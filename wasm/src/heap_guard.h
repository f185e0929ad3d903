/* The module's heap: how full it is, and whether an allocation has failed.
 *
 * The heap is fixed (CMakeLists.txt: a growing shared heap would detach every
 * JS view of it) and linked with -sABORTING_MALLOC=0, so a request past its
 * end makes malloc return NULL instead of aborting the whole module. FreeRDP
 * then fails the PDU it was handling, and the session would end with whatever
 * error that turned into (a channel error, 'server-ended'). heap_guard.js
 * reports every refused heap extension here, so a session that ends after one
 * says 'out-of-memory'. */
#ifndef LANTERNA_HEAP_GUARD_H
#define LANTERNA_HEAP_GUARD_H

#include <stdint.h>

/* How many heap extensions have been refused since the module started. */
unsigned lt_heap_failures(void);

/* out[0] heap size, out[1] the heap's top (sbrk: the high-water mark, dlmalloc
 * never gives memory back), out[2] bytes malloc has taken from it, out[3]
 * bytes in use now, out[4] refused extensions. */
void lt_heap_stats(uint32_t out[5]);

#endif
