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

static double bench_planar(const BYTE* img, BYTE* out, int frames, int* exact)
{
	const int cols = (W + TILE - 1) / TILE, rows = (H + TILE - 1) / TILE;
	Tile* tiles = calloc((size_t)cols * rows, sizeof(Tile));
	BITMAP_PLANAR_CONTEXT* enc = freerdp_bitmap_planar_context_new(PLANAR_FORMAT_HEADER_RLE, TILE, TILE);
	BITMAP_PLANAR_CONTEXT* dec = freerdp_bitmap_planar_context_new(0, TILE, TILE);
	freerdp_planar_topdown_image(enc, TRUE); /* GFX order: rows top to bottom */
	int n = 0;
	for (int ty = 0; ty < rows; ty++)
		for (int tx = 0; tx < cols; tx++)
		{
			Tile* t = &tiles[n++];
			t->x = (UINT32)(tx * TILE);
			t->y = (UINT32)(ty * TILE);
			t->w = (W - t->x < TILE) ? W - t->x : TILE;
			t->h = (H - t->y < TILE) ? H - t->y : TILE;
			freerdp_bitmap_planar_context_reset(enc, t->w, t->h);
			t->data = freerdp_bitmap_compress_planar(enc, &img[t->y * STRIDE + t->x * 4], FORMAT, t->w,
			                                         t->h, STRIDE, NULL, &t->size);
		}
	const double start = now_ms();
	for (int f = 0; f < frames; f++)
		for (int i = 0; i < n; i++)
		{
			Tile* t = &tiles[i];
			freerdp_bitmap_planar_context_reset(dec, t->w, t->h);
			if (!planar_decompress(dec, t->data, t->size, t->w, t->h, out, FORMAT, STRIDE, t->x, t->y,
			                       t->w, t->h, FALSE))
				return -1;
		}
	const double ms = (now_ms() - start) / frames;
	*exact = 1;
	for (int y = 0; y < H && *exact; y++)
		for (int x = 0; x < W; x++)
			if (memcmp(&img[y * STRIDE + x * 4], &out[y * STRIDE + x * 4], 3) != 0)
			{
				*exact = 0;
				break;
			}
	for (int i = 0; i < n; i++)
		free(tiles[i].data);
	free(tiles);
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

static int same_colours(const BYTE* img, const BYTE* out)
{
	for (size_t i = 0; i < (size_t)W * H; i++)
		if (memcmp(&img[i * 4], &out[i * 4], 3) != 0)
			return 0;
	return 1;
}

static double bench_interleaved(const BYTE* img, BYTE* out, int frames, int* exact)
{
	const int cols = (W + TILE - 1) / TILE, rows = (H + TILE - 1) / TILE;
	Tile* tiles = calloc((size_t)cols * rows, sizeof(Tile));
	BITMAP_INTERLEAVED_CONTEXT* enc = bitmap_interleaved_context_new(TRUE);
	BITMAP_INTERLEAVED_CONTEXT* dec = bitmap_interleaved_context_new(FALSE);
	int n = 0;
	for (int ty = 0; ty < rows; ty++)
		for (int tx = 0; tx < cols; tx++)
		{
			Tile* t = &tiles[n++];
			t->x = (UINT32)(tx * TILE);
			t->y = (UINT32)(ty * TILE);
			t->w = (W - t->x < TILE) ? W - t->x : TILE;
			t->h = (H - t->y < TILE) ? H - t->y : TILE;
			t->size = TILE * TILE * 4 + 1024;
			t->data = malloc(t->size);
			if (!interleaved_compress(enc, t->data, &t->size, t->w, t->h, img, FORMAT, STRIDE, t->x,
			                          t->y, NULL, 24))
				return -1;
		}
	const double start = now_ms();
	for (int f = 0; f < frames; f++)
		for (int i = 0; i < n; i++)
		{
			Tile* t = &tiles[i];
			if (!interleaved_decompress(dec, t->data, t->size, t->w, t->h, 24, out, FORMAT, STRIDE,
			                            t->x, t->y, t->w, t->h, NULL))
				return -1;
		}
	const double ms = (now_ms() - start) / frames;
	*exact = same_colours(img, out);
	for (int i = 0; i < n; i++)
		free(tiles[i].data);
	free(tiles);
	bitmap_interleaved_context_free(enc);
	bitmap_interleaved_context_free(dec);
	return ms;
}

static double bench_progressive(const BYTE* img, BYTE* out, int frames, UINT32 threading,
                                double* psnr, UINT32* bytes)
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
	const double start = now_ms();
	for (int f = 0; f < frames; f++)
	{
		region16_clear(&invalid);
		if (progressive_decompress(dec, copy, *bytes, out, FORMAT, STRIDE, 0, 0, &invalid, 1,
		                           (UINT32)f + 1) < 0)
			return -1;
	}
	const double ms = (now_ms() - start) / frames;
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

/* Compresses the input packet by packet, then times decompressing the whole
 * sequence with a fresh receiver; checks the bytes come back. */
static double bench_bulk(enum bulk_kind kind, const BYTE* input, int rounds, UINT32* packed,
                         int* exact)
{
	const UINT32 count = (BULK_INPUT + BULK_PACKET - 1) / BULK_PACKET;
	BYTE** packets = calloc(count, sizeof(BYTE*));
	UINT32* sizes = calloc(count, sizeof(UINT32));
	UINT32* flags = calloc(count, sizeof(UINT32));
	BYTE* scratch = malloc(65536);
	void* enc = (kind == BULK_MPPC)     ? (void*)mppc_context_new(1, TRUE)
	            : (kind == BULK_NCRUSH) ? (void*)ncrush_context_new(TRUE)
	                                    : (void*)xcrush_context_new(TRUE);
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
	for (int r = 0; r < rounds; r++)
	{
		void* dec = (kind == BULK_MPPC)     ? (void*)mppc_context_new(1, FALSE)
		            : (kind == BULK_NCRUSH) ? (void*)ncrush_context_new(FALSE)
		                                    : (void*)xcrush_context_new(FALSE);
		size_t at = 0;
		const double start = now_ms();
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
		if ((at != BULK_INPUT) || (memcmp(check, input, BULK_INPUT) != 0))
			*exact = 0;
		if (kind == BULK_MPPC)
			mppc_context_free(dec);
		else if (kind == BULK_NCRUSH)
			ncrush_context_free(dec);
		else
			xcrush_context_free(dec);
	}
	if (kind == BULK_MPPC)
		mppc_context_free(enc);
	else if (kind == BULK_NCRUSH)
		ncrush_context_free(enc);
	else
		xcrush_context_free(enc);
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

static double bench_rfx(const BYTE* img, BYTE* out, int frames, UINT32 threading, double* psnr,
                        UINT32* bytes)
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
	const double start = now_ms();
	for (int f = 0; f < frames; f++)
	{
		region16_clear(&invalid);
		if (!rfx_process_message(dec, Stream_Buffer(s), *bytes, 0, 0, out, FORMAT, STRIDE, H, &invalid))
			return -1;
	}
	const double ms = (now_ms() - start) / frames;
	*psnr = psnr_of(img, out);
	region16_uninit(&invalid);
	rfx_message_free(enc, msg);
	Stream_Free(s, TRUE);
	rfx_context_free(enc);
	rfx_context_free(dec);
	return ms;
}

int main(int argc, char** argv)
{
	const int frames = (argc > 1) ? atoi(argv[1]) : 20;
	BYTE* img = malloc((size_t)STRIDE * H);
	BYTE* out = calloc((size_t)STRIDE, H);
	paint_desktop(img);
	int planarExact = 0, interleavedExact = 0;
	{
		/* warm-up, discarded: wasm engines start on a baseline compiler and
		 * optimise hot functions later (V8: Liftoff, then TurboFan) */
		double p = 0;
		UINT32 u = 0;
		int e = 0;
		(void)bench_planar(img, out, 2, &e);
		(void)bench_interleaved(img, out, 2, &e);
		(void)bench_rfx(img, out, 2, THREADING_FLAGS_DISABLE_THREADS, &p, &u);
		(void)bench_rfx(img, out, 2, 0, &p, &u);
		(void)bench_progressive(img, out, 2, THREADING_FLAGS_DISABLE_THREADS, &p, &u);
		(void)bench_progressive(img, out, 2, 0, &p, &u);
		memcpy(out, img, BULK_INPUT);
		(void)bench_bulk(BULK_MPPC, out, 1, &u, &e);
		(void)bench_bulk(BULK_NCRUSH, out, 1, &u, &e);
		(void)bench_bulk(BULK_XCRUSH, out, 1, &u, &e);
		memset(out, 0, (size_t)STRIDE * H);
	}
	double rfxPsnr = 0, progPsnr = 0;
	UINT32 rfxBytes = 0, progBytes = 0;
	const double planar = bench_planar(img, out, frames, &planarExact);
	const UINT32 planarHash = surface_hash(out);
	memset(out, 0, (size_t)STRIDE * H);
	const double interleaved = bench_interleaved(img, out, frames, &interleavedExact);
	const UINT32 interleavedHash = surface_hash(out);
	memset(out, 0, (size_t)STRIDE * H);
	const double rfx = bench_rfx(img, out, frames, THREADING_FLAGS_DISABLE_THREADS, &rfxPsnr, &rfxBytes);
	const UINT32 rfxHash = surface_hash(out);
	memset(out, 0, (size_t)STRIDE * H);
	const double rfxThreaded = bench_rfx(img, out, frames, 0, &rfxPsnr, &rfxBytes);
	const UINT32 rfxThreadedHash = surface_hash(out);
	memset(out, 0, (size_t)STRIDE * H);
	const double prog = bench_progressive(img, out, frames, THREADING_FLAGS_DISABLE_THREADS, &progPsnr, &progBytes);
	const UINT32 progHash = surface_hash(out);
	memset(out, 0, (size_t)STRIDE * H);
	const double progThreaded = bench_progressive(img, out, frames, 0, &progPsnr, &progBytes);
	const UINT32 progThreadedHash = surface_hash(out);

	/* bulk input: desktop rows (long runs, repeats) as bitmap updates carry them */
	BYTE* bulkInput = malloc(BULK_INPUT);
	memcpy(bulkInput, img, BULK_INPUT);
	const int rounds = (frames < 5) ? 1 : frames / 5;
	UINT32 mppcBytes = 0, ncrushBytes = 0, xcrushBytes = 0;
	int mppcOk = 0, ncrushOk = 0, xcrushOk = 0;
	const double mppc = bench_bulk(BULK_MPPC, bulkInput, rounds, &mppcBytes, &mppcOk);
	const double ncrush = bench_bulk(BULK_NCRUSH, bulkInput, rounds, &ncrushBytes, &ncrushOk);
	const double xcrush = bench_bulk(BULK_XCRUSH, bulkInput, rounds, &xcrushBytes, &xcrushOk);
#if defined(__EMSCRIPTEN__)
	const char* build = "wasm";
#else
	const char* build = "native";
#endif
	printf("{\"build\":\"%s\",\"frames\":%d,\"optimisedPrimitives\":%d,\"copy24MatchesGeneric\":%s,"
	       "\"planar\":{\"ms\":%.2f,\"exact\":%s,\"hash\":\"%08x\"},"
	       "\"interleaved\":{\"ms\":%.2f,\"exact\":%s,\"hash\":\"%08x\"},"
	       "\"remotefx\":{\"ms\":%.2f,\"psnrDb\":%.1f,\"bytes\":%u,\"hash\":\"%08x\"},"
	       "\"remotefxThreaded\":{\"ms\":%.2f,\"hash\":\"%08x\"},"
	       "\"progressive\":{\"ms\":%.2f,\"psnrDb\":%.1f,\"bytes\":%u,\"hash\":\"%08x\"},"
	       "\"progressiveThreaded\":{\"ms\":%.2f,\"hash\":\"%08x\"},"
	       "\"mppc\":{\"ms\":%.2f,\"bytes\":%u,\"exact\":%s},"
	       "\"ncrush\":{\"ms\":%.2f,\"bytes\":%u,\"exact\":%s},"
	       "\"xcrush\":{\"ms\":%.2f,\"bytes\":%u,\"exact\":%s}}\n",
	       build, frames, optimised_primitives(), copy24_matches_generic(img) ? "true" : "false", planar, planarExact ? "true" : "false",
	       planarHash, interleaved, interleavedExact ? "true" : "false", interleavedHash, rfx, rfxPsnr, rfxBytes,
	       rfxHash, rfxThreaded, rfxThreadedHash, prog, progPsnr, progBytes, progHash,
	       progThreaded, progThreadedHash, mppc, mppcBytes, mppcOk ? "true" : "false", ncrush,
	       ncrushBytes, ncrushOk ? "true" : "false", xcrush, xcrushBytes,
	       xcrushOk ? "true" : "false");
	fflush(stdout);
	free(bulkInput);
	free(img);
	free(out);
	return (planar < 0 || rfx < 0 || prog < 0 || interleaved < 0 || mppc < 0 || ncrush < 0 ||
	        xcrush < 0)
	           ? 1
	           : 0;
}
