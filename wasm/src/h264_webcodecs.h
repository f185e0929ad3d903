/* The contract between h264_webcodecs.c and wasm/js/h264Decoders.js: one record
 * per H.264 context in the shared heap, read and written by both sides. */
#ifndef LANTERNA_H264_WEBCODECS_H
#define LANTERNA_H264_WEBCODECS_H

/* int32 words of a decode record */
enum lt_h264_record_word
{
	LT_H264_TICKET = 0, /* (sequence << 4) | phase, the futex word; JS claims it with a CAS */
	LT_H264_STATUS = 1, /* enum lt_h264_status, written by JS before DONE */
	LT_H264_DATA = 2,   /* the Annex-B access unit: pointer, */
	LT_H264_SIZE = 3,   /* and length */
	LT_H264_PLANES = 4, /* 3 words: Y, U, V plane pointers (I420) */
	LT_H264_STRIDES = 7, /* 3 words: their strides */
	LT_H264_WIDTH = 10,  /* the surface's size: the picture's visible part is copied up to it */
	LT_H264_HEIGHT = 11,
	LT_H264_RECORD_WORDS = 12
};

/* low 4 bits of LT_H264_TICKET */
enum lt_h264_phase
{
	LT_H264_IDLE = 0,
	LT_H264_PENDING = 1,   /* posted; JS may claim it (PENDING → WRITING) */
	LT_H264_WRITING = 2,   /* JS copies the picture into the planes; C waits for DONE */
	LT_H264_DONE = 3,      /* JS finished; LT_H264_STATUS says how */
	LT_H264_ABANDONED = 4  /* C gave up waiting (stop, deadline); JS must not touch the planes */
};

enum lt_h264_status
{
	LT_H264_PICTURE = 1,      /* the planes hold the picture */
	LT_H264_NO_PICTURE = 0,   /* the decoder kept it (never seen with optimizeForLatency) */
	LT_H264_SKIPPED = -1,     /* not decoded (error, or waiting for a key frame): skip the update */
	LT_H264_UNSUPPORTED = -2, /* no decoder here (no WebCodecs, profile not supported): end the session */
	LT_H264_FAILED = -3       /* the stream cannot be decoded even after a new decoder: end the session */
};

#endif
