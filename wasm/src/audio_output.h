/* The display's sound: FreeRDP's audio output channel (rdpsnd, the static
 * channel or its dynamic variant, whichever the server opens) with a device of
 * our own, subsystem "lanterna", in place of FreeRDP's ALSA/Pulse ones. The
 * client lists the server's PCM formats (FreeRDP's decoders for ADPCM, GSM,
 * MP3, AAC and Opus are not in this build) and, when the page can decode it,
 * Opus (tag 0x704F, 48 kHz, one packet per wave: handed on as it is, the page's
 * WebCodecs AudioDecoder decodes it); the device takes 16-bit PCM and widens
 * 8-bit PCM to it, and hands each wave to JS with the server's timestamps
 * (LT_EVENT_AUDIO). It then waits, with a deadline, until JS says it has
 * handed the samples on (lt_session_audio_played) and how long until they are
 * heard; the channel's second Wave Confirm PDU reports that time to the server.
 *
 * The record posted with LT_EVENT_AUDIO is a malloc'd array that JS frees
 * after copying the samples out:
 *   [0] wave sequence in this session (from 1)  [1] wTimeStamp (server ms, mod 65536)
 *   [2] dwAudioTimeStamp (Wave2 PDUs; 0 for Wave PDUs)  [3] cBlockNo
 *   [4] channels  [5] samples per second  [6] bits per sample (16)  [7] byte length n
 *   [8] format tag (1 PCM, 0x704F Opus)  [9] frames the wave holds (Opus: at 48 kHz)
 *   then n bytes: interleaved little-endian PCM, or one Opus packet (int32 words 10 …)
 * Waves come in the order the server sent them, one at a time. */
#ifndef LANTERNA_AUDIO_OUTPUT_H
#define LANTERNA_AUDIO_OUTPUT_H

#include "session.h"

#define LT_AUDIO_HEADER_WORDS 10

/* Joins rdpsnd (static and dynamic) with the "lanterna" device; before connect. */
BOOL lt_audio_output_settings(rdpSettings* settings);

/* Makes the "lanterna" device loadable; after each client context is made
 * (client-common registers FreeRDP's own table there, which ours falls back to). */
void lt_audio_output_register(void);

/* JS is done with wave seq (record word 0): delayMs until it is heard (0: handed on now). */
void lt_audio_output_played(LtContext* lt, UINT32 seq, UINT32 delayMs);

#endif
