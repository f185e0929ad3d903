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
/* FreeRDP's Wave (pre-8) path cuts the stream into blocks of this many ms */
#define LP_AUDIO_BLOCK_MS 50

typedef struct LpAudioChunk
{
	INT16* samples;
	size_t frames;
	UINT32 timestampMs;
	struct LpAudioChunk* next;
} LpAudioChunk;

struct LpAudio
{
	int mode;
	AUDIO_FORMAT format; /* the PCM JS sends and the one format offered */
	RdpsndServerContext* snd;
	BOOL started;
	atomic_int ready; /* the client chose our format */
	UINT16 formatNo;  /* its index in the client's list */

	pthread_mutex_t lock;
	LpAudioChunk* head;
	LpAudioChunk* tail;
	size_t queuedBytes;
	HANDLE queued; /* set while chunks wait */
};

static void chunk_free(LpAudioChunk* chunk)
{
	free(chunk->samples);
	free(chunk);
}

BOOL lp_audio_configure(LpContext* lp, int mode, UINT32 sampleRate, UINT32 channels)
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
	pthread_mutex_init(&audio->lock, NULL);
	audio->queued = CreateEventA(NULL, TRUE, FALSE, NULL);
	audio->snd = rdpsnd_server_context_new(lp->vcm);
	lp->audio = audio;
	/* the context frees its formats list: it must be its own allocation */
	if (audio->snd)
		audio->snd->server_formats = audio_formats_new(1);
	if (!audio->queued || !audio->snd || !audio->snd->server_formats)
	{
		lp_audio_free(lp);
		return FALSE;
	}
	audio->snd->server_formats[0] = audio->format;
	audio->snd->num_server_formats = 1;
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

/* The client listed its formats (and, from version 7, its quality mode): ours
 * is taken only when the client lists it exactly, or nothing is sent. */
static void on_activated(RdpsndServerContext* snd)
{
	LpContext* lp = snd->data;
	LpAudio* audio = lp->audio;
	for (UINT16 i = 0; i < snd->num_client_formats; i++)
	{
		if (!audio_format_compatible(&audio->format, &snd->client_formats[i]) ||
		    (snd->client_formats[i].wBitsPerSample != 16))
			continue;
		if (snd->SelectFormat(snd, i) != CHANNEL_RC_OK)
			break;
		audio->formatNo = i;
		atomic_store(&audio->ready, 1);
		lt_post_event(lp->id, LP_EVENT_AUDIO_READY, (intptr_t)audio->format.nSamplesPerSec,
		              (intptr_t)audio->format.nChannels, snd->clientVersion,
		              audio->mode == LP_AUDIO_DYNAMIC);
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

int lp_audio_queue(LpContext* lp, INT16* samples, size_t frames, UINT32 timestampMs)
{
	LpAudio* audio = lp->audio;
	if (!audio || (audio->mode == LP_AUDIO_OFF))
	{
		free(samples);
		return LP_AUDIO_REFUSED_OFF;
	}
	if (!atomic_load(&audio->ready))
	{
		free(samples);
		return LP_AUDIO_REFUSED_NOT_READY;
	}
	const size_t bytes = frames * audio->format.nBlockAlign;
	LpAudioChunk* chunk = calloc(1, sizeof(LpAudioChunk));
	if (!chunk)
	{
		free(samples);
		return LP_AUDIO_REFUSED_FULL;
	}
	chunk->samples = samples;
	chunk->frames = frames;
	chunk->timestampMs = timestampMs;
	pthread_mutex_lock(&audio->lock);
	if (audio->queuedBytes + bytes > LP_AUDIO_QUEUE_CAP)
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
	(void)SetEvent(audio->queued); /* wakes the peer thread */
	pthread_mutex_unlock(&audio->lock);
	return 0;
}

/* One chunk: Wave2 pieces of at most 64 KiB, each with its own start time;
 * an older client gets FreeRDP's Wave path. Returns FALSE when a send failed. */
static BOOL send_chunk(LpContext* lp, const LpAudioChunk* chunk)
{
	LpAudio* audio = lp->audio;
	RdpsndServerContext* snd = audio->snd;
	const size_t frameBytes = audio->format.nBlockAlign;
	const BYTE firstBlock = snd->block_no;
	if (snd->clientVersion < LP_RDPSND_VERSION_WIN_8)
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
			audio->queuedBytes -= chunk->frames * audio->format.nBlockAlign;
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
