/* What the renderer gets at each EndPaint: the coalesced dirty rectangles of
 * the primary GDI surface and where its pixels are in the (shared) wasm heap.
 * No pixel is copied here; the renderer uploads straight from the heap.
 *
 * The record posted with LT_EVENT_FRAME is a malloc'd array of int32 that JS
 * frees after reading:
 *   [0] sequence  [1] pixel pointer  [2] width  [3] height  [4] stride (bytes)
 *   [5] layout (enum lt_pixel_layout)  [6] rectangle count n
 *   [7 + 4i …] x, y, w, h of rectangle i
 * (The pixel pointer is a 32-bit wasm address; the native twin in bench/native/,
 * whose pointers do not fit, reads gdi->primary_buffer instead.)
 * When the session waits for acknowledgements, the drawing thread (the RDP
 * thread, or the GFX channel's) does not touch the surface again until JS calls
 * lt_session_frame_done() (or a deadline passes, or a stop), so the renderer
 * never uploads a half-drawn frame. */
#ifndef LANTERNA_FRAME_OUTPUT_H
#define LANTERNA_FRAME_OUTPUT_H

#include "session.h"

#define LT_FRAME_HEADER_WORDS 7

void lt_frame_output_install(LtContext* lt);

#endif
