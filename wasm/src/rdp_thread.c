#include "rdp_thread.h"

BOOL lt_rdp_thread_start(pthread_t* thread, BOOL* started, void* (*main)(void*), void* arg)
{
	if (*started)
		return FALSE;
	pthread_attr_t attr;
	pthread_attr_init(&attr);
	/* FreeRDP's connect path and codecs use deep stacks; 64 KiB is emscripten's default */
	pthread_attr_setstacksize(&attr, 2u * 1024u * 1024u);
	const int rc = pthread_create(thread, &attr, main, arg);
	pthread_attr_destroy(&attr);
	*started = (rc == 0);
	return *started;
}

void lt_rdp_thread_join(pthread_t thread, BOOL started)
{
	if (started)
		pthread_join(thread, NULL);
}
