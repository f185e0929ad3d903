#include "js_events.h"

#include <emscripten.h>

void lt_post_event(intptr_t session, int kind, intptr_t a, intptr_t b, int c, int d)
{
	/* async: the posting thread (usually the RDP thread) never waits for JS */
	MAIN_THREAD_ASYNC_EM_ASM(
	    {
		    if (Module["lanternaEvent"])
			    Module["lanternaEvent"]($0, $1, $2, $3, $4, $5);
	    },
	    session, kind, a, b, c, d);
}
