/* Test build only (lanterna-rdp-test). A measurement hook for the tests: proves WinPR waits really sleep and wake
 * at once (see wasm/patches/0003). One waiter thread blocks on an event; when
 * a delay is given, a signaller thread sets it after the delay and times the
 * round trip (set → waiter wakes → waiter sets an answer → signaller wakes) on
 * its own clock, so no clocks of different threads are compared. */
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

#include <emscripten.h>
#include <winpr/synch.h>

#include "js_events.h"

/* The probe's outcome: a test-build event kind (js_events.h leaves 100 and up to the hooks). */
#define LT_TEST_EVENT_PROBE 100

typedef struct
{
	int delayMs;
	int timeoutMs;
	HANDLE ready;
	HANDLE wake;
	HANDLE answer;
	DWORD result;
	double waitedMs;
} LtProbe;

static void* probe_waiter(void* arg)
{
	LtProbe* p = arg;
	/* the delay starts only once this thread runs: a slow thread start must not look like an early wake */
	(void)SetEvent(p->ready);
	const double start = emscripten_get_now();
	p->result = WaitForSingleObject(p->wake, (DWORD)p->timeoutMs);
	p->waitedMs = emscripten_get_now() - start;
	(void)SetEvent(p->answer);
	return NULL;
}

static void* probe_main(void* arg)
{
	LtProbe* p = arg;
	pthread_t waiter;
	double roundTripMs = -1;
	if (pthread_create(&waiter, NULL, probe_waiter, p) != 0)
	{
		lt_post_event(0, LT_TEST_EVENT_PROBE, -1, 0, 0, 0);
		return NULL;
	}
	if (p->delayMs >= 0)
	{
		(void)WaitForSingleObject(p->ready, 5000);
		(void)usleep((useconds_t)p->delayMs * 1000u);
		const double set = emscripten_get_now();
		(void)SetEvent(p->wake);
		if (WaitForSingleObject(p->answer, 5000) == WAIT_OBJECT_0)
			roundTripMs = emscripten_get_now() - set;
	}
	pthread_join(waiter, NULL);
	/* microseconds, as ints: result, how long the waiter waited, the round trip */
	lt_post_event(0, LT_TEST_EVENT_PROBE, (int)p->result, (int)(p->waitedMs * 1000.0),
	              (int)(roundTripMs * 1000.0), 0);
	(void)CloseHandle(p->ready);
	(void)CloseHandle(p->wake);
	(void)CloseHandle(p->answer);
	free(p);
	return NULL;
}

/* Posts LT_TEST_EVENT_PROBE (session 0) with the outcome; delayMs < 0: never signal. */
EMSCRIPTEN_KEEPALIVE int lt_probe_wait(int delayMs, int timeoutMs)
{
	LtProbe* p = calloc(1, sizeof(*p));
	if (!p)
		return 0;
	p->delayMs = delayMs;
	p->timeoutMs = timeoutMs;
	p->ready = CreateEventA(NULL, TRUE, FALSE, NULL);
	p->wake = CreateEventA(NULL, TRUE, FALSE, NULL);
	p->answer = CreateEventA(NULL, TRUE, FALSE, NULL);
	pthread_t thread;
	if (!p->ready || !p->wake || !p->answer || (pthread_create(&thread, NULL, probe_main, p) != 0))
	{
		free(p);
		return 0;
	}
	pthread_detach(thread);
	return 1;
}
