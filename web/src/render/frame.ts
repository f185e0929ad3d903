// The renderer's vocabulary: rectangles of a pixel buffer, nothing of RDP.

/** Byte order of one pixel in memory; FreeRDP's GDI surface is usually 'bgra'. */
export type PixelFormat = 'bgra' | 'rgba';

export interface Rect {
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
}

/**
 * One end-of-paint: a view over the whole desktop framebuffer (often backed by
 * the decoder's SharedArrayBuffer) and the rectangles that changed in it.
 */
export interface FrameUpdate {
  readonly pixels: Uint8Array;
  /** Bytes per row of `pixels`; a multiple of 4. */
  readonly stride: number;
  readonly format: PixelFormat;
  readonly rects: readonly Rect[];
}

/** A pointer image, its size and the hotspot inside it (pixel offsets). */
export interface PointerShape {
  readonly pixels: Uint8Array;
  readonly width: number;
  readonly height: number;
  readonly hotspotX: number;
  readonly hotspotY: number;
  readonly format: PixelFormat;
}
