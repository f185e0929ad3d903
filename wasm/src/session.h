/* One RDP session: FreeRDP's client context plus what the glue adds (the
 * receive ring, the server key from the gateway, frame acknowledgement), and
 * the thread that runs FreeRDP's connect and event loop. */
#ifndef LANTERNA_SESSION_H
#define LANTERNA_SESSION_H

#include <pthread.h>
#include <stdatomic.h>

#include <freerdp/client.h>
#include <freerdp/client/disp.h>
#include <freerdp/client/rdpgfx.h>
#include <freerdp/freerdp.h>

#include "input_queue.h"
#include "receive_ring.h"

/* Why a session ended; the numbers are the contract with wasm/js/lanternaRdp.js. */
enum lt_reason
{
	LT_REASON_CLOSED = 1,             /* ended normally (server or client closed it) */
	LT_REASON_STOPPED = 2,            /* lt_session_stop() */
	LT_REASON_WRONG_PASSWORD = 3,     /* the server refused the credentials */
	LT_REASON_AUTH_FAILED = 4,        /* other logon problems: account locked, expired, … */
	LT_REASON_CONNECTION_RESET = 5,   /* the byte stream ended (gateway socket closed) */
	LT_REASON_PROTOCOL_ERROR = 6,     /* the server sent something FreeRDP could not handle */
	LT_REASON_TIMEOUT = 7,            /* connect did not finish before its deadline */
	LT_REASON_NEGOTIATION_FAILED = 8, /* security protocol negotiation failed */
	LT_REASON_SERVER_ENDED = 9,       /* the server logged off or disconnected the session */
	LT_REASON_INTERNAL = 10,          /* out of memory, bad settings, a glue bug */
	LT_REASON_VIDEO_UNSUPPORTED = 11, /* H.264 came and no decoder here can decode it */
	LT_REASON_VIDEO_FAILED = 12,      /* the H.264 stream stayed undecodable, also with a new decoder */
	LT_REASON_OUT_OF_MEMORY = 13      /* the module's fixed heap refused an allocation (heap_guard.h) */
};

enum lt_pixel_layout
{
	LT_PIXELS_BGRX = 1, /* bytes B, G, R, X: FreeRDP's fastest paths; swizzle in the shader */
	LT_PIXELS_RGBX = 2  /* bytes R, G, B, X: upload as RGBA as it is */
};

/* Most pointer events waiting for the RDP thread (mouse_input.h): past it the newest are dropped. */
#define LT_MOUSE_QUEUE_CAPACITY 256u

typedef struct LtTouchInput LtTouchInput;

/* One queued pointer event (mouse_input.h). */
typedef struct
{
	UINT16 flags;
	UINT16 x;
	UINT16 y;
} LtMouseEvent;

typedef struct
{
	rdpClientContext common; /* first: FreeRDP's client-common context */

	intptr_t id; /* the handle JS knows this session by (its address) */
	LtReceiveRing* ring;

	pthread_mutex_t keyLock;
	BYTE* publicKey; /* the server certificate's SubjectPublicKey, from the gateway */
	DWORD publicKeyLength;

	UINT32 connectTimeoutMs;
	UINT64 connectDeadline; /* GetTickCount64() ms; past it a connecting read fails */
	atomic_int connected;
	atomic_int stopRequested;
	atomic_int timedOut;
	int layerConnects; /* transport connects so far: only the first may use the data socket */
	BOOL layerClosed;
	UINT32 layerCloseError; /* FreeRDP's last error when the first transport closed */
	pthread_t thread;
	BOOL threadStarted;

	int pixelLayout;
	UINT32 frameSeq;
	BOOL waitFrameAck;
	UINT32 frameAckTimeoutMs;
	HANDLE frameAck;
	atomic_uint lateFrameAcks;

	BOOL audio;                 /* rdpsnd joined with the page's device (audio_output.h) */
	BOOL audioOpus;             /* the page decodes Opus: the device claims tag 0x704F */
	UINT32 audioAckTimeoutMs;   /* how long a wave waits for JS to hand it on */
	HANDLE audioPlayed;         /* set by JS (lt_session_audio_played) */
	atomic_uint audioSeq;       /* the wave JS is handed now (record word 0) */
	atomic_uint audioDelayMs;   /* JS's answer: ms until that wave is heard */
	atomic_uint lateAudioAcks;  /* waves whose wait for JS passed its deadline */
	atomic_uint droppedAudio;   /* rdpsnd PDUs dropped (patch 0015) and waves not playable */

	pcRdpgfxSurfaceCommand gfxSurfaceCommand; /* GDI's, wrapped by the video decoder */
	atomic_int videoFailure;                  /* enum lt_reason once H.264 could not be decoded */
	unsigned heapFailuresAtStart;             /* lt_heap_failures() when the RDP thread began */

	DispClientContext* disp;  /* Display Control, once the server opened it (display_control.h) */
	atomic_int dispReady;     /* the server sent its capabilities */
	atomic_uint dispMaxArea;  /* its MaxMonitorAreaFactorA × B (0: not said) */
	_Atomic uint64_t dispWish; /* width, height, desktop and device scale, 16 bits each; 0: none */

	LtInputQueue mouse; /* the pointer events JS queued (mouse_input.h), in mouseEvents */
	LtMouseEvent mouseEvents[LT_MOUSE_QUEUE_CAPACITY];

	struct LtTouchInput* touch; /* multi-touch through RDPEI (touch_input.h) */
} LtContext;

LtContext* lt_session_create(void);
void lt_session_destroy(LtContext* lt);

/* Starts the RDP thread (connect, then the event loop). FALSE if it could not start. */
BOOL lt_session_start(LtContext* lt);

/* Asks the RDP thread to end; it posts LT_EVENT_DISCONNECTED when it has. */
void lt_session_stop(LtContext* lt);

BOOL lt_session_store_public_key(LtContext* lt, const BYTE* key, size_t length);

#endif
