/* Events the presenter's RDP server posts to JS (through ../js_events.c's
 * Module.lanternaEvent, in order, on the JS thread). The numbers are the
 * contract with wasm/js/lanternaPresenter.js; they share nothing with the
 * client's (a module is either the client or the presenter). */
#ifndef LANTERNA_PRESENTER_EVENTS_H
#define LANTERNA_PRESENTER_EVENTS_H

enum lp_event_kind
{
	LP_EVENT_OUTPUT = 1,           /* a: pointer to a malloc'd PDU, b: its length; JS frees */
	LP_EVENT_ACTIVE = 2,           /* a: width, b: height, c: 1 when the client takes AVC420 */
	LP_EVENT_KEYFRAME_REQUEST = 3, /* the next picture must be whole (client joined, refresh asked) */
	LP_EVENT_FRAME_ACKED = 4,      /* a: frame id the client acknowledged, b: frames sent so far */
	LP_EVENT_ENDED = 5,            /* a: enum lp_reason, b: FreeRDP's last error code */
	LP_EVENT_FRAME_DROPPED = 6,    /* a: frame id, b: why (enum lp_drop) */
	/* a: sample rate, b: channels, c: the client's rdpsnd version,
	 * d: bit 0 set when dynamic, bit 1 set when the client chose Opus (else PCM) */
	LP_EVENT_AUDIO_READY = 7,
	/* no sound: a: the client's format count (0: the channel did not open), c: its version */
	LP_EVENT_AUDIO_REFUSED = 8,
	/* a: first block number, b: blocks sent, c: timestamp ms, d: frames */
	LP_EVENT_AUDIO_SENT = 9,
	LP_EVENT_AUDIO_CONFIRMED = 10, /* a: block number, b: the client's wTimeStamp (ms, mod 65536) */
	LP_EVENT_AUDIO_DROPPED = 11,   /* a: timestamp ms, b: frames: a send failed */
	/* the display's client answered RDPEI's SC_READY: a: its protocol version,
	 * b: its maxTouchContacts, c: its CS_READY flags (touch_input.h) */
	LP_EVENT_TOUCH_READY = 12,
	LP_EVENT_TOUCH = 13,     /* a: pointer to a malloc'd touch record (touch_input.h), b: contacts; JS frees */
	LP_EVENT_TOUCH_OFF = 14  /* RDPEI could not open, or the client sent what does not parse: a: error */
};

/* Why lp_audio_queue did not take samples (0: it did). */
enum lp_audio_refusal
{
	LP_AUDIO_REFUSED_OFF = 1,       /* no sound channel configured, or it could not open */
	LP_AUDIO_REFUSED_NOT_READY = 2, /* the client has not chosen the format yet */
	LP_AUDIO_REFUSED_FULL = 3,      /* the queue holds its cap already (or out of memory) */
	LP_AUDIO_REFUSED_BAD = 4        /* length, rate or channels do not match the configuration,
	                                   or PCM for a client that chose Opus (and the reverse) */
};

/* Why the presenter's session ended; names in wasm/js/lanternaPresenter.js. */
enum lp_reason
{
	LP_REASON_CLOSED = 1,         /* the client disconnected, or the input ended */
	LP_REASON_STOPPED = 2,        /* lp_presenter_stop() */
	LP_REASON_PROTOCOL_ERROR = 3, /* the client sent what FreeRDP could not take */
	LP_REASON_INTERNAL = 4,       /* out of memory, a glue bug */
	LP_REASON_TIMEOUT = 5         /* the client did not finish connecting before the deadline */
};

enum lp_drop
{
	LP_DROP_NOT_READY = 1, /* replaced by a newer picture before the graphics channel was up */
	LP_DROP_SEND_FAILED = 2,
	LP_DROP_BAD_FRAME = 3,
	LP_DROP_AVC_NOT_ALLOWED = 4 /* an AVC420 picture for a client whose caps do not take it */
};

#endif
