/* Decode cost per 1920×1080 frame, the same C built twice (wasm and native)
 * against the same FreeRDP source: planar and interleaved (lossless, 64×64
 * tiles as servers send them), RemoteFX and progressive (single-threaded, and
 * with FreeRDP's codec thread pool), and bulk decompression (MPPC 64K, NCRUSH,
 * XCRUSH) of 2 MiB of desktop bytes in 8000-byte packets. Frames are encoded
 * once with FreeRDP's own encoders from a synthetic, desktop-like picture
 * (gradient, flat windows, text-like detail). Also reports which primitives
 * are optimised (not the generic C ones), the point of the SIMD build.
 * Prints one JSON line: ms per frame and a correctness check per codec. */
#include <math.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif
#include <sys/resource.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <freerdp/codec/color.h>
#include <freerdp/codecs.h>
#include <freerdp/codec/planar.h>
#include <freerdp/codec/region.h>
#include <freerdp/codec/rfx.h>
#include <freerdp/codec/bulk.h>
#include <freerdp/codec/interleaved.h>
#include <freerdp/codec/progressive.h>
#include <freerdp/primitives.h>
#include <freerdp/settings_types.h>
#include <winpr/stream.h>

#define W 1920
#define H 1080
#define STRIDE (W * 4)
#define TILE 64
#define FORMAT PIXEL_FORMAT_BGRX32

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* CPU time the process has used, ms. On a shared machine the wall clock also
 * counts the time other processes held the core; CPU time does not. Both
 * builds ask the kernel the same way (getrusage of the whole process, which
 * brings the calling thread's running time up to date). In wasm the decoding
 * pthread is a Node worker, an OS thread of the same process; the other
 * threads sleep while a single-threaded codec runs. */
#if defined(__EMSCRIPTEN__)
#include <emscripten.h>
EM_JS(double, process_cpu_ms, (void), {
	const u = process.cpuUsage();
	return (u.user + u.system) / 1000;
});
#else
static double process_cpu_ms(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 +
	       (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3;
}
#endif

/* Per-frame wall and CPU times of one codec's timed loop. The mean is the
 * cost over the run; medians and the fastest frame are what stays readable
 * when other processes take the core for part of a run (the machine is
 * shared). For the threaded codecs CPU time is the work of all threads. */
#define MAX_LAPS 1024
typedef struct
{
	double laps[MAX_LAPS];
	double cpuLaps[MAX_LAPS];
	int count;
	double last, cpuLast;
} FrameClock;

/* starts (again) without dropping the laps taken so far */
static void clock_resume(FrameClock* c)
{
	c->cpuLast = process_cpu_ms();
	c->last = now_ms();
}

static void clock_start(FrameClock* c)
{
	c->count = 0;
	clock_resume(c);
}

static void clock_lap(FrameClock* c)
{
	const double t = now_ms();
	const double cpu = process_cpu_ms();
	if (c->count < MAX_LAPS)
	{
		c->laps[c->count] = t - c->last;
		c->cpuLaps[c->count++] = cpu - c->cpuLast;
	}
	c->last = t;
	c->cpuLast = cpu;
}

static int by_value(const void* a, const void* b)
{
	const double x = *(const double*)a, y = *(const double*)b;
	return (x > y) - (x < y);
}

/* mean, median, min of n laps (sorts them) */
static void lap_stats(double* laps, int n, double* mean, double* median, double* min)
{
	double sum = 0;
	for (int i = 0; i < n; i++)
		sum += laps[i];
	qsort(laps, (size_t)n, sizeof(double), by_value);
	*mean = (n > 0) ? sum / n : -1;
	*median = (n == 0) ? -1 : (n & 1) ? laps[n / 2] : (laps[n / 2 - 1] + laps[n / 2]) / 2;
	*min = (n > 0) ? laps[0] : -1;
}

static void paint_desktop(BYTE* img)
{
	for (int y = 0; y < H; y++)
		for (int x = 0; x < W; x++)
		{
			BYTE* p = &img[y * STRIDE + x * 4];
			BYTE r = (BYTE)(40 + y / 8);
			BYTE g = (BYTE)(80 + x / 16);
			BYTE b = 160;
			if ((x % 480) > 40 && (x % 480) < 440 && (y % 360) > 30 && (y % 360) < 330)
			{
				r = g = b = 245; /* a window */
				if (((y % 18) < 12) && (((x * 7 + y * 13) ^ (x * y / 5)) & 0x18) == 0x18)
					r = g = b = 20; /* text-like strokes */
			}
			p[0] = b;
			p[1] = g;
			p[2] = r;
			p[3] = 0xFF;
		}
}

/* FNV-1a over the colour bytes: wasm and native must decode bit-identically */
static UINT32 surface_hash(const BYTE* img)
{
	UINT32 h = 2166136261u;
	for (size_t i = 0; i < (size_t)STRIDE * H; i++)
		if ((i & 3) != 3)
			h = (h ^ img[i]) * 16777619u;
	return h;
}

typedef struct
{
	BYTE* data;
	UINT32 size;
	UINT32 x, y, w, h;
} Tile;

/* The desktop cut into TILE×TILE tiles (smaller at the right and bottom edges), row by row. */
static Tile* tile_grid(int* count)
{
	const int cols = (W + TILE - 1) / TILE, rows = (H + TILE - 1) / TILE;
	Tile* tiles = calloc((size_t)cols * rows, sizeof(Tile));
	int n = 0;
	for (int ty = 0; ty < rows; ty++)
		for (int tx = 0; tx < cols; tx++)
		{
			Tile* t = &tiles[n++];
			t->x = (UINT32)(tx * TILE);
			t->y = (UINT32)(ty * TILE);
			t->w = (W - t->x < TILE) ? W - t->x : TILE;
			t->h = (H - t->y < TILE) ? H - t->y : TILE;
		}
	*count = n;
	return tiles;
}

static void free_tiles(Tile* tiles, int count)
{
	for (int i = 0; i < count; i++)
		free(tiles[i].data);
	free(tiles);
}

static int same_colours(const BYTE* img, const BYTE* out)
{
	for (size_t i = 0; i < (size_t)W * H; i++)
		if (memcmp(&img[i * 4], &out[i * 4], 3) != 0)
			return 0;
	return 1;
}


/* One codec's timed loop: decode_frame(state, f) for each of frames, a lap
 * on clock per frame. The mean wall time of a frame in ms; -1 when a decode
 * failed. */
static double time_frames(FrameClock* clock, int frames, BOOL (*decode_frame)(void* state, int f),
                          void* state)
{
	const double start = now_ms();
	clock_start(clock);
	for (int f = 0; f < frames; f++)
	{
		if (!decode_frame(state, f))
			return -1;
		clock_lap(clock);
	}
	return (now_ms() - start) / frames;
}

/* A frame of tiles, for the bitmap codecs (planar, interleaved): each tile's
 * bytes decoded into out at its place by the codec's decode_tile. */
typedef struct
{
	void* dec;
	Tile* tiles;
	int n;
	BYTE* out;
	BOOL (*decode_tile)(void* dec, const Tile* t, BYTE* out);
} TiledFrame;

static BOOL decode_tiled_frame(void* state, int f)
{
	const TiledFrame* frame = state;
	for (int i = 0; i < frame->n; i++)
		if (!frame->decode_tile(frame->dec, &frame->tiles[i], frame->out))
			return FALSE;
	return TRUE;
}

/* The tiles' timed loop (time_frames), then whether out came back exactly
 * img; the tiles are freed. The mean ms of a frame, or -1. */
static double time_tiled_frames(FrameClock* clock, int frames, const TiledFrame* frame,
                                const BYTE* img, int* exact)
{
	const double ms = time_frames(clock, frames, decode_tiled_frame, (void*)frame);
	if (ms < 0)
		return -1;
	*exact = same_colours(img, frame->out);
	free_tiles(frame->tiles, frame->n);
	return ms;
}

static BOOL decode_planar_tile(void* dec, const Tile* t, BYTE* out)
{
	freerdp_bitmap_planar_context_reset(dec, t->w, t->h);
	return planar_decompress(dec, t->data, t->size, t->w, t->h, out, FORMAT, STRIDE, t->x, t->y,
	                         t->w, t->h, FALSE);
}

static double bench_planar(const BYTE* img, BYTE* out, int frames, FrameClock* clock, int* exact)
{
	int n = 0;
	Tile* tiles = tile_grid(&n);
	BITMAP_PLANAR_CONTEXT* enc = freerdp_bitmap_planar_context_new(PLANAR_FORMAT_HEADER_RLE, TILE, TILE);
	BITMAP_PLANAR_CONTEXT* dec = freerdp_bitmap_planar_context_new(0, TILE, TILE);
	freerdp_planar_topdown_image(enc, TRUE); /* GFX order: rows top to bottom */
	for (int i = 0; i < n; i++)
	{
		Tile* t = &tiles[i];
		freerdp_bitmap_planar_context_reset(enc, t->w, t->h);
		t->data = freerdp_bitmap_compress_planar(enc, &img[t->y * STRIDE + t->x * 4], FORMAT, t->w,
		                                         t->h, STRIDE, NULL, &t->size);
	}
	const TiledFrame frame = { dec, tiles, n, out, decode_planar_tile };
	const double ms = time_tiled_frames(clock, frames, &frame, img, exact);
	freerdp_bitmap_planar_context_free(enc);
	freerdp_bitmap_planar_context_free(dec);
	return ms;
}

static double psnr_of(const BYTE* img, const BYTE* out)
{
	double se = 0;
	for (size_t i = 0; i < (size_t)STRIDE * H; i++)
		if ((i & 3) != 3)
			se += (double)(img[i] - out[i]) * (img[i] - out[i]);
	return (se == 0) ? 99.0 : 10.0 * log10(255.0 * 255.0 / (se / ((double)W * H * 3)));
}

/* FreeRDP's interleaved encoder leaves its scratch bitmap uninitialised and
 * the garbage reaches the encoded bytes: native heap garbage made the native
 * build decode other bytes on every run. The encoder is made first thing in
 * main, from zeroed memory in both builds (a fresh wasm heap is zero; glibc
 * is asked to zero-fill), so that both decode the same stream. */
static BITMAP_INTERLEAVED_CONTEXT* interleaved_encoder = NULL;

static BITMAP_INTERLEAVED_CONTEXT* new_zeroed_interleaved_encoder(void)
{
#if defined(__GLIBC__)
	mallopt(M_PERTURB, 0xFF); /* allocations filled with ~0xFF */
#endif
	BITMAP_INTERLEAVED_CONTEXT* enc = bitmap_interleaved_context_new(TRUE);
#if defined(__GLIBC__)
	mallopt(M_PERTURB, 0);
#endif
	return enc;
}

static BOOL decode_interleaved_tile(void* dec, const Tile* t, BYTE* out)
{
	return interleaved_decompress(dec, t->data, t->size, t->w, t->h, 24, out, FORMAT, STRIDE, t->x,
	                              t->y, t->w, t->h, NULL);
}

static double bench_interleaved(const BYTE* img, BYTE* out, int frames, FrameClock* clock,
                                int* exact)
{
	int n = 0;
	Tile* tiles = tile_grid(&n);
	BITMAP_INTERLEAVED_CONTEXT* enc = interleaved_encoder;
	BITMAP_INTERLEAVED_CONTEXT* dec = bitmap_interleaved_context_new(FALSE);
	for (int i = 0; i < n; i++)
	{
		Tile* t = &tiles[i];
		t->size = TILE * TILE * 4 + 1024;
		t->data = malloc(t->size);
		if (!interleaved_compress(enc, t->data, &t->size, t->w, t->h, img, FORMAT, STRIDE, t->x,
		                          t->y, NULL, 24))
			return -1;
	}
	const TiledFrame frame = { dec, tiles, n, out, decode_interleaved_tile };
	const double ms = time_tiled_frames(clock, frames, &frame, img, exact);
	bitmap_interleaved_context_free(dec);
	return ms;
}

/* One encoded picture decoded again each frame (progressive, RemoteFX). */
typedef struct
{
	void* dec;
	BYTE* data;
	UINT32 bytes;
	BYTE* out;
	REGION16* invalid;
} WholeFrame;

static BOOL decode_progressive_frame(void* state, int f)
{
	const WholeFrame* frame = state;
	region16_clear(frame->invalid);
	return progressive_decompress(frame->dec, frame->data, frame->bytes, frame->out, FORMAT, STRIDE,
	                              0, 0, frame->invalid, 1, (UINT32)f + 1) >= 0;
}

static double bench_progressive(const BYTE* img, BYTE* out, int frames, UINT32 threading,
                                FrameClock* clock, double* psnr, UINT32* bytes)
{
	PROGRESSIVE_CONTEXT* enc = progressive_context_new_ex(TRUE, THREADING_FLAGS_DISABLE_THREADS);
	PROGRESSIVE_CONTEXT* dec = progressive_context_new_ex(FALSE, threading);
	REGION16 region;
	region16_init(&region);
	const RECTANGLE_16 all = { 0, 0, W, H };
	region16_union_rect(&region, &region, &all);
	BYTE* data = NULL;
	if (progressive_compress(enc, img, STRIDE * H, FORMAT, W, H, STRIDE, &region, &data, bytes) < 0)
		return -1;
	BYTE* copy = malloc(*bytes);
	memcpy(copy, data, *bytes);
	if (progressive_create_surface_context(dec, 1, W, H) < 0)
		return -1;
	REGION16 invalid;
	region16_init(&invalid);
	WholeFrame frame = { dec, copy, *bytes, out, &invalid };
	const double ms = time_frames(clock, frames, decode_progressive_frame, &frame);
	if (ms < 0)
		return -1;
	*psnr = psnr_of(img, out);
	region16_uninit(&invalid);
	region16_uninit(&region);
	free(copy);
	progressive_context_free(enc);
	progressive_context_free(dec);
	return ms;
}

/* FreeRDP's bulk codecs are internal (not in its installed headers) but
 * linked into the static library; the benchmark declares what it calls. */
typedef struct S_MPPC_CONTEXT MPPC_CONTEXT;
typedef struct S_NCRUSH_CONTEXT NCRUSH_CONTEXT;
typedef struct S_XCRUSH_CONTEXT XCRUSH_CONTEXT;
int mppc_compress(MPPC_CONTEXT*, const BYTE*, UINT32, BYTE*, const BYTE**, UINT32*, UINT32*);
int mppc_decompress(MPPC_CONTEXT*, const BYTE*, UINT32, const BYTE**, UINT32*, UINT32);
MPPC_CONTEXT* mppc_context_new(DWORD, BOOL);
void mppc_context_free(MPPC_CONTEXT*);
int ncrush_compress(NCRUSH_CONTEXT*, const BYTE*, UINT32, BYTE*, const BYTE**, UINT32*, UINT32*);
int ncrush_decompress(NCRUSH_CONTEXT*, const BYTE*, UINT32, const BYTE**, UINT32*, UINT32);
NCRUSH_CONTEXT* ncrush_context_new(BOOL);
void ncrush_context_free(NCRUSH_CONTEXT*);
int xcrush_compress(XCRUSH_CONTEXT*, const BYTE*, UINT32, BYTE*, const BYTE**, UINT32*, UINT32*);
int xcrush_decompress(XCRUSH_CONTEXT*, const BYTE*, UINT32, const BYTE**, UINT32*, UINT32);
XCRUSH_CONTEXT* xcrush_context_new(BOOL);
void xcrush_context_free(XCRUSH_CONTEXT*);

enum bulk_kind { BULK_MPPC, BULK_NCRUSH, BULK_XCRUSH };
#define BULK_INPUT (2u * 1024u * 1024u)
#define BULK_PACKET 8000u

/* A compressor's (sender) or decompressor's (receiver) context of one kind. */
static void* bulk_context_new(enum bulk_kind kind, BOOL compressor)
{
	return (kind == BULK_MPPC)     ? (void*)mppc_context_new(1, compressor)
	       : (kind == BULK_NCRUSH) ? (void*)ncrush_context_new(compressor)
	                               : (void*)xcrush_context_new(compressor);
}

static void bulk_context_free(enum bulk_kind kind, void* context)
{
	if (kind == BULK_MPPC)
		mppc_context_free(context);
	else if (kind == BULK_NCRUSH)
		ncrush_context_free(context);
	else
		xcrush_context_free(context);
}

/* Compresses the input packet by packet, then times decompressing the whole
 * sequence with a fresh receiver; checks the bytes come back. */
static double bench_bulk(enum bulk_kind kind, const BYTE* input, int rounds, FrameClock* clock,
                         UINT32* packed, int* exact)
{
	const UINT32 count = (BULK_INPUT + BULK_PACKET - 1) / BULK_PACKET;
	BYTE** packets = calloc(count, sizeof(BYTE*));
	UINT32* sizes = calloc(count, sizeof(UINT32));
	UINT32* flags = calloc(count, sizeof(UINT32));
	BYTE* scratch = malloc(65536);
	void* enc = bulk_context_new(kind, TRUE);
	*packed = 0;
	for (UINT32 i = 0; i < count; i++)
	{
		const UINT32 len = (i == count - 1) ? BULK_INPUT - i * BULK_PACKET : BULK_PACKET;
		const BYTE* dst = NULL;
		UINT32 size = 65536;
		UINT32 f = 0;
		int rc = (kind == BULK_MPPC)
		             ? mppc_compress(enc, &input[i * BULK_PACKET], len, scratch, &dst, &size, &f)
		         : (kind == BULK_NCRUSH)
		             ? ncrush_compress(enc, &input[i * BULK_PACKET], len, scratch, &dst, &size, &f)
		             : xcrush_compress(enc, &input[i * BULK_PACKET], len, scratch, &dst, &size, &f);
		if ((rc < 0) || !(f & PACKET_COMPRESSED))
		{ /* sent raw, as bulk.c does */
			dst = &input[i * BULK_PACKET];
			size = len;
			f = 0;
		}
		packets[i] = malloc(size);
		memcpy(packets[i], dst, size);
		sizes[i] = size;
		flags[i] = f | ((kind == BULK_MPPC)     ? PACKET_COMPR_TYPE_64K
		                : (kind == BULK_NCRUSH) ? PACKET_COMPR_TYPE_RDP6
		                                        : PACKET_COMPR_TYPE_RDP61);
		*packed += size;
	}
	BYTE* check = malloc(BULK_INPUT);
	double total = 0;
	*exact = 1;
	clock->count = 0;
	for (int r = 0; r < rounds; r++)
	{
		void* dec = bulk_context_new(kind, FALSE);
		size_t at = 0;
		clock_resume(clock);
		const double start = clock->last;
		for (UINT32 i = 0; i < count; i++)
		{
			const BYTE* plain = packets[i];
			UINT32 size = sizes[i];
			if (flags[i] & PACKET_COMPRESSED)
			{
				int rc = (kind == BULK_MPPC)
				             ? mppc_decompress(dec, packets[i], sizes[i], &plain, &size, flags[i])
				         : (kind == BULK_NCRUSH)
				             ? ncrush_decompress(dec, packets[i], sizes[i], &plain, &size, flags[i])
				             : xcrush_decompress(dec, packets[i], sizes[i], &plain, &size, flags[i]);
				if (rc < 0)
					return -1;
			}
			if (at + size <= BULK_INPUT)
				memcpy(&check[at], plain, size);
			at += size;
		}
		total += now_ms() - start;
		clock_lap(clock);
		if ((at != BULK_INPUT) || (memcmp(check, input, BULK_INPUT) != 0))
			*exact = 0;
		bulk_context_free(kind, dec);
	}
	bulk_context_free(kind, enc);
	for (UINT32 i = 0; i < count; i++)
		free(packets[i]);
	free(packets);
	free(sizes);
	free(flags);
	free(scratch);
	free(check);
	return total / rounds;
}

/* The optimised 24→32 bpp copy (interleaved's last step) against FreeRDP's
 * generic one, all four bytes, odd widths and offsets included. */
static int copy24_matches_generic(const BYTE* img)
{
	const UINT32 w = 333, h = 97, srcStep = w * 3, dstStep = W * 4;
	BYTE* src = malloc((size_t)srcStep * h);
	BYTE* a = malloc((size_t)dstStep * (h + 8));
	BYTE* b = malloc((size_t)dstStep * (h + 8));
	for (UINT32 y = 0; y < h; y++)
		for (UINT32 x = 0; x < w; x++)
			memcpy(&src[y * srcStep + x * 3], &img[(y * 7) * STRIDE + (x * 5) * 4], 3);
	memset(a, 0x5a, (size_t)dstStep * (h + 8));
	memset(b, 0x5a, (size_t)dstStep * (h + 8));
	const UINT32 flags = FREERDP_FLIP_VERTICAL | FREERDP_KEEP_DST_ALPHA;
	int same = (primitives_get()->copy_no_overlap(a, FORMAT, dstStep, 3, 5, w, h, src,
	                                               PIXEL_FORMAT_BGR24, srcStep, 0, 0, NULL,
	                                               flags) == PRIMITIVES_SUCCESS) &&
	           (primitives_get_generic()->copy_no_overlap(b, FORMAT, dstStep, 3, 5, w, h, src,
	                                                      PIXEL_FORMAT_BGR24, srcStep, 0, 0, NULL,
	                                                      flags) == PRIMITIVES_SUCCESS) &&
	           (memcmp(a, b, (size_t)dstStep * (h + 8)) == 0);
	free(src);
	free(a);
	free(b);
	return same;
}

/* How many primitives the optimised table replaced: 0 means every codec runs
 * FreeRDP's generic C, whatever the compiler flags said. */
static int optimised_primitives(void)
{
	const primitives_t* best = primitives_get();
	const primitives_t* generic = primitives_get_generic();
	const size_t slots = sizeof(primitives_t) / sizeof(void*);
	const void* const* a = (const void* const*)best;
	const void* const* b = (const void* const*)generic;
	int differ = 0;
	for (size_t i = 0; i < slots; i++)
		if (a[i] != b[i])
			differ++;
	return differ;
}

static BOOL decode_rfx_frame(void* state, int f)
{
	const WholeFrame* frame = state;
	region16_clear(frame->invalid);
	return rfx_process_message(frame->dec, frame->data, frame->bytes, 0, 0, frame->out, FORMAT,
	                           STRIDE, H, frame->invalid);
}

static double bench_rfx(const BYTE* img, BYTE* out, int frames, UINT32 threading,
                        FrameClock* clock, double* psnr, UINT32* bytes)
{
	RFX_CONTEXT* enc = rfx_context_new_ex(TRUE, THREADING_FLAGS_DISABLE_THREADS);
	RFX_CONTEXT* dec = rfx_context_new_ex(FALSE, threading);
	rfx_context_reset(enc, W, H);
	rfx_context_set_pixel_format(enc, FORMAT);
	rfx_context_set_pixel_format(dec, FORMAT);
	const RFX_RECT rect = { 0, 0, W, H };
	wStream* s = Stream_New(NULL, 8u * 1024u * 1024u);
	RFX_MESSAGE* msg = rfx_encode_message(enc, &rect, 1, img, W, H, STRIDE);
	if (!msg || !rfx_write_message(enc, s, msg))
		return -1;
	*bytes = (UINT32)Stream_GetPosition(s);
	REGION16 invalid;
	region16_init(&invalid);
	WholeFrame frame = { dec, Stream_Buffer(s), *bytes, out, &invalid };
	const double ms = time_frames(clock, frames, decode_rfx_frame, &frame);
	if (ms < 0)
		return -1;
	*psnr = psnr_of(img, out);
	region16_uninit(&invalid);
	rfx_message_free(enc, msg);
	Stream_Free(s, TRUE);
	rfx_context_free(enc);
	rfx_context_free(dec);
	return ms;
}

/* argv[2], optional: a comma-separated list of codecs to run (to profile one
 * codec alone); all of them by default */
static const char* only = NULL;

static int wanted(const char* name)
{
	if (!only)
		return 1;
	const size_t len = strlen(name);
	for (const char* p = only; (p = strstr(p, name)) != NULL; p += len)
		if ((p == only || p[-1] == ',') && (p[len] == ',' || p[len] == '\0'))
			return 1;
	return 0;
}

/* one "name":{...} member of the result line; extra holds the codec's own checks */
static void print_codec(const char* name, FrameClock* clock, const char* extra)
{
	static int first = 1;
	double mean = 0, median = 0, min = 0, cpuMean = 0, cpuMedian = 0, cpuMin = 0;
	lap_stats(clock->laps, clock->count, &mean, &median, &min);
	lap_stats(clock->cpuLaps, clock->count, &cpuMean, &cpuMedian, &cpuMin);
	printf("%s\"%s\":{\"ms\":%.2f,\"medianMs\":%.2f,\"minMs\":%.2f,\"cpuMs\":%.2f,"
	       "\"cpuMedianMs\":%.2f,\"laps\":%d%s%s}",
	       first ? "" : ",", name, mean, median, min, cpuMean, cpuMedian, clock->count,
	       extra[0] ? "," : "", extra);
	first = 0;
}

/* One measured codec: its name (in the output and in the list of those
 * wanted), the kind of figures it gives, and what runs it. */
typedef struct
{
	const char* name;
	enum
	{
		CASE_BITMAP,  /* lossless bitmap codec: exact or not, and what it drew */
		CASE_WAVELET, /* RemoteFX / progressive: PSNR, bytes, and what it drew */
		CASE_BULK     /* bulk compression round trips: bytes, exact or not */
	} kind;
	double (*bitmap)(const BYTE* img, BYTE* out, int frames, FrameClock* clock, int* exact);
	double (*wavelet)(const BYTE* img, BYTE* out, int frames, UINT32 threading, FrameClock* clock,
	                  double* psnr, UINT32* bytes);
	UINT32 threading;
	enum bulk_kind bulk;
} BenchCase;

static const BenchCase cases[] = {
	{ "planar", CASE_BITMAP, bench_planar, NULL, 0, 0 },
	{ "interleaved", CASE_BITMAP, bench_interleaved, NULL, 0, 0 },
	{ "remotefx", CASE_WAVELET, NULL, bench_rfx, THREADING_FLAGS_DISABLE_THREADS, 0 },
	{ "remotefxThreaded", CASE_WAVELET, NULL, bench_rfx, 0, 0 },
	{ "progressive", CASE_WAVELET, NULL, bench_progressive, THREADING_FLAGS_DISABLE_THREADS, 0 },
	{ "progressiveThreaded", CASE_WAVELET, NULL, bench_progressive, 0, 0 },
	{ "mppc", CASE_BULK, NULL, NULL, 0, BULK_MPPC },
	{ "ncrush", CASE_BULK, NULL, NULL, 0, BULK_NCRUSH },
	{ "xcrush", CASE_BULK, NULL, NULL, 0, BULK_XCRUSH },
};

static FrameClock clocks[ARRAYSIZE(cases)];

/* Runs one case over frames (rounds, for bulk compression) on clock, its
 * figures as JSON members into extra (when not NULL); out is cleared after.
 * Nonzero when a decode failed. */
static int run_case(const BenchCase* bc, const BYTE* img, BYTE* out, const BYTE* bulkInput,
                    int frames, FrameClock* clock, char* extra, size_t extraSize)
{
	double psnr = 0;
	UINT32 bytes = 0;
	int exact = 0;
	double rc = 0;
	switch (bc->kind)
	{
		case CASE_BITMAP:
			rc = bc->bitmap(img, out, frames, clock, &exact);
			if (extra)
				snprintf(extra, extraSize, "\"exact\":%s,\"hash\":\"%08x\"",
				         exact ? "true" : "false", surface_hash(out));
			break;
		case CASE_WAVELET:
			rc = bc->wavelet(img, out, frames, bc->threading, clock, &psnr, &bytes);
			if (extra)
				snprintf(extra, extraSize, "\"psnrDb\":%.1f,\"bytes\":%u,\"hash\":\"%08x\"", psnr,
				         bytes, surface_hash(out));
			break;
		case CASE_BULK:
			rc = bench_bulk(bc->bulk, bulkInput, frames, clock, &bytes, &exact);
			if (extra)
				snprintf(extra, extraSize, "\"bytes\":%u,\"exact\":%s", bytes,
				         exact ? "true" : "false");
			break;
	}
	memset(out, 0, (size_t)STRIDE * H);
	return rc < 0;
}

int main(int argc, char** argv)
{
	const int frames = (argc > 1) ? atoi(argv[1]) : 20;
	only = (argc > 2) ? argv[2] : NULL;
	interleaved_encoder = new_zeroed_interleaved_encoder();
	BYTE* img = malloc((size_t)STRIDE * H);
	BYTE* out = calloc((size_t)STRIDE, H);
	char extra[160];
	int failed = 0;
	paint_desktop(img);
	/* bulk input: desktop rows (long runs, repeats) as bitmap updates carry them */
	BYTE* bulkInput = malloc(BULK_INPUT);
	memcpy(bulkInput, img, BULK_INPUT);
	/* warm-up, discarded: wasm engines start on a baseline compiler and
	 * optimise hot functions later (V8: Liftoff, then TurboFan) */
	for (size_t i = 0; i < ARRAYSIZE(cases); i++)
	{
		if (wanted(cases[i].name))
			(void)run_case(&cases[i], img, out, bulkInput, cases[i].kind == CASE_BULK ? 1 : 2,
			               &clocks[0], NULL, 0);
	}
#if defined(__EMSCRIPTEN__)
	const char* build = "wasm";
#else
	const char* build = "native";
#endif
	printf("{\"build\":\"%s\",\"frames\":%d,\"optimisedPrimitives\":%d,\"copy24MatchesGeneric\":%s,",
	       build, frames, optimised_primitives(), copy24_matches_generic(img) ? "true" : "false");
	for (size_t i = 0; i < ARRAYSIZE(cases); i++)
	{
		if (!wanted(cases[i].name))
			continue;
		failed |= run_case(&cases[i], img, out, bulkInput, frames, &clocks[i], extra, sizeof(extra));
		print_codec(cases[i].name, &clocks[i], extra);
	}
	printf("}\n");
	fflush(stdout);
	free(bulkInput);
	bitmap_interleaved_context_free(interleaved_encoder);
	free(img);
	free(out);
	return failed ? 1 : 0;
}
