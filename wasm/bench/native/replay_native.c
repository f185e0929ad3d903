/* The native twin of the wasm client for the replay benchmark: our glue
 * (../../src, js_events.c replaced by native_events.c) linked against a native
 * build of the same FreeRDP source and patches (../freerdp-native.sh), driven
 * through the same lt_* entry points lanternaRdp.js calls, and playing the
 * gateway's part as ../../js/recordingReplay.js does: the client's first PDU
 * (the X.224 Connection Request) is answered with `secured` and a Connection
 * Confirm selecting TLS, then every recorded server→client PDU goes into the
 * receive ring (retrying every 2 ms while it is full), then the input ends.
 * This main thread plays the JS thread: it takes the glue's events in order,
 * acknowledges each frame after copying its dirty rectangles, and times the
 * frames as ../replayTiming.mjs does on the wasm side: the copy into the shadow
 * (the benchmark's instrument, not the client's work) is timed by the same
 * clocks there and here and left out of ms per frame and CPU time.
 *
 * Usage: replay_native <recording.dump> [--single-threaded] [--warmup] [--picture FILE]
 *   --picture FILE     also writes the final picture as a binary PPM (RGB), the
 *                      picture the wasm client must match (e2e's H.264 replay test)
 *   --single-threaded  FreeRDP_ThreadingFlags = THREADING_FLAGS_DISABLE_THREADS
 *                      (no codec thread pool; the default uses it, as the kiosk does)
 *   --warmup           replay once untimed first (as the wasm side warms up)
 * Prints one JSON line on stdout. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include <freerdp/gdi/gdi.h>

#include "dump_reader.h"
#include "exports.h"
#include "frame_output.h"
#include "frame_shadow.h"
#include "js_events.h"
#include "native_events.h"
#include "session.h"

#define LT_REPLAY_DEADLINE_MS 120000
#define LT_FEED_RETRY_MS 2

/* What lanternaRdp.js configure() sets by default and recordingReplay.js adds
 * (the recorded client's static channels need cliprdr); keep in step with them. */
static const char* const SETTINGS[][2] = {
	{ "FreeRDP_DesktopWidth", "1920" },
	{ "FreeRDP_DesktopHeight", "1080" },
	{ "FreeRDP_ColorDepth", "32" },
	{ "FreeRDP_SupportGraphicsPipeline", "TRUE" },
	{ "FreeRDP_GfxPlanar", "TRUE" },
	{ "FreeRDP_RemoteFxCodec", "TRUE" },
	{ "FreeRDP_GfxProgressive", "TRUE" },
	{ "FreeRDP_GfxProgressiveV2", "TRUE" },
	{ "FreeRDP_GfxH264", "FALSE" },
	{ "FreeRDP_GfxAVC444", "FALSE" },
	{ "FreeRDP_GfxAVC444v2", "FALSE" },
	{ "FreeRDP_GfxCapsFilter", "8" }, /* RDPGFX_CAPVERSION_101 left out, as lanternaRdp.js does */
	{ "FreeRDP_RedirectClipboard", "TRUE" },
};

/* enum lt_reason → the names of REASONS in lanternaRdp.js (0 is not a reason) */
static const char* const REASONS[] = {
	"internal",       "closed",  "stopped",            "wrong-password", "auth-failed",
	"connection-reset", "protocol-error", "timeout", "negotiation-failed", "server-ended", "internal",
	"video-unsupported", "video-decode-failed",
};

typedef struct
{
	size_t frames;
	size_t clientPdus;
	size_t serverPdus;
	double startMs;
	double firstFrameMs;
	double lastFrameMs;
	double endMs;
	double cpuMs; /* the whole process, all threads, from session start to its end */
	double shadowSpanMs; /* wall time in shadow copies between the first and the last frame */
	double lastCopyMs;
	double shadowCpuMs; /* process CPU time in shadow copies, every frame */
	int reason;
	UINT32 width;
	UINT32 height;
	LtFrameShadow shadow;
} LtReplayResult;

typedef struct
{
	intptr_t handle;
	const LtDump* dump;
	size_t next; /* the next record to push */
	BOOL fed;
	BOOL inputClosed;
} LtFeeder;

static double cpu_ms(void)
{
	struct rusage usage;
	(void)getrusage(RUSAGE_SELF, &usage);
	return (double)(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) * 1000.0 +
	       (double)(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1000.0;
}

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1000.0 + (double)ts.tv_nsec / 1e6;
}

/* X.224 Connection Confirm with an RDP_NEG_RSP selecting TLS (PROTOCOL_SSL) */
static const BYTE TLS_CONNECTION_CONFIRM[] = {
	0x03, 0x00, 0x00, 0x13, 0x0e, 0xd0, 0x00, 0x00, 0x12, 0x34,
	0x00, 0x02, 0x00, 0x08, 0x00, 0x01, 0x00, 0x00, 0x00,
};

/* Pushes server PDUs until the ring is full (0: retry later) or all are in. */
static void feed(LtFeeder* f)
{
	while (f->next < f->dump->count)
	{
		const LtDumpRecord* r = &f->dump->records[f->next];
		if (!r->fromClient)
		{
			const int taken = lt_session_push(f->handle, r->data, (int)r->length);
			if (taken == 0)
				return;
			if (taken < 0)
			{
				f->next = f->dump->count;
				break;
			}
		}
		f->next++;
	}
	if (!f->inputClosed)
	{
		lt_session_close_input(f->handle);
		f->inputClosed = TRUE;
	}
}

static BOOL configure(intptr_t handle, BOOL threaded)
{
	for (size_t i = 0; i < ARRAYSIZE(SETTINGS); i++)
	{
		if (!lt_session_set(handle, SETTINGS[i][0], SETTINGS[i][1]))
		{
			fprintf(stderr, "setting %s was refused\n", SETTINGS[i][0]);
			return FALSE;
		}
	}
	if (!lt_session_set(handle, "FreeRDP_ThreadingFlags", threaded ? "0" : "1"))
		return FALSE;
	lt_session_configure(handle, LT_PIXELS_BGRX, 1, 1000, LT_REPLAY_DEADLINE_MS);
	return TRUE;
}

static void on_frame(LtReplayResult* out, intptr_t handle, const int32_t* record)
{
	const double t = now_ms();
	if (out->frames++ == 0)
		out->firstFrameMs = t;
	else
		out->shadowSpanMs += out->lastCopyMs; /* the previous frame's copy lies inside the span */
	out->lastFrameMs = t;
	const double cpuBefore = cpu_ms();
	/* the record's pixel pointer is a 32-bit slot; the surface is the session's GDI
	 * buffer, untouched until the acknowledgement below */
	const rdpGdi* gdi = ((LtContext*)handle)->common.context.gdi;
	if (!lt_shadow_apply(&out->shadow, gdi->primary_buffer, (UINT32)record[2], (UINT32)record[3],
	                     (UINT32)record[4], &record[LT_FRAME_HEADER_WORDS], (size_t)record[6]))
		abort();
	out->shadowCpuMs += cpu_ms() - cpuBefore;
	out->lastCopyMs = now_ms() - t;
}

/* Runs one replay to its end (the client sees the input end and disconnects). */
static BOOL replay(const LtDump* dump, BOOL threaded, LtReplayResult* out)
{
	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < dump->count; i++)
		out->serverPdus += dump->records[i].fromClient ? 0 : 1;
	LtFeeder feeder = { .handle = lt_session_new(), .dump = dump };
	if (!feeder.handle)
		return FALSE;
	if (!configure(feeder.handle, threaded) || !lt_session_start_thread(feeder.handle))
	{
		lt_session_free(feeder.handle);
		return FALSE;
	}
	out->startMs = now_ms();
	const double cpuStart = cpu_ms();
	BOOL stopped = FALSE;
	for (;;)
	{
		if (!stopped && (now_ms() - out->startMs > LT_REPLAY_DEADLINE_MS))
		{
			fprintf(stderr, "replay did not end within %d ms (%zu frames)\n", LT_REPLAY_DEADLINE_MS,
			        out->frames);
			lt_session_stop_thread(feeder.handle);
			stopped = TRUE;
		}
		const BOOL feeding = feeder.fed && !feeder.inputClosed;
		LtNativeEvent ev;
		const BOOL got = lt_native_next_event(&ev, feeding ? LT_FEED_RETRY_MS : 100);
		if (got && (ev.session != feeder.handle))
			abort(); /* one session per process */
		if (got && (ev.kind == LT_EVENT_SEND))
		{
			out->clientPdus++;
			free((void*)ev.a);
			if (!feeder.fed)
			{
				/* the first PDU is the Connection Request */
				static const BYTE key[270] = { 0 };
				feeder.fed = TRUE;
				if (!lt_session_set_public_key(feeder.handle, key, (int)sizeof(key)) ||
				    (lt_session_push(feeder.handle, TLS_CONNECTION_CONFIRM,
				                     (int)sizeof(TLS_CONNECTION_CONFIRM)) != 1))
					abort();
			}
		}
		else if (got && (ev.kind == LT_EVENT_CONNECTED))
		{
			out->width = (UINT32)ev.a;
			out->height = (UINT32)ev.b;
		}
		else if (got && (ev.kind == LT_EVENT_FRAME))
		{
			on_frame(out, feeder.handle, (const int32_t*)ev.a);
			free((void*)ev.a);
			lt_session_frame_done(feeder.handle);
		}
		else if (got && (ev.kind == LT_EVENT_POINTER_SET))
			free((void*)ev.a);
		else if (got && (ev.kind == LT_EVENT_DISCONNECTED))
		{
			out->endMs = now_ms();
			out->cpuMs = cpu_ms() - cpuStart - out->shadowCpuMs;
			out->reason = (int)ev.a;
			break;
		}
		if (feeder.fed && !feeder.inputClosed)
			feed(&feeder);
	}
	lt_session_free(feeder.handle);
	return TRUE;
}

static const char* base_name(const char* path, char* buffer, size_t size)
{
	const char* slash = strrchr(path, '/');
	(void)snprintf(buffer, size, "%s", slash ? slash + 1 : path);
	char* dot = strstr(buffer, ".dump");
	if (dot)
		*dot = '\0';
	return buffer;
}

static void print_result(const char* path, BOOL threaded, const LtReplayResult* r)
{
	char name[256];
	const double span = r->lastFrameMs - r->firstFrameMs - r->shadowSpanMs;
	const int reason = ((r->reason > 0) && ((size_t)r->reason < ARRAYSIZE(REASONS))) ? r->reason : 0;
	printf("{\"recording\":\"%s\",\"build\":\"native\",\"threaded\":%s,\"frames\":%zu,"
	       "\"serverPdus\":%zu,\"clientPdus\":%zu,\"desktop\":\"%ux%u\",\"totalMs\":%.1f,"
	       "\"cpuMs\":%.1f,\"firstToLastFrameMs\":%.1f,\"shadowMs\":%.1f,\"shadowCpuMs\":%.1f,",
	       base_name(path, name, sizeof(name)), threaded ? "true" : "false", r->frames,
	       r->serverPdus, r->clientPdus, r->width, r->height, r->endMs - r->startMs, r->cpuMs, span,
	       r->shadowSpanMs + r->lastCopyMs, r->shadowCpuMs);
	if (r->frames > 1)
		printf("\"msPerFrame\":%.3f,", span / (double)(r->frames - 1));
	else
		printf("\"msPerFrame\":null,");
	if (r->frames > 0)
		printf("\"hash\":\"%08x\",", lt_shadow_hash(&r->shadow));
	else
		printf("\"hash\":null,");
	printf("\"end\":\"%s\"}\n", REASONS[reason]);
}

/* The final shadow (B,G,R,X rows) as a binary PPM. */
static BOOL write_picture(const LtFrameShadow* shadow, const char* file)
{
	FILE* out = fopen(file, "wb");
	if (!out)
		return FALSE;
	BOOL ok = fprintf(out, "P6\n%u %u\n255\n", shadow->width, shadow->height) > 0;
	for (size_t i = 0; ok && (i < (size_t)shadow->width * shadow->height); i++)
	{
		const BYTE* p = &shadow->pixels[i * 4];
		const BYTE rgb[3] = { p[2], p[1], p[0] };
		ok = fwrite(rgb, 1, 3, out) == 3;
	}
	return (fclose(out) == 0) && ok;
}

int main(int argc, char** argv)
{
	const char* path = NULL;
	const char* picture = NULL;
	BOOL threaded = TRUE;
	BOOL warmup = FALSE;
	for (int i = 1; i < argc; i++)
	{
		if (strcmp(argv[i], "--single-threaded") == 0)
			threaded = FALSE;
		else if (strcmp(argv[i], "--warmup") == 0)
			warmup = TRUE;
		else if ((strcmp(argv[i], "--picture") == 0) && (i + 1 < argc))
			picture = argv[++i];
		else if (!path && (argv[i][0] != '-'))
			path = argv[i];
		else
		{
			fprintf(stderr, "unknown argument %s\n", argv[i]);
			return 2;
		}
	}
	if (!path)
	{
		fprintf(stderr,
		        "usage: replay_native <recording.dump> [--single-threaded] [--warmup] [--picture FILE]\n");
		return 2;
	}
	/* replay.mjs loads the wasm module with logLevel OFF; the same here */
	(void)setenv("WLOG_LEVEL", "OFF", 0);

	LtDump dump;
	char error[256];
	if (!lt_dump_read(path, &dump, error, sizeof(error)))
	{
		fprintf(stderr, "%s\n", error);
		return 1;
	}
	LtReplayResult result;
	BOOL ok = TRUE;
	if (warmup)
	{
		ok = replay(&dump, threaded, &result);
		lt_shadow_free(&result.shadow);
	}
	ok = ok && replay(&dump, threaded, &result);
	if (ok && picture && ((result.frames == 0) || !write_picture(&result.shadow, picture)))
	{
		fprintf(stderr, "no picture written to %s (%zu frames)\n", picture, result.frames);
		ok = FALSE;
	}
	if (ok)
		print_result(path, threaded, &result);
	else
		fprintf(stderr, "the session could not be created or started\n");
	lt_shadow_free(&result.shadow);
	lt_dump_free(&dump);
	return ok ? 0 : 1;
}
