/* The server half of the audio output channel (FreeRDP's rdpsnd server, on
 * the static "rdpsnd" channel or the dynamic AUDIO_PLAYBACK_DVC, as the
 * presenter is configured): offers Opus (FreeRDP's tag 0x704F, 48 kHz, the
 * page's channel count; only when the page encodes it) and one 16-bit PCM
 * format (the page's rate and channel count), selects the first the display's
 * client lists (Opus only for version 8 clients), and sends what JS queues:
 * one Opus packet per Wave2 PDU as it is, or the PCM samples, one Wave2 PDU per piece of at most 64 KiB (a Wave Info +
 * Wave pair, cut at 50 ms, to a client older than version 8). The client's
 * Wave Confirm PDUs go back to JS. Runs on the peer thread; JS only queues. */
#ifndef LANTERNA_PRESENTER_AUDIO_OUTPUT_H
#define LANTERNA_PRESENTER_AUDIO_OUTPUT_H

#include "presenter.h"

enum lp_audio_mode
{
	LP_AUDIO_OFF = 0,
	LP_AUDIO_STATIC = 1, /* the "rdpsnd" static virtual channel */
	LP_AUDIO_DYNAMIC = 2 /* AUDIO_PLAYBACK_DVC over drdynvc */
};

/* Before start: which channel, the PCM the page will send, and whether it can
 * send Opus instead (offered first). FALSE on bad values. */
BOOL lp_audio_configure(LpContext* lp, int mode, UINT32 sampleRate, UINT32 channels, BOOL opus);
void lp_audio_free(LpContext* lp);

/* Starts the channel once it can be opened; FALSE only on a failure that ends the session. */
BOOL lp_audio_poll(LpContext* lp);

/* The channel's event handle once started (NULL before), and its messages. */
HANDLE lp_audio_event(LpContext* lp);
BOOL lp_audio_handle_messages(LpContext* lp);

/* The configured rate and channel count? (sendAudio's samples must be them.) */
BOOL lp_audio_matches(LpContext* lp, UINT32 sampleRate, UINT32 channels);

/* From JS's thread: takes over samples (malloc'd interleaved int16, frames × channels).
 * 0 when queued, else why not (enum lp_audio_refusal); samples are freed either way. */
int lp_audio_queue(LpContext* lp, INT16* samples, size_t frames, UINT32 timestampMs);

/* From JS's thread, once the client chose Opus: takes over one packet (malloc'd,
 * 1..7,680 bytes) of `frames` (at 48 kHz, at most 120 ms). Same answers and
 * caps as lp_audio_queue; the packet is freed either way. */
int lp_audio_queue_packet(LpContext* lp, BYTE* packet, size_t length, size_t frames,
                          UINT32 timestampMs);

/* Set while chunks wait to be sent, once the client chose the format (NULL before). */
HANDLE lp_audio_queue_event(LpContext* lp);

/* Sends what is queued (peer thread). */
void lp_audio_send_pending(LpContext* lp);

#endif
