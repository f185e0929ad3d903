// A deterministic picture for pixel tests and benchmarks, computed the same
// way in the page and in Node so that expected pixels never come from the
// code under test.
import type { PixelFormat } from '../src/render/frame.js';

/** Fills a width×height region (stride bytes per row) with a pattern that differs per seed. */
export function fillPattern(pixels: Uint8Array, width: number, height: number, stride: number, seed: number): void {
  for (let y = 0; y < height; y++) {
    let i = y * stride;
    for (let x = 0; x < width; x++, i += 4) {
      pixels[i] = (x * 7 + seed * 13) & 255;
      pixels[i + 1] = (y * 11 + seed * 29) & 255;
      pixels[i + 2] = (x * y + seed * 57) & 255;
      pixels[i + 3] = (x + y + seed) & 255; // alpha is junk on purpose: the desktop must come out opaque
    }
  }
}

/** The opaque RGBA a correct renderer shows at 1:1 for these bytes in this format. */
export function expectedRgba(pixels: Uint8Array, width: number, height: number, stride: number, format: PixelFormat): Uint8Array {
  const out = new Uint8Array(width * height * 4);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const s = y * stride + x * 4;
      const d = (y * width + x) * 4;
      const c0 = pixels[s] ?? 0;
      const c2 = pixels[s + 2] ?? 0;
      out[d] = format === 'bgra' ? c2 : c0;
      out[d + 1] = pixels[s + 1] ?? 0;
      out[d + 2] = format === 'bgra' ? c0 : c2;
      out[d + 3] = 255;
    }
  }
  return out;
}
