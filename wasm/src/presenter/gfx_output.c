#include "gfx_output.h"

#include <stdlib.h>

#include <freerdp/channels/drdynvc.h>
#include <freerdp/channels/wtsvc.h>
#include <freerdp/codec/color.h>
#include <freerdp/codec/planar.h>

#include "../js_events.h"
#include "presenter_events.h"

/* Best first: the versions FreeRDP's rdpgfx server can confirm. */
static const UINT32 CAPS_PREFERENCE[] = {
	RDPGFX_CAPVERSION_107, RDPGFX_CAPVERSION_106, RDPGFX_CAPVERSION_106_ERR,
	RDPGFX_CAPVERSION_105, RDPGFX_CAPVERSION_104, RDPGFX_CAPVERSION_103,
	RDPGFX_CAPVERSION_102, RDPGFX_CAPVERSION_101, RDPGFX_CAPVERSION_10,
	RDPGFX_CAPVERSION_81,  RDPGFX_CAPVERSION_8
};

/* [MS-RDPEGFX] 2.2.3: AVC420 is in 8.1 when its flag says so, in 10.x unless
 * AVC is disabled, and always in 10.1 (a set without flags). */
static BOOL caps_allow_avc420(const RDPGFX_CAPSET* caps)
{
	switch (caps->version)
	{
		case RDPGFX_CAPVERSION_8:
			return FALSE;
		case RDPGFX_CAPVERSION_81:
			return (caps->flags & RDPGFX_CAPS_FLAG_AVC420_ENABLED) != 0;
		case RDPGFX_CAPVERSION_101:
			return TRUE;
		default:
			return (caps->flags & RDPGFX_CAPS_FLAG_AVC_DISABLED) == 0;
	}
}

static BOOL create_surface(LpContext* lp)
{
	RdpgfxServerContext* gfx = lp->gfx;
	MONITOR_DEF monitor = { .left = 0,
		                    .top = 0,
		                    .right = (INT32)lp->width - 1,
		                    .bottom = (INT32)lp->height - 1,
		                    .flags = MONITOR_PRIMARY };
	RDPGFX_RESET_GRAPHICS_PDU reset = { .width = lp->width,
		                                .height = lp->height,
		                                .monitorCount = 1,
		                                .monitorDefArray = &monitor };
	RDPGFX_CREATE_SURFACE_PDU create = { .surfaceId = lp->surfaceId,
		                                 .width = (UINT16)lp->width,
		                                 .height = (UINT16)lp->height,
		                                 .pixelFormat = GFX_PIXEL_FORMAT_XRGB_8888 };
	RDPGFX_MAP_SURFACE_TO_OUTPUT_PDU map = { .surfaceId = lp->surfaceId,
		                                     .outputOriginX = 0,
		                                     .outputOriginY = 0 };
	return (gfx->ResetGraphics(gfx, &reset) == CHANNEL_RC_OK) &&
	       (gfx->CreateSurface(gfx, &create) == CHANNEL_RC_OK) &&
	       (gfx->MapSurfaceToOutput(gfx, &map) == CHANNEL_RC_OK);
}

static UINT on_caps_advertise(RdpgfxServerContext* gfx, const RDPGFX_CAPS_ADVERTISE_PDU* advertise)
{
	LpContext* lp = gfx->custom;
	for (size_t v = 0; v < ARRAYSIZE(CAPS_PREFERENCE); v++)
	{
		for (UINT16 i = 0; i < advertise->capsSetCount; i++)
		{
			const RDPGFX_CAPSET* offered = &advertise->capsSets[i];
			if (offered->version != CAPS_PREFERENCE[v])
				continue;
			RDPGFX_CAPSET caps = *offered;
			RDPGFX_CAPS_CONFIRM_PDU confirm = { .capsSet = &caps };
			const UINT rc = gfx->CapsConfirm(gfx, &confirm);
			if (rc != CHANNEL_RC_OK)
				return rc;
			lp->avc420 = caps_allow_avc420(&caps);
			if (!create_surface(lp))
				return ERROR_INTERNAL_ERROR;
			atomic_store(&lp->gfxReady, 1);
			lt_post_event(lp->id, LP_EVENT_ACTIVE, (intptr_t)lp->width, (intptr_t)lp->height,
			              lp->avc420 ? 1 : 0, 0);
			/* a client that just joined has nothing to show: it needs a whole picture */
			lt_post_event(lp->id, LP_EVENT_KEYFRAME_REQUEST, 0, 0, 0, 0);
			return CHANNEL_RC_OK;
		}
	}
	return CHANNEL_RC_UNSUPPORTED_VERSION;
}

static UINT on_frame_acknowledge(RdpgfxServerContext* gfx, const RDPGFX_FRAME_ACKNOWLEDGE_PDU* ack)
{
	LpContext* lp = gfx->custom;
	lt_post_event(lp->id, LP_EVENT_FRAME_ACKED, (intptr_t)ack->frameId, (intptr_t)lp->framesSent,
	              (int)ack->queueDepth, 0);
	return CHANNEL_RC_OK;
}

BOOL lp_gfx_create(LpContext* lp)
{
	lp->gfx = rdpgfx_server_context_new(lp->vcm);
	if (!lp->gfx)
		return FALSE;
	lp->gfx->rdpcontext = &lp->context;
	lp->gfx->custom = lp;
	lp->gfx->CapsAdvertise = on_caps_advertise;
	lp->gfx->FrameAcknowledge = on_frame_acknowledge;
	/* the peer thread reads the channel (lp_gfx_event): no thread of its own */
	return lp->gfx->Initialize(lp->gfx, TRUE);
}

void lp_gfx_free(LpContext* lp)
{
	if (lp->gfx)
	{
		if (lp->gfxOpened)
			(void)lp->gfx->Close(lp->gfx);
		rdpgfx_server_context_free(lp->gfx);
		lp->gfx = NULL;
	}
	if (lp->planar)
		freerdp_bitmap_planar_context_free(lp->planar);
	lp->planar = NULL;
}

BOOL lp_gfx_poll(LpContext* lp)
{
	if (lp->gfxOpened || !lp->peer->activated ||
	    !WTSVirtualChannelManagerIsChannelJoined(lp->vcm, DRDYNVC_SVC_CHANNEL_NAME) ||
	    (WTSVirtualChannelManagerGetDrdynvcState(lp->vcm) != DRDYNVC_STATE_READY))
		return TRUE;
	if (!lp->gfx->Open(lp->gfx))
		return FALSE; /* the display shows nothing without GFX: end rather than hang */
	lp->gfxOpened = TRUE;
	return TRUE;
}

HANDLE lp_gfx_event(LpContext* lp)
{
	return lp->gfxOpened ? rdpgfx_server_get_event_handle(lp->gfx) : NULL;
}

static BYTE* encode_planar(LpContext* lp, const LpFrame* frame, UINT32* length)
{
	if (!lp->planar)
		lp->planar = freerdp_bitmap_planar_context_new(PLANAR_FORMAT_HEADER_NA |
		                                                   PLANAR_FORMAT_HEADER_RLE,
		                                               frame->width, frame->height);
	if (!lp->planar || !freerdp_bitmap_planar_context_reset(lp->planar, frame->width, frame->height))
		return NULL;
	freerdp_planar_topdown_image(lp->planar, TRUE);
	return freerdp_bitmap_compress_planar(lp->planar, frame->pixels, PIXEL_FORMAT_BGRX32,
	                                      frame->width, frame->height, frame->stride, NULL, length);
}

/* What the metablock says of the region's quantisation (qp 22, not
 * progressive, quality 100): the client decodes the bitstream as it is and
 * uses these only as hints */
#define LP_AVC420_QP 22
#define LP_AVC420_QUALITY 100

int lp_gfx_send_frame(LpContext* lp, const LpFrame* frame)
{
	if ((frame->width == 0) || (frame->height == 0) || (frame->x + frame->width > lp->width) ||
	    (frame->y + frame->height > lp->height) || (frame->length > UINT32_MAX))
		return LP_DROP_BAD_FRAME;
	RDPGFX_SURFACE_COMMAND cmd = { .surfaceId = lp->surfaceId,
		                           .format = PIXEL_FORMAT_BGRX32,
		                           .left = frame->x,
		                           .top = frame->y,
		                           .right = frame->x + frame->width,
		                           .bottom = frame->y + frame->height,
		                           .width = frame->width,
		                           .height = frame->height };
	BYTE* encoded = NULL;
	RECTANGLE_16 region = { .left = (UINT16)cmd.left,
		                    .top = (UINT16)cmd.top,
		                    .right = (UINT16)cmd.right,
		                    .bottom = (UINT16)cmd.bottom };
	RDPGFX_H264_QUANT_QUALITY quality = { .qp = LP_AVC420_QP, .qualityVal = LP_AVC420_QUALITY };
	RDPGFX_AVC420_BITMAP_STREAM avc420 = { .meta = { .numRegionRects = 1,
		                                             .regionRects = &region,
		                                             .quantQualityVals = &quality } };
	switch (frame->codec)
	{
		case LP_CODEC_UNCOMPRESSED:
			/* the wire wants rows of exactly width pixels */
			if (frame->stride != frame->width * 4)
				return LP_DROP_BAD_FRAME;
			cmd.codecId = RDPGFX_CODECID_UNCOMPRESSED;
			cmd.data = frame->pixels;
			cmd.length = (UINT32)frame->length;
			break;
		case LP_CODEC_PLANAR:
			encoded = encode_planar(lp, frame, &cmd.length);
			if (!encoded)
				return LP_DROP_SEND_FAILED;
			cmd.codecId = RDPGFX_CODECID_PLANAR;
			cmd.data = encoded;
			break;
		case LP_CODEC_AVC420:
			/* the page's encoder made it; FreeRDP only frames it (metablock + bitstream) */
			if (!lp->avc420)
				return LP_DROP_AVC_NOT_ALLOWED;
			avc420.data = frame->pixels;
			avc420.length = (UINT32)frame->length;
			cmd.codecId = RDPGFX_CODECID_AVC420;
			cmd.extra = &avc420;
			break;
		default:
			return LP_DROP_BAD_FRAME;
	}
	RDPGFX_START_FRAME_PDU start = { .frameId = frame->id, .timestamp = 0 };
	RDPGFX_END_FRAME_PDU end = { .frameId = frame->id };
	const UINT rc = lp->gfx->SurfaceFrameCommand(lp->gfx, &cmd, &start, &end);
	free(encoded);
	if (rc != CHANNEL_RC_OK)
		return LP_DROP_SEND_FAILED;
	lp->framesSent++;
	return 0;
}
