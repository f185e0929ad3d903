#include "audio_output.h"

#include <stdlib.h>
#include <string.h>

#include <freerdp/channels/drdynvc.h>
#include <freerdp/channels/rdpsnd.h>
#include <freerdp/channels/wtsvc.h>
#include <freerdp/codec/audio.h>
#include <freerdp/server/rdpsnd.h>

#include "../js_events.h"
#include "presenter_events.h"

/* [MS-RDPEA] 2.2.2.1: version 8 clients take Wave2 PDUs (one PDU per wave,
 * with dwAudioTimeStamp) */
#define LP_RDPSND_VERSION_WIN_8 0x08
/* A Wave2 PDU's BodySize is 16 bits and its header 12 bytes of it */
#define LP_WAVE2_MAX_DATA (UINT16_MAX - 12u)
/* Queued and not yet sent: about 5 s of 48 kHz stereo; past it the page is told no */
#define LP_AUDIO_QUEUE_CAP (1024u * 1024u)
/* ... and about 5 s of sound in frames, whatever the format (an Opus packet is small) */
#define LP_AUDIO_QUEUE_FRAMES (5u * 48000u)
/* FreeRDP's Wave (pre-8) path cuts the stream into blocks of this many ms */
#define LP_AUDIO_BLOCK_MS 50
/* One Opus packet: at most 120 ms ([RFC 6716] 3), 7,680 bytes (the display's cap too) */
#define LP_OPUS_MAX_BYTES 7680u
#define LP_OPUS_MAX_FRAMES 5760u
/* What the Opus format claims per second (its nAvgBytesPerSec): the page's bitrate is its own */
#define LP_OPUS_AVG_BYTES_PER_SEC 12000u

typedef struct LpAudioChunk
{
	INT16* samples; /* PCM: frames × channels; Opus: NULL */
	BYTE* packet;   /* Opus: one packet of packetBytes, sent as it is */
	size_t packetBytes;
	size_t frames;
	UINT32 timestampMs;
	struct LpAudioChunk* next;
} LpAudioChunk;

struct LpAudio
{
	int mode;
	AUDIO_FORMAT format; /* the PCM JS sends, offered last */
	AUDIO_FORMAT opus;   /* offered first when the page encodes Opus (offerOpus) */
	BOOL offerOpus;
	RdpsndServerContext* snd;
	BOOL started;
	atomic_int ready;     /* the client chose one of our formats */
	atomic_int opusChosen; /* ... and it is Opus: JS sends packets, not PCM */
	UINT16 formatNo;      /* its index in the client's list */

	pthread_mutex_t lock;
	LpAudioChunk* head;
	LpAudioChunk* tail;
	size_t queuedBytes;
	size_t queuedFrames;
	HANDLE queued; /* set while chunks wait */
};

static void chunk_free(LpAudioChunk* chunk)
{
	free(chunk->samples);
	free(chunk->packet);
	free(chunk);
}

BOOL lp_audio_configure(LpContext* lp, int mode, UINT32 sampleRate, UINT32 channels, BOOL opus)
{
	if ((mode != LP_AUDIO_STATIC) && (mode != LP_AUDIO_DYNAMIC))
		return FALSE;
	if ((sampleRate < 8000) || (sampleRate > 192000) || (channels < 1) || (channels > 2) ||
	    lp->audio || lp->threadStarted)
		return FALSE;
	LpAudio* audio = calloc(1, sizeof(LpAudio));
	if (!audio)
		return FALSE;
	audio->mode = mode;
	audio->format = (AUDIO_FORMAT){ .wFormatTag = WAVE_FORMAT_PCM,
		                            .nChannels = (UINT16)channels,
		                            .nSamplesPerSec = sampleRate,
		                            .nAvgBytesPerSec = sampleRate * channels * 2u,
		                            .nBlockAlign = (UINT16)(channels * 2u),
		                            .wBitsPerSample = 16 };
	/* FreeRDP's tag and framing (one packet per wave); Opus's clock is 48 kHz whatever the capture's */
	audio->opus = (AUDIO_FORMAT){ .wFormatTag = WAVE_FORMAT_OPUS,
		                          .nChannels = (UINT16)channels,
		                          .nSamplesPerSec = 48000,
		                          .nAvgBytesPerSec = LP_OPUS_AVG_BYTES_PER_SEC,
		                          .nBlockAlign = (UINT16)(channels * 2u),
		                          .wBitsPerSample = 16 };
	audio->offerOpus = opus;
	pthread_mutex_init(&audio->lock, NULL);
	audio->queued = CreateEventA(NULL, TRUE, FALSE, NULL);
	audio->snd = rdpsnd_server_context_new(lp->vcm);
	lp->audio = audio;
	/* the context frees its formats list: it must be its own allocation */
	const size_t formats = opus ? 2 : 1;
	if (audio->snd)
		audio->snd->server_formats = audio_formats_new(formats);
	if (!audio->queued || !audio->snd || !audio->snd->server_formats)
	{
		lp_audio_free(lp);
		return FALSE;
	}
	/* the client lists what it takes in our order: Opus first, PCM for a client without it */
	if (opus)
		audio->snd->server_formats[0] = audio->opus;
	audio->snd->server_formats[formats - 1] = audio->format;
	audio->snd->num_server_formats = formats;
	audio->snd->src_format = &audio->format;
	audio->snd->latency = LP_AUDIO_BLOCK_MS;
	audio->snd->use_dynamic_virtual_channel = (mode == LP_AUDIO_DYNAMIC);
	audio->snd->rdpcontext = &lp->context;
	audio->snd->data = lp;
	return TRUE;
}

void lp_audio_free(LpContext* lp)
{
	LpAudio* audio = lp->audio;
	if (!audio)
		return;
	if (audio->snd)
	{
		if (audio->started)
			(void)audio->snd->Stop(audio->snd);
		rdpsnd_server_context_free(audio->snd);
	}
	while (audio->head)
	{
		LpAudioChunk* next = audio->head->next;
		chunk_free(audio->head);
		audio->head = next;
	}
	if (audio->queued)
		(void)CloseHandle(audio->queued);
	pthread_mutex_destroy(&audio->lock);
	free(audio);
	lp->audio = NULL;
}

/* The index of `want` in the client's list, or -1. */
static int client_format_index(const RdpsndServerContext* snd, const AUDIO_FORMAT* want)
{
	for (UINT16 i = 0; i < snd->num_client_formats; i++)
	{
		if (audio_format_compatible(want, &snd->client_formats[i]) &&
		    (snd->client_formats[i].wBitsPerSample == want->wBitsPerSample))
			return i;
	}
	return -1;
}

/* The client listed its formats (and, from version 7, its quality mode): Opus
 * when offered and listed (Wave2 PDUs only: version 8 and up), else our PCM
 * when listed exactly, or nothing is sent. */
static void on_activated(RdpsndServerContext* snd)
{
	LpContext* lp = snd->data;
	LpAudio* audio = lp->audio;
	int index = -1;
	BOOL opus = FALSE;
	if (audio->offerOpus && (snd->clientVersion >= LP_RDPSND_VERSION_WIN_8))
	{
		index = client_format_index(snd, &audio->opus);
		opus = (index >= 0);
	}
	if (index < 0)
		index = client_format_index(snd, &audio->format);
	if ((index >= 0) && (snd->SelectFormat(snd, (UINT16)index) == CHANNEL_RC_OK))
	{
		audio->formatNo = (UINT16)index;
		atomic_store(&audio->opusChosen, opus);
		atomic_store(&audio->ready, 1);
		const AUDIO_FORMAT* chosen = opus ? &audio->opus : &audio->format;
		lt_post_event(lp->id, LP_EVENT_AUDIO_READY, (intptr_t)chosen->nSamplesPerSec,
		              (intptr_t)chosen->nChannels, snd->clientVersion,
		              (audio->mode == LP_AUDIO_DYNAMIC) | (opus << 1));
		return;
	}
	lt_post_event(lp->id, LP_EVENT_AUDIO_REFUSED, (intptr_t)snd->num_client_formats, 0,
	              snd->clientVersion, 0);
}

static UINT on_confirm_block(RdpsndServerContext* snd, BYTE block, UINT16 timestamp)
{
	LpContext* lp = snd->data;
	lt_post_event(lp->id, LP_EVENT_AUDIO_CONFIRMED, block, timestamp, 0, 0);
	return CHANNEL_RC_OK;
}

BOOL lp_audio_poll(LpContext* lp)
{
	LpAudio* audio = lp->audio;
	if (!audio || audio->started || (audio->mode == LP_AUDIO_OFF) || !lp->peer->activated)
		return TRUE;
	if (audio->mode == LP_AUDIO_STATIC)
	{
		/* a client that did not ask for the channel gets no sound, and the picture goes on */
		if (!WTSVirtualChannelManagerIsChannelJoined(lp->vcm, RDPSND_CHANNEL_NAME))
			return TRUE;
	}
	else if (!WTSVirtualChannelManagerIsChannelJoined(lp->vcm, DRDYNVC_SVC_CHANNEL_NAME) ||
	         (WTSVirtualChannelManagerGetDrdynvcState(lp->vcm) != DRDYNVC_STATE_READY))
		return TRUE;
	audio->snd->Activated = on_activated;
	audio->snd->ConfirmBlock = on_confirm_block;
	/* no thread of its own: the peer thread reads the channel (lp_audio_event) */
	if (audio->snd->Initialize(audio->snd, FALSE) != CHANNEL_RC_OK)
	{
		/* sound is not worth the picture: say so and go on without it */
		lt_post_event(lp->id, LP_EVENT_AUDIO_REFUSED, 0, 0, 0, 0);
		audio->mode = LP_AUDIO_OFF;
		return TRUE;
	}
	audio->started = TRUE;
	return TRUE;
}

HANDLE lp_audio_event(LpContext* lp)
{
	LpAudio* audio = lp->audio;
	return (audio && audio->started) ? rdpsnd_server_get_event_handle(audio->snd) : NULL;
}

HANDLE lp_audio_queue_event(LpContext* lp)
{
	LpAudio* audio = lp->audio;
	return (audio && atomic_load(&audio->ready)) ? audio->queued : NULL;
}

BOOL lp_audio_handle_messages(LpContext* lp)
{
	HANDLE event = lp_audio_event(lp);
	if (!event)
		return TRUE;
	/* one call reads one header or one body; a bounded number per wake-up */
	for (int i = 0; (i < 64) && (WaitForSingleObject(event, 0) == WAIT_OBJECT_0); i++)
	{
		const UINT rc = rdpsnd_server_handle_messages(lp->audio->snd);
		if (rc == ERROR_NO_DATA)
			break;
		if (rc != CHANNEL_RC_OK)
			return FALSE;
	}
	return TRUE;
}

BOOL lp_audio_matches(LpContext* lp, UINT32 sampleRate, UINT32 channels)
{
	const LpAudio* audio = lp->audio;
	return audio && (audio->format.nSamplesPerSec == sampleRate) &&
	       (audio->format.nChannels == channels);
}

/* Appends a chunk unless the queue holds its caps (bytes, and about 5 s of frames): 0 or a refusal. */
static int queue_chunk(LpAudio* audio, LpAudioChunk* chunk, size_t bytes)
{
	pthread_mutex_lock(&audio->lock);
	if ((audio->queuedBytes + bytes > LP_AUDIO_QUEUE_CAP) ||
	    (audio->queuedFrames + chunk->frames > LP_AUDIO_QUEUE_FRAMES))
	{
		pthread_mutex_unlock(&audio->lock);
		chunk_free(chunk);
		return LP_AUDIO_REFUSED_FULL;
	}
	if (audio->tail)
		audio->tail->next = chunk;
	else
		audio->head = chunk;
	audio->tail = chunk;
	audio->queuedBytes += bytes;
	audio->queuedFrames += chunk->frames;
	(void)SetEvent(audio->queued); /* wakes the peer thread */
	pthread_mutex_unlock(&audio->lock);
	return 0;
}

/* Why nothing can be queued now: the audio is off or the client not ready; 0 when it can. */
static int audio_refusal(LpAudio* audio)
{
	if (!audio || (audio->mode == LP_AUDIO_OFF))
		return LP_AUDIO_REFUSED_OFF;
	if (!atomic_load(&audio->ready))
		return LP_AUDIO_REFUSED_NOT_READY;
	return 0;
}

/* A chunk of frames from timestampMs on that takes data over (the caller
 * says where it goes); NULL, with data freed and *refusal set, when
 * *refusal already holds a reason or no memory is left (full). */
static LpAudioChunk* take_chunk(void* data, size_t frames, UINT32 timestampMs, int* refusal)
{
	LpAudioChunk* chunk = (*refusal == 0) ? calloc(1, sizeof(LpAudioChunk)) : NULL;
	if (!chunk)
	{
		free(data);
		if (*refusal == 0)
			*refusal = LP_AUDIO_REFUSED_FULL;
		return NULL;
	}
	chunk->frames = frames;
	chunk->timestampMs = timestampMs;
	return chunk;
}

int lp_audio_queue(LpContext* lp, INT16* samples, size_t frames, UINT32 timestampMs)
{
	LpAudio* audio = lp->audio;
	int refusal = audio_refusal(audio);
	/* the client chose Opus: the page must send packets */
	if ((refusal == 0) && atomic_load(&audio->opusChosen))
		refusal = LP_AUDIO_REFUSED_BAD;
	LpAudioChunk* chunk = take_chunk(samples, frames, timestampMs, &refusal);
	if (!chunk)
		return refusal;
	chunk->samples = samples;
	return queue_chunk(audio, chunk, frames * audio->format.nBlockAlign);
}

int lp_audio_queue_packet(LpContext* lp, BYTE* packet, size_t length, size_t frames,
                          UINT32 timestampMs)
{
	LpAudio* audio = lp->audio;
	int refusal = audio_refusal(audio);
	if ((refusal == 0) && (!atomic_load(&audio->opusChosen) || (length == 0) ||
	                       (length > LP_OPUS_MAX_BYTES) || (frames == 0) ||
	                       (frames > LP_OPUS_MAX_FRAMES)))
		refusal = LP_AUDIO_REFUSED_BAD;
	LpAudioChunk* chunk = take_chunk(packet, frames, timestampMs, &refusal);
	if (!chunk)
		return refusal;
	chunk->packet = packet;
	chunk->packetBytes = length;
	return queue_chunk(audio, chunk, length);
}

/* One chunk: Wave2 pieces of at most 64 KiB, each with its own start time;
 * an older client gets FreeRDP's Wave path. Returns FALSE when a send failed. */
static BOOL send_chunk(LpContext* lp, const LpAudioChunk* chunk)
{
	LpAudio* audio = lp->audio;
	RdpsndServerContext* snd = audio->snd;
	const size_t frameBytes = audio->format.nBlockAlign;
	const BYTE firstBlock = snd->block_no;
	if (chunk->packet)
	{
		/* one Opus packet, one Wave2 PDU, the bytes as the page's encoder made them */
		if (snd->SendSamples2(snd, audio->formatNo, chunk->packet, chunk->packetBytes,
		                      (UINT16)(chunk->timestampMs & 0xFFFFu), chunk->timestampMs) != CHANNEL_RC_OK)
			return FALSE;
	}
	else if (snd->clientVersion < LP_RDPSND_VERSION_WIN_8)
	{
		if (snd->SendSamples(snd, chunk->samples, chunk->frames,
		                     (UINT16)(chunk->timestampMs & 0xFFFFu)) != CHANNEL_RC_OK)
			return FALSE;
	}
	else
	{
		const size_t maxFrames = LP_WAVE2_MAX_DATA / frameBytes;
		for (size_t done = 0; done < chunk->frames;)
		{
			const size_t n = MIN(maxFrames, chunk->frames - done);
			const UINT32 ts =
			    chunk->timestampMs +
			    (UINT32)((UINT64)done * 1000u / audio->format.nSamplesPerSec);
			if (snd->SendSamples2(snd, audio->formatNo, (const BYTE*)chunk->samples + done * frameBytes,
			                      n * frameBytes, (UINT16)(ts & 0xFFFFu), ts) != CHANNEL_RC_OK)
				return FALSE;
			done += n;
		}
	}
	const int blocks = (BYTE)(snd->block_no - firstBlock);
	lt_post_event(lp->id, LP_EVENT_AUDIO_SENT, firstBlock, blocks, (int)chunk->timestampMs,
	              (int)chunk->frames);
	return TRUE;
}

void lp_audio_send_pending(LpContext* lp)
{
	LpAudio* audio = lp->audio;
	if (!audio || !atomic_load(&audio->ready))
		return;
	for (;;)
	{
		pthread_mutex_lock(&audio->lock);
		LpAudioChunk* chunk = audio->head;
		if (chunk)
		{
			audio->head = chunk->next;
			if (!audio->head)
				audio->tail = NULL;
			audio->queuedBytes -= chunk->packet ? chunk->packetBytes : chunk->frames * audio->format.nBlockAlign;
			audio->queuedFrames -= chunk->frames;
		}
		else
			(void)ResetEvent(audio->queued);
		pthread_mutex_unlock(&audio->lock);
		if (!chunk)
			return;
		if (!send_chunk(lp, chunk))
			lt_post_event(lp->id, LP_EVENT_AUDIO_DROPPED, (int)chunk->timestampMs,
			              (int)chunk->frames, 0, 0);
		chunk_free(chunk);
	}
}
