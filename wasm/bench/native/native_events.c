#include "native_events.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

#include "js_events.h"

typedef struct LtQueuedEvent
{
	LtNativeEvent event;
	struct LtQueuedEvent* next;
} LtQueuedEvent;

static pthread_mutex_t queueLock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t queueSignal;
static pthread_once_t queueOnce = PTHREAD_ONCE_INIT;
static LtQueuedEvent* head;
static LtQueuedEvent* tail;

/* waits are deadlines on the monotonic clock: a wall-clock step must not stretch them */
static void queue_init(void)
{
	pthread_condattr_t attr;
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&queueSignal, &attr);
	pthread_condattr_destroy(&attr);
}

void lt_post_event(intptr_t session, int kind, intptr_t a, intptr_t b, int c, int d)
{
	pthread_once(&queueOnce, queue_init);
	LtQueuedEvent* item = malloc(sizeof(*item));
	if (!item)
		abort(); /* a lost event would hang the driver; this is a benchmark, not the client */
	item->event = (LtNativeEvent){ session, kind, a, b, c, d };
	item->next = NULL;
	pthread_mutex_lock(&queueLock);
	if (tail)
		tail->next = item;
	else
		head = item;
	tail = item;
	pthread_cond_signal(&queueSignal);
	pthread_mutex_unlock(&queueLock);
}

BOOL lt_native_next_event(LtNativeEvent* event, UINT32 timeoutMs)
{
	pthread_once(&queueOnce, queue_init);
	struct timespec deadline;
	clock_gettime(CLOCK_MONOTONIC, &deadline);
	deadline.tv_sec += timeoutMs / 1000;
	deadline.tv_nsec += (long)(timeoutMs % 1000) * 1000000L;
	if (deadline.tv_nsec >= 1000000000L)
	{
		deadline.tv_sec += 1;
		deadline.tv_nsec -= 1000000000L;
	}
	pthread_mutex_lock(&queueLock);
	int rc = 0;
	while (!head && (rc != ETIMEDOUT))
		rc = pthread_cond_timedwait(&queueSignal, &queueLock, &deadline);
	LtQueuedEvent* item = head;
	if (item)
	{
		head = item->next;
		if (!head)
			tail = NULL;
	}
	pthread_mutex_unlock(&queueLock);
	if (!item)
		return FALSE;
	*event = item->event;
	free(item);
	return TRUE;
}
