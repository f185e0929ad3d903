/* Decode cost per 1920×1080 frame, the same C built twice (wasm and native)
 * against the same FreeRDP source: planar (lossless, 64×64 tiles as servers
 * send them) and RemoteFX (single-threaded, so both builds do the same work).
 * Frames are encoded once with FreeRDP's own encoders from a synthetic,
 * desktop-like picture (gradient, flat windows, text-like detail).
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

static double bench_rfx(const BYTE* img, BYTE* out, int frames, double* psnr, UINT32* bytes)
{
	RFX_CONTEXT* enc = rfx_context_new_ex(TRUE, THREADING_FLAGS_DISABLE_THREADS);
	RFX_CONTEXT* dec = rfx_context_new_ex(FALSE, THREADING_FLAGS_DISABLE_THREADS);
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
	double se = 0;
	for (size_t i = 0; i < (size_t)STRIDE * H; i++)
		if ((i & 3) != 3)
			se += (double)(img[i] - out[i]) * (img[i] - out[i]);
	*psnr = 10.0 * log10(255.0 * 255.0 / (se / ((double)W * H * 3)));
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
	int exact = 0;
	double psnr = 0;
	UINT32 rfxBytes = 0;
	const double planar = bench_planar(img, out, frames, &exact);
	const UINT32 planarHash = surface_hash(out);
	memset(out, 0, (size_t)STRIDE * H);
	const double rfx = bench_rfx(img, out, frames, &psnr, &rfxBytes);
	const UINT32 rfxHash = surface_hash(out);
#if defined(__EMSCRIPTEN__)
	const char* build = "wasm";
#else
	const char* build = "native";
#endif
	printf("{\"build\":\"%s\",\"frames\":%d,\"planarMsPerFrame\":%.2f,\"planarRoundTripExact\":%s,"
	       "\"planarHash\":\"%08x\",\"remotefxMsPerFrame\":%.2f,\"remotefxPsnrDb\":%.1f,"
	       "\"remotefxBytes\":%u,\"remotefxHash\":\"%08x\"}\n",
	       build, frames, planar, exact ? "true" : "false", planarHash, rfx, psnr, rfxBytes, rfxHash);
	free(img);
	free(out);
	return (planar < 0 || rfx < 0) ? 1 : 0;
}
