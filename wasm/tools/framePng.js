// Encodes a frame surface (the wasm heap view) as PNG for the CLI and tests.
import { PNG } from 'pngjs';

/**
 * @param {{ pixels: Uint8Array, width: number, height: number, stride: number, layout: 'bgrx'|'rgbx' }} surface
 * @returns {Buffer}
 */
export function encodeSurfacePng(surface) {
  const { pixels, width, height, stride, layout } = surface;
  const png = new PNG({ width, height, colorType: 2, inputColorType: 6, inputHasAlpha: true });
  const out = png.data;
  const [r, b] = layout === 'bgrx' ? [2, 0] : [0, 2];
  for (let y = 0; y < height; y++) {
    let src = y * stride;
    let dst = y * width * 4;
    for (let x = 0; x < width; x++, src += 4, dst += 4) {
      out[dst] = pixels[src + r];
      out[dst + 1] = pixels[src + 1];
      out[dst + 2] = pixels[src + b];
      out[dst + 3] = 255;
    }
  }
  return PNG.sync.write(png, { colorType: 2 });
}
