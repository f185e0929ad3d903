// Peak signal-to-noise ratio over R, G and B of two images of the same size,
// in dB (Infinity when identical): how lossy codecs are judged.
import type { RgbImage } from '@lanterna/lab';

export function psnr(a: RgbImage, b: RgbImage): number {
  if (a.width !== b.width || a.height !== b.height) throw new Error(`sizes differ: ${a.width}×${a.height} vs ${b.width}×${b.height}`);
  let squared = 0;
  for (let i = 0; i < a.data.length; i += 4) {
    for (let c = 0; c < 3; c++) {
      const d = (a.data[i + c] ?? 0) - (b.data[i + c] ?? 0);
      squared += d * d;
    }
  }
  if (squared === 0) return Infinity;
  const mse = squared / (a.width * a.height * 3);
  return 10 * Math.log10((255 * 255) / mse);
}
