/* The native twin's stand-in for ../../src/js_events.c: the glue's events go
 * into a queue that the driver's main thread drains in order, as
 * lanternaRdp.js receives them on the JS thread (MAIN_THREAD_ASYNC_EM_ASM). The
 * posting thread never waits, as in wasm. */
#ifndef LANTERNA_NATIVE_EVENTS_H
#define LANTERNA_NATIVE_EVENTS_H

#include <stdint.h>

#include <winpr/wtypes.h>

typedef struct
{
	intptr_t session;
	int kind; /* enum lt_event_kind */
	intptr_t a;
	intptr_t b;
	int c;
	int d;
} LtNativeEvent;

/* Takes the oldest event, waiting up to timeoutMs for one; FALSE on timeout. */
BOOL lt_native_next_event(LtNativeEvent* event, UINT32 timeoutMs);

#endif
