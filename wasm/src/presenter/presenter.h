/* The presenter page's RDP server: one FreeRDP peer (server/common's peer
 * API) whose transport is a message channel to the gateway, with the server
 * half of the graphics pipeline (rdpgfx) sending the pictures JS gives it.
 * One peer per module instance is all a presenter page needs, but nothing
 * here is global: every piece hangs off the peer's context. */
#ifndef LANTERNA_PRESENTER_H
#define LANTERNA_PRESENTER_H

#include <pthread.h>
#include <stdatomic.h>

#include <freerdp/freerdp.h>
#include <freerdp/peer.h>
#include <freerdp/server/rdpgfx.h>

#include "../receive_ring.h"

/* A picture waiting to be sent: JS wrote it into the heap, the peer thread
 * frees it after sending (or when a newer one replaces it). */
typedef struct
{
	UINT32 id;
	UINT32 codec; /* enum lp_codec */
	UINT32 x, y, width, height;
	UINT32 stride;
	BYTE* pixels; /* B,G,R,X bytes, stride bytes per row; for AVC420 an Annex-B access unit; malloc'd */
	size_t length;
} LpFrame;

enum lp_codec
{
	LP_CODEC_UNCOMPRESSED = 1, /* RDPGFX_CODECID_UNCOMPRESSED: the bytes as they are */
	LP_CODEC_PLANAR = 2,       /* RDPGFX_CODECID_PLANAR: lossless, FreeRDP's encoder */
	LP_CODEC_AVC420 = 3        /* RDPGFX_CODECID_AVC420: an H.264 access unit encoded by the page */
};

typedef struct LpAudio LpAudio; /* audio_output.c */
typedef struct LpTouch LpTouch; /* touch_input.c */

typedef struct
{
	rdpContext context; /* first: FreeRDP's */

	intptr_t id; /* the handle JS knows the presenter by (its address) */
	freerdp_peer* peer;
	LtReceiveRing* ring;
	UINT32 width, height;

	HANDLE vcm; /* the virtual channel manager (static and dynamic channels) */
	RdpgfxServerContext* gfx;
	BOOL gfxOpened;
	atomic_int gfxReady; /* caps confirmed, surface created and mapped */
	BOOL avc420;         /* the client's confirmed caps allow AVC420 */
	UINT16 surfaceId;
	UINT32 nextFrameId;
	UINT32 framesSent;
	void* planar; /* BITMAP_PLANAR_CONTEXT, made on first use */

	LpAudio* audio; /* the sound channel; NULL unless configured (audio_output.h) */
	LpTouch* touch; /* RDPEI, the display's multi-touch (touch_input.h) */

	pthread_mutex_t frameLock;
	LpFrame* pending; /* the newest picture not yet sent; older ones are dropped */
	HANDLE frameEvent; /* set while a picture waits */

	UINT32 connectTimeoutMs; /* from start() to the client's activation */
	HANDLE stopEvent;
	atomic_int stopRequested;
	int layerAttached;
	pthread_t thread;
	BOOL threadStarted;
	BYTE* publicKey; /* the self-signed certificate's SubjectPublicKey (see peer_certificate.c) */
	size_t publicKeyLength;
} LpContext;

LpContext* lp_presenter_create(UINT32 width, UINT32 height);
void lp_presenter_destroy(LpContext* lp);
BOOL lp_presenter_start(LpContext* lp);
void lp_presenter_stop(LpContext* lp);

/* Takes ownership of frame (and its pixels); the newest picture wins. */
void lp_presenter_queue_frame(LpContext* lp, LpFrame* frame);
void lp_frame_free(LpFrame* frame);

#endif
