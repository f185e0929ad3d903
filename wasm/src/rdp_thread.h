/* The thread a client session (session.c) or the presenter's peer
 * (presenter/presenter.c) runs FreeRDP on. */
#ifndef LANTERNA_RDP_THREAD_H
#define LANTERNA_RDP_THREAD_H

#include <pthread.h>

#include <winpr/wtypes.h>

/* Starts main(arg) on a thread with a stack deep enough for FreeRDP, once:
 * *started says whether it runs. FALSE when it was started before or could
 * not be made. */
BOOL lt_rdp_thread_start(pthread_t* thread, BOOL* started, void* (*main)(void*), void* arg);

/* Waits for that thread to end, when it was started. */
void lt_rdp_thread_join(pthread_t thread, BOOL started);

#endif
