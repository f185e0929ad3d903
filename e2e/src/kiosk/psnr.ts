// Peak signal-to-noise ratio over R, G and B of two images of the same size,
// in dB (Infinity when identical): how lossy codecs are judged.
import type { RgbImage } from '@lanterna/lab';

export interface PixelRegion {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** Over the whole image, or over one region of both (a slide's chart, its photo, …). */
export function psnr(a: RgbImage, b: RgbImage, region: PixelRegion = { x: 0, y: 0, width: a.width, height: a.height }): number {
  if (a.width !== b.width || a.height !== b.height) throw new Error(`sizes differ: ${a.width}×${a.height} vs ${b.width}×${b.height}`);
  if (region.x < 0 || region.y < 0 || region.width <= 0 || region.height <= 0 || region.x + region.width > a.width || region.y + region.height > a.height) {
    throw new Error(`region ${region.width}×${region.height} at (${region.x}, ${region.y}) is outside ${a.width}×${a.height}`);
  }
  let squared = 0;
  for (let y = region.y; y < region.y + region.height; y++) {
    const rowEnd = (y * a.width + region.x + region.width) * 4;
    for (let i = (y * a.width + region.x) * 4; i < rowEnd; i += 4) {
      for (let c = 0; c < 3; c++) {
        const d = (a.data[i + c] ?? 0) - (b.data[i + c] ?? 0);
        squared += d * d;
      }
    }
  }
  if (squared === 0) return Infinity;
  const mse = squared / (region.width * region.height * 3);
  return 10 * Math.log10((255 * 255) / mse);
}
