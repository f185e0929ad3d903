#include "session.h"

#include <stdlib.h>
#include <string.h>

#include <freerdp/channels/channels.h>
#include <freerdp/client/channels.h>
#include <freerdp/gdi/gdi.h>
#include <winpr/sysinfo.h>

#include "audio_output.h"
#include "channel_transport.h"
#include "channel_watch.h"
#include "clipboard_handshake.h"
#include "display_control.h"
#include "mouse_input.h"
#include "frame_output.h"
#include "heap_guard.h"
#include "js_events.h"
#include "pointer_output.h"
#include "rdp_thread.h"
#include "session_errors.h"
#include "touch_input.h"
#include "video_decoder.h"

/* Room for several 256 KiB gateway frames; JS queues what does not fit. */
#define LT_RING_CAPACITY (8u * 1024u * 1024u)

static BOOL lt_pre_connect(freerdp* instance)
{
	rdpContext* context = instance->context;
	return lt_channel_watch(context, freerdp_client_OnChannelConnectedEventHandler,
	                        freerdp_client_OnChannelDisconnectedEventHandler) &&
	       lt_channel_watch(context, lt_clipboard_handshake_on_connected,
	                        lt_clipboard_handshake_on_disconnected) &&
	       lt_video_decoder_install((LtContext*)context) &&
	       lt_display_control_install((LtContext*)context) &&
	       lt_touch_input_install((LtContext*)context);
}

static BOOL lt_post_connect(freerdp* instance)
{
	LtContext* lt = (LtContext*)instance->context;
	const UINT32 format =
	    (lt->pixelLayout == LT_PIXELS_RGBX) ? PIXEL_FORMAT_RGBX32 : PIXEL_FORMAT_BGRX32;
	if (!gdi_init(instance, format))
		return FALSE;
	if (!lt_pointer_output_install(lt))
		return FALSE;
	lt_frame_output_install(lt);
	return TRUE;
}

static void lt_post_disconnect(freerdp* instance)
{
	rdpContext* context = instance->context;
	lt_channel_unwatch(context, freerdp_client_OnChannelConnectedEventHandler,
	                   freerdp_client_OnChannelDisconnectedEventHandler);
	lt_channel_unwatch(context, lt_clipboard_handshake_on_connected,
	                   lt_clipboard_handshake_on_disconnected);
	lt_video_decoder_uninstall((LtContext*)context);
	lt_display_control_uninstall((LtContext*)context);
	lt_touch_input_uninstall((LtContext*)context);
	gdi_free(instance);
}

static BOOL lt_client_new(freerdp* instance, WINPR_ATTR_UNUSED rdpContext* context)
{
	instance->PreConnect = lt_pre_connect;
	instance->PostConnect = lt_post_connect;
	instance->PostDisconnect = lt_post_disconnect;
	/* client-common's defaults prompt on stdin; a kiosk has no one to ask */
	instance->AuthenticateEx = NULL;
	instance->ChooseSmartcard = NULL;
	instance->VerifyCertificateEx = NULL;
	instance->VerifyChangedCertificateEx = NULL;
	instance->PresentGatewayMessage = NULL;
	instance->GetAccessToken = NULL;
	instance->RetryDialog = NULL;
	return TRUE;
}

static BOOL lt_default_settings(rdpSettings* settings)
{
	/* the gateway chose the server; FreeRDP only needs a name to carry around */
	return freerdp_settings_set_string(settings, FreeRDP_ServerHostname, "lanterna-gateway") &&
	       freerdp_settings_set_uint32(settings, FreeRDP_ServerPort, 3389) &&
	       freerdp_settings_set_uint32(settings, FreeRDP_ColorDepth, 32) &&
	       freerdp_settings_set_uint32(settings, FreeRDP_DesktopWidth, 1920) &&
	       freerdp_settings_set_uint32(settings, FreeRDP_DesktopHeight, 1080) &&
	       freerdp_settings_set_bool(settings, FreeRDP_SoftwareGdi, TRUE) &&
	       freerdp_settings_set_bool(settings, FreeRDP_RdpSecurity, FALSE) &&
	       freerdp_settings_set_bool(settings, FreeRDP_TlsSecurity, TRUE) &&
	       freerdp_settings_set_bool(settings, FreeRDP_NlaSecurity, TRUE) &&
	       freerdp_settings_set_bool(settings, FreeRDP_ExtSecurity, FALSE) &&
	       freerdp_settings_set_bool(settings, FreeRDP_AutoReconnectionEnabled, FALSE) &&
	       freerdp_settings_set_bool(settings, FreeRDP_SupportGraphicsPipeline, TRUE) &&
	       freerdp_settings_set_bool(settings, FreeRDP_GfxH264, FALSE) &&
	       freerdp_settings_set_bool(settings, FreeRDP_GfxAVC444, FALSE) &&
	       freerdp_settings_set_bool(settings, FreeRDP_GfxAVC444v2, FALSE) &&
	       freerdp_settings_set_bool(settings, FreeRDP_GfxProgressive, TRUE) &&
	       freerdp_settings_set_bool(settings, FreeRDP_GfxPlanar, TRUE) &&
	       freerdp_settings_set_bool(settings, FreeRDP_RemoteFxCodec, TRUE) &&
	       freerdp_settings_set_bool(settings, FreeRDP_SupportDisplayControl, TRUE) &&
	       /* RDPEI, taken when a server opens it (touch_input.h) */
	       freerdp_settings_set_bool(settings, FreeRDP_MultiTouchInput, TRUE) &&
	       lt_clipboard_handshake_settings(settings) &&
	       freerdp_settings_set_bool(settings, FreeRDP_AudioPlayback, FALSE) &&
	       freerdp_settings_set_bool(settings, FreeRDP_DeviceRedirection, FALSE);
}

LtContext* lt_session_create(void)
{
	RDP_CLIENT_ENTRY_POINTS entry = { 0 };
	entry.Version = RDP_CLIENT_INTERFACE_VERSION;
	entry.Size = sizeof(RDP_CLIENT_ENTRY_POINTS_V1);
	entry.ContextSize = sizeof(LtContext);
	entry.ClientNew = lt_client_new;

	rdpContext* context = freerdp_client_context_new(&entry);
	if (!context)
		return NULL;
	lt_audio_output_register();
	LtContext* lt = (LtContext*)context;
	lt->id = (intptr_t)lt;
	lt->pixelLayout = LT_PIXELS_BGRX;
	lt->waitFrameAck = TRUE;
	lt->frameAckTimeoutMs = 1000;
	lt->connectTimeoutMs = 20000;
	pthread_mutex_init(&lt->keyLock, NULL);
	lt->ring = lt_ring_new(LT_RING_CAPACITY);
	lt->frameAck = CreateEventA(NULL, TRUE, FALSE, NULL); /* WinPR has manual-reset events only */
	lt->audioPlayed = CreateEventA(NULL, TRUE, FALSE, NULL);
	lt->audioAckTimeoutMs = 500;
	const BOOL mouse = lt_mouse_input_init(lt);
	const BOOL touch = lt_touch_input_init(lt);
	if (!mouse || !touch || !lt->ring || !lt->frameAck || !lt->audioPlayed || !lt_default_settings(context->settings) ||
	    !lt_channel_transport_install(lt))
	{
		lt_session_destroy(lt);
		return NULL;
	}
	return lt;
}

void lt_session_destroy(LtContext* lt)
{
	if (!lt)
		return;
	lt_rdp_thread_join(lt->thread, lt->threadStarted);
	LtReceiveRing* ring = lt->ring;
	HANDLE frameAck = lt->frameAck;
	HANDLE audioPlayed = lt->audioPlayed;
	BYTE* key = lt->publicKey;
	pthread_mutex_destroy(&lt->keyLock);
	lt_mouse_input_free(lt);
	lt_touch_input_free(lt);
	freerdp_client_context_free(&lt->common.context);
	lt_ring_free(ring);
	if (frameAck)
		(void)CloseHandle(frameAck);
	if (audioPlayed)
		(void)CloseHandle(audioPlayed);
	free(key);
}

BOOL lt_session_store_public_key(LtContext* lt, const BYTE* key, size_t length)
{
	BYTE* copy = malloc(length);
	if (!copy || (length == 0) || (length > UINT32_MAX))
	{
		free(copy);
		return FALSE;
	}
	memcpy(copy, key, length);
	pthread_mutex_lock(&lt->keyLock);
	free(lt->publicKey);
	lt->publicKey = copy;
	lt->publicKeyLength = (DWORD)length;
	pthread_mutex_unlock(&lt->keyLock);
	return TRUE;
}

static int lt_reason(LtContext* lt, UINT32 lastError)
{
	if (atomic_load(&lt->stopRequested))
		return LT_REASON_STOPPED;
	/* whatever FreeRDP made of a NULL from malloc (a channel error, a failed
	 * connect), the cause is the heap */
	if (lt_heap_failures() != lt->heapFailuresAtStart)
		return LT_REASON_OUT_OF_MEMORY;
	if (atomic_load(&lt->timedOut))
		return LT_REASON_TIMEOUT;
	const int video = atomic_load(&lt->videoFailure);
	if (video != 0)
		return video;
	/* FreeRDP says "transport failed" both when the stream ended and when it
	 * could not parse what came; only the ring knows which */
	if ((lastError == FREERDP_ERROR_CONNECT_TRANSPORT_FAILED) && !lt_ring_closed(lt->ring))
		return LT_REASON_PROTOCOL_ERROR;
	return lt_reason_for_error(lastError);
}

static void lt_run_event_loop(LtContext* lt)
{
	rdpContext* context = &lt->common.context;
	while (!freerdp_shall_disconnect_context(context))
	{
		HANDLE handles[MAXIMUM_WAIT_OBJECTS] = { 0 };
		DWORD count = freerdp_get_event_handles(context, handles, ARRAYSIZE(handles) - 2);
		if (count == 0)
			break;
		/* the page's pointer events go out as soon as they are queued, not at the next tick */
		handles[count++] = lt_mouse_input_event(lt);
		handles[count++] = lt_touch_input_event(lt);
		/* the timeout also drives FreeRDP's timers: there are no waitable timers here */
		if (WaitForMultipleObjects(count, handles, FALSE, 100) == WAIT_FAILED)
			break;
		if (!freerdp_check_event_handles(context))
			break;
		lt_display_control_poll(lt);
		lt_mouse_input_flush(lt);
		lt_touch_input_flush(lt);
		/* an allocation failed somewhere (maybe on a channel's thread, where
		 * FreeRDP may log it and go on with a picture missing): end the
		 * session rather than show a desktop that no longer updates */
		if (lt_heap_failures() != lt->heapFailuresAtStart)
			break;
	}
}

static void* lt_session_main(void* arg)
{
	LtContext* lt = arg;
	rdpContext* context = &lt->common.context;
	freerdp* instance = context->instance;

	lt->heapFailuresAtStart = lt_heap_failures();
	lt->connectDeadline = GetTickCount64() + lt->connectTimeoutMs;
	if (freerdp_connect(instance))
	{
		atomic_store(&lt->connected, 1);
		lt_post_event(lt->id, LT_EVENT_CONNECTED, (int)context->gdi->width,
		              (int)context->gdi->height, 0, 0);
		lt_run_event_loop(lt);
	}
	/* a stop asked for by the page: tell the server, from the thread that owns the transport */
	if (atomic_load(&lt->stopRequested))
		(void)freerdp_abort_connect_context(context);
	UINT32 lastError = freerdp_get_last_error(context);
	if ((lt->layerConnects > 1) && (lt->layerCloseError != FREERDP_ERROR_SUCCESS))
		lastError = lt->layerCloseError; /* what failed, not the refused retry */
	int reason = lt_reason(lt, lastError);
	(void)freerdp_disconnect(instance);
	/* the GFX channel's thread may still have been decoding what it queued when
	 * this thread saw the input end; a video failure there is the better reason */
	const int video = atomic_load(&lt->videoFailure);
	if ((video != 0) && (reason != LT_REASON_STOPPED))
		reason = video;
	/* a decode that failed for want of memory is no video failure */
	if ((reason != LT_REASON_STOPPED) && (lt_heap_failures() != lt->heapFailuresAtStart))
		reason = LT_REASON_OUT_OF_MEMORY;
	lt_post_event(lt->id, LT_EVENT_DISCONNECTED, reason, (int)lastError, 0, 0);
	return NULL;
}

BOOL lt_session_start(LtContext* lt)
{
	return lt_rdp_thread_start(&lt->thread, &lt->threadStarted, lt_session_main, lt);
}

/* Called on the page's thread. It only raises flags and events: the session
 * thread owns the transport, and freerdp_abort_connect_context writes the
 * disconnect ultimatum through it, which raced the thread's own teardown
 * (a trap calling the freed transport layer's function pointer). */
void lt_session_stop(LtContext* lt)
{
	atomic_store(&lt->stopRequested, 1);
	(void)SetEvent(freerdp_abort_event(&lt->common.context));
	(void)SetEvent(lt->frameAck);
	(void)SetEvent(lt->audioPlayed);
}
