#include "audio_output.h"

#include <stdlib.h>
#include <string.h>

#include <freerdp/addin.h>
#include <freerdp/channels/rdpsnd.h>
#include <freerdp/client/channels.h>
#include <freerdp/client/cmdline.h>
#include <freerdp/client/rdpsnd.h>
#include <freerdp/codec/audio.h>

#include "js_events.h"

#define LT_AUDIO_SUBSYSTEM "lanterna"

/* What a wave may be: the formats a page can play without help. */
#define LT_AUDIO_MAX_CHANNELS 8
#define LT_AUDIO_MIN_RATE 8000
#define LT_AUDIO_MAX_RATE 192000
/* One Wave2 PDU carries at most 64 KiB (128 KiB once 8-bit PCM is widened); a
 * Wave PDU's body size is 16 bits too: anything bigger is not a wave */
#define LT_AUDIO_MAX_WAVE_BYTES (256u * 1024u)
/* An Opus packet ([RFC 6716] 3): at most 120 ms, and frames of at most 1,275
 * bytes; six 20 ms frames at the codec's top rate fit in this */
#define LT_AUDIO_MAX_OPUS_BYTES 7680u
/* 120 ms at Opus's 48 kHz clock */
#define LT_AUDIO_MAX_OPUS_FRAMES 5760u

typedef struct
{
	rdpsndDevicePlugin device; /* first: FreeRDP's */
	LtContext* lt;
	AUDIO_FORMAT format; /* what Open was given: the PCM or Opus the waves arrive in */
	BOOL open;
} LtAudioDevice;

static BOOL is_playable_pcm(const AUDIO_FORMAT* format)
{
	return (format->wFormatTag == WAVE_FORMAT_PCM) && (format->wBitsPerSample == 16) &&
	       (format->nChannels >= 1) && (format->nChannels <= LT_AUDIO_MAX_CHANNELS) &&
	       (format->nSamplesPerSec >= LT_AUDIO_MIN_RATE) &&
	       (format->nSamplesPerSec <= LT_AUDIO_MAX_RATE) &&
	       (format->nBlockAlign == format->nChannels * 2);
}

/* Opus under FreeRDP's tag, one packet per wave (as FreeRDP's own encoder and
 * decoder frame it), at Opus's 48 kHz clock: the page decodes it (WebCodecs
 * AudioDecoder), so the device claims it only when the page said it can. */
static BOOL is_opus(const AUDIO_FORMAT* format)
{
	return (format->wFormatTag == WAVE_FORMAT_OPUS) && (format->nSamplesPerSec == 48000) &&
	       (format->nChannels >= 1) && (format->nChannels <= 2);
}

static BOOL device_takes(const LtAudioDevice* dev, const AUDIO_FORMAT* format)
{
	return is_playable_pcm(format) || (dev->lt->audioOpus && is_opus(format));
}

static BOOL device_format_supported(rdpsndDevicePlugin* device, const AUDIO_FORMAT* format)
{
	return device_takes((LtAudioDevice*)device, format);
}

/* The frames (at 48 kHz) an Opus packet holds, from its TOC byte and frame
 * count ([RFC 6716] 3.1, 3.2); 0 for what cannot be an Opus packet (empty, a
 * frame count of 0, more than 120 ms, a code 1 packet of odd length). Nothing
 * here decodes: a packet that parses can still fail in the page's decoder. */
static UINT32 opus_packet_frames(const BYTE* data, size_t size)
{
	static const UINT32 silk[4] = { 480, 960, 1920, 2880 };
	static const UINT32 celt[4] = { 120, 240, 480, 960 };
	if ((size == 0) || (size > LT_AUDIO_MAX_OPUS_BYTES))
		return 0;
	const BYTE config = data[0] >> 3;
	const UINT32 frameSize =
	    (config < 12) ? silk[config & 3] : (config < 16) ? ((config & 1) ? 960u : 480u) : celt[config & 3];
	UINT32 count = 1;
	switch (data[0] & 3)
	{
		case 0:
			break;
		case 1:
			if ((size - 1) % 2 != 0)
				return 0;
			count = 2;
			break;
		case 2:
			if (size < 2)
				return 0;
			count = 2;
			break;
		default:
			if (size < 2)
				return 0;
			count = data[1] & 0x3F;
			break;
	}
	const UINT32 frames = count * frameSize;
	return ((count == 0) || (frames > LT_AUDIO_MAX_OPUS_FRAMES)) ? 0 : frames;
}

/* For a format the device does not take as it is: the 16-bit PCM it is handed
 * on as. Only 8-bit PCM gets here (FreeRDP's "decoder" passes PCM through and
 * the client lists no other format): device_play_wave widens it. */
static BOOL device_default_format(WINPR_ATTR_UNUSED rdpsndDevicePlugin* device,
                                  const AUDIO_FORMAT* desired, AUDIO_FORMAT* pcm)
{
	if ((desired->wFormatTag != WAVE_FORMAT_PCM) || (desired->wBitsPerSample != 8))
		return FALSE;
	*pcm = (AUDIO_FORMAT){ .wFormatTag = WAVE_FORMAT_PCM,
		                   .nChannels = desired->nChannels,
		                   .nSamplesPerSec = desired->nSamplesPerSec,
		                   .wBitsPerSample = 16,
		                   .nBlockAlign = (UINT16)(desired->nChannels * 2),
		                   .nAvgBytesPerSec = desired->nSamplesPerSec * desired->nChannels * 2u };
	return is_playable_pcm(pcm);
}

static BOOL device_open(rdpsndDevicePlugin* device, const AUDIO_FORMAT* format,
                        WINPR_ATTR_UNUSED UINT32 latency)
{
	LtAudioDevice* dev = (LtAudioDevice*)device;
	if (!device_takes(dev, format))
		return FALSE;
	dev->format = *format;
	dev->format.cbSize = 0;
	dev->format.data = NULL;
	dev->open = TRUE;
	return TRUE;
}

static void device_close(rdpsndDevicePlugin* device)
{
	((LtAudioDevice*)device)->open = FALSE;
}

/* Volume is the admin's and the page's (later work): the server's requests
 * are taken, not applied. */
static BOOL device_set_volume(WINPR_ATTR_UNUSED rdpsndDevicePlugin* device,
                              WINPR_ATTR_UNUSED UINT32 value)
{
	return TRUE;
}

static UINT32 device_get_volume(WINPR_ATTR_UNUSED rdpsndDevicePlugin* device)
{
	return 0xFFFFFFFFu; /* both channels full */
}

static void device_free(rdpsndDevicePlugin* device)
{
	free(device);
}

/* Runs on the channel's play thread (FreeRDP's rdpsnd is asynchronous), so
 * waiting here holds only the sound. Returns the ms until the wave is heard,
 * which FreeRDP adds to the time it spent here in the second Wave Confirm. */
static UINT device_play_wave(rdpsndDevicePlugin* device, const AUDIO_FORMAT* wire,
                             const BYTE* data, size_t size, UINT16 wTimeStamp,
                             UINT32 dwAudioTimeStamp, BYTE cBlockNo)
{
	LtAudioDevice* dev = (LtAudioDevice*)device;
	LtContext* lt = dev->lt;
	/* 8-bit PCM (unsigned, [MS-RDPEA] via WAVEFORMATEX) is handed on as 16-bit */
	const BOOL widen = (wire->wFormatTag == WAVE_FORMAT_PCM) && (wire->wBitsPerSample == 8);
	const BOOL opus = dev->open && (dev->format.wFormatTag == WAVE_FORMAT_OPUS);
	const size_t bytes = widen ? size * 2 : size;
	if (atomic_load(&lt->stopRequested))
		return 0;
	/* a packet the page's decoder would refuse is dropped here, counted, before it costs a hand-over */
	const UINT32 frames = opus ? opus_packet_frames(data, size)
	                           : (dev->open ? (UINT32)(bytes / dev->format.nBlockAlign) : 0);
	if (!dev->open || (size == 0) || (bytes > LT_AUDIO_MAX_WAVE_BYTES) || (frames == 0) ||
	    (!opus && (bytes % dev->format.nBlockAlign != 0)))
	{
		atomic_fetch_add(&lt->droppedAudio, 1);
		return 0;
	}
	int32_t* record = malloc(LT_AUDIO_HEADER_WORDS * sizeof(int32_t) + bytes);
	if (!record)
	{
		atomic_fetch_add(&lt->droppedAudio, 1);
		return 0;
	}
	const UINT32 seq = atomic_load(&lt->audioSeq) + 1;
	record[0] = (int32_t)seq;
	record[1] = wTimeStamp;
	record[2] = (int32_t)dwAudioTimeStamp;
	record[3] = cBlockNo;
	record[4] = dev->format.nChannels;
	record[5] = (int32_t)dev->format.nSamplesPerSec;
	record[6] = dev->format.wBitsPerSample;
	record[7] = (int32_t)bytes;
	record[8] = dev->format.wFormatTag;
	record[9] = (int32_t)frames;
	if (widen)
	{
		INT16* out = (INT16*)&record[LT_AUDIO_HEADER_WORDS];
		for (size_t i = 0; i < size; i++)
			out[i] = (INT16)((data[i] - 128) * 256);
	}
	else
		memcpy(&record[LT_AUDIO_HEADER_WORDS], data, size);

	/* the same order as a frame's wait (frame_output.c): reset, then the stop
	 * flag, then post, so neither a stop nor JS's answer is lost */
	(void)ResetEvent(lt->audioPlayed);
	atomic_store(&lt->audioSeq, seq); /* from here JS's answer for this wave counts */
	if (atomic_load(&lt->stopRequested))
	{
		free(record);
		return 0;
	}
	lt_post_event(lt->id, LT_EVENT_AUDIO, (intptr_t)record, 0, 0, 0);
	if (WaitForSingleObject(lt->audioPlayed, lt->audioAckTimeoutMs) == WAIT_TIMEOUT)
	{
		atomic_fetch_add(&lt->lateAudioAcks, 1);
		return 0;
	}
	return atomic_load(&lt->audioDelayMs);
}

/* The channel dropped a PDU (patch 0015: malformed, too long, or past its queue's
 * bound); the session's figures count it, the sound goes on. */
static void device_dropped(rdpsndDevicePlugin* device, WINPR_ATTR_UNUSED UINT reason)
{
	atomic_fetch_add(&((LtAudioDevice*)device)->lt->droppedAudio, 1);
}

static UINT VCAPITYPE device_entry(PFREERDP_RDPSND_DEVICE_ENTRY_POINTS entry)
{
	rdpContext* context = freerdp_rdpsnd_get_context(entry->rdpsnd);
	if (!context)
		return ERROR_INVALID_PARAMETER;
	LtAudioDevice* dev = calloc(1, sizeof(LtAudioDevice));
	if (!dev)
		return CHANNEL_RC_NO_MEMORY;
	dev->lt = (LtContext*)context;
	dev->device.FormatSupported = device_format_supported;
	dev->device.DefaultFormat = device_default_format;
	dev->device.Open = device_open;
	dev->device.Close = device_close;
	dev->device.SetVolume = device_set_volume;
	dev->device.GetVolume = device_get_volume;
	dev->device.Free = device_free;
	dev->device.PlayWave = device_play_wave; /* patch 0013 */
	dev->device.Dropped = device_dropped;    /* patch 0015 */
	entry->pRegisterRdpsndDevice(entry->rdpsnd, &dev->device);
	return CHANNEL_RC_OK;
}

static PVIRTUALCHANNELENTRY load_addin_entry(LPCSTR name, LPCSTR subsystem, LPCSTR type,
                                             DWORD flags)
{
	if (name && subsystem && (strcmp(name, RDPSND_CHANNEL_NAME) == 0) &&
	    (strcmp(subsystem, LT_AUDIO_SUBSYSTEM) == 0))
	{
		/* rdpsnd casts it back to a device entry before calling it (wasm checks the type) */
		PFREERDP_RDPSND_DEVICE_ENTRY entry = device_entry;
		return WINPR_FUNC_PTR_CAST(entry, PVIRTUALCHANNELENTRY);
	}
	return freerdp_channels_load_static_addin_entry(name, subsystem, type, flags);
}

void lt_audio_output_register(void)
{
	(void)freerdp_register_addin_provider(load_addin_entry, 0);
}

BOOL lt_audio_output_settings(rdpSettings* settings)
{
	/* client-common adds rdpsnd with its silent "fake" device only when none is
	 * there, so these come first; the server opens whichever variant it has */
	const char* const params[] = { RDPSND_CHANNEL_NAME, "sys:" LT_AUDIO_SUBSYSTEM };
	return freerdp_settings_set_bool(settings, FreeRDP_AudioPlayback, TRUE) &&
	       freerdp_client_add_static_channel(settings, ARRAYSIZE(params), params) &&
	       freerdp_client_add_dynamic_channel(settings, ARRAYSIZE(params), params);
}

void lt_audio_output_played(LtContext* lt, UINT32 seq, UINT32 delayMs)
{
	/* a late answer (its wave's wait gave up) must not end the next wave's wait */
	if (seq != atomic_load(&lt->audioSeq))
		return;
	atomic_store(&lt->audioDelayMs, delayMs);
	(void)SetEvent(lt->audioPlayed);
}
