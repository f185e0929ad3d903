/* Events for the JS side. They run on the main runtime thread (the Worker's or
 * Node's event loop), in the order they were posted, whichever thread posts.
 * The numbers are the contract with wasm/js/lanternaRdp.js. Pointers travel as
 * intptr_t: 32 bits in wasm, and whole in the native twin (bench/native/), which
 * links the same glue with a C sink in place of this file's JS one. */
#ifndef LANTERNA_JS_EVENTS_H
#define LANTERNA_JS_EVENTS_H

#include <stdint.h>

enum lt_event_kind
{
	LT_EVENT_SEND = 1,             /* a: pointer to a malloc'd PDU, b: its length; JS frees */
	LT_EVENT_CONNECTED = 2,        /* a: width, b: height */
	LT_EVENT_DISCONNECTED = 3,     /* a: enum lt_reason, b: FreeRDP's last error code */
	LT_EVENT_RESIZE = 4,           /* a: width, b: height */
	LT_EVENT_FRAME = 5,            /* a: pointer to a malloc'd frame record (frame_output.h); JS frees */
	LT_EVENT_POINTER_SET = 6,      /* a: pointer to a malloc'd pointer record (pointer_output.h); JS frees */
	LT_EVENT_POINTER_HIDE = 7,     /* no arguments */
	LT_EVENT_POINTER_DEFAULT = 8,  /* no arguments */
	LT_EVENT_POINTER_POSITION = 9, /* a: x, b: y */
	LT_EVENT_H264_DECODE = 10,     /* a: a decode record (h264_webcodecs.h) to decode into */
	LT_EVENT_H264_CLOSE = 11,      /* a: that record: its decoder is gone; JS frees it */
	LT_EVENT_AUDIO = 12,           /* a: pointer to a malloc'd wave record (audio_output.h); JS frees */
	LT_EVENT_TOUCH = 13            /* a: 1 the server opened RDPEI (touch_input.h), 0 it closed it */
	/* 100 and up: the test build's hooks (wasm/test/hooks/), never posted by the product */
};

void lt_post_event(intptr_t session, int kind, intptr_t a, intptr_t b, int c, int d);

#endif
