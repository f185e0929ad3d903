// Pictures as GFX AVC420 wants them: I420 in full range with BT.709's matrix.
// FreeRDP's client (the display's, web/wasm h264Decoders.js → FreeRDP's
// YUV420→RGB primitive) turns the decoded planes into RGB with full-range
// BT.709 coefficients (R = Y + 1.5748·(V−128), …), which is what FreeRDP's
// own encoders write. Captures come as limited-range I420 (Chromium's tab
// and screen capture: black at Y 16, white at 235), which that decoder would
// show washed out (measured: black 16, white 235). So the page expands a
// limited-range capture's planes to full range in place (a table look-up per
// byte), or converts RGBA (a scaled or non-I420 frame drawn on a canvas)
// itself. Pure: bytes in, bytes out.

/** Limited → full range, for luma (16–235) and for chroma (16–240 around 128). */
const LUMA = new Uint8Array(256);
const CHROMA = new Uint8Array(256);
for (let value = 0; value < 256; value++) {
  LUMA[value] = Math.min(255, Math.max(0, Math.round(((value - 16) * 255) / 219)));
  CHROMA[value] = Math.min(255, Math.max(0, Math.round(((value - 128) * 255) / 224 + 128)));
}

/** The three planes' offsets and strides of a tightly packed width×height I420 picture (even sides). */
export function i420Layout(width: number, height: number): { offset: number; stride: number }[] {
  const lumaBytes = width * height;
  const chromaBytes = (width / 2) * (height / 2);
  return [
    { offset: 0, stride: width },
    { offset: lumaBytes, stride: width / 2 },
    { offset: lumaBytes + chromaBytes, stride: width / 2 },
  ];
}

/** A tightly packed limited-range I420 picture, expanded to full range in place. */
export function expandI420ToFullRange(i420: Uint8Array, width: number, height: number): void {
  const lumaBytes = width * height;
  for (let i = 0; i < lumaBytes; i++) i420[i] = LUMA[i420[i] ?? 0] ?? 0;
  for (let i = lumaBytes; i < i420.length; i++) i420[i] = CHROMA[i420[i] ?? 0] ?? 0;
}

/** R,G,B,A (a canvas's ImageData) → tightly packed full-range BT.709 I420; chroma is each 2×2 block's mean. */
export function rgbaToFullRangeI420(rgba: Uint8Array | Uint8ClampedArray, width: number, height: number, out = new Uint8Array((width * height * 3) / 2)): Uint8Array {
  const [, uPlane, vPlane] = i420Layout(width, height);
  const uOffset = uPlane?.offset ?? 0;
  const vOffset = vPlane?.offset ?? 0;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const at = (y * width + x) * 4;
      const r = rgba[at] ?? 0;
      const g = rgba[at + 1] ?? 0;
      const b = rgba[at + 2] ?? 0;
      out[y * width + x] = Math.round(0.2126 * r + 0.7152 * g + 0.0722 * b);
    }
  }
  const halfWidth = width / 2;
  for (let y = 0; y < height; y += 2) {
    for (let x = 0; x < width; x += 2) {
      let r = 0;
      let g = 0;
      let b = 0;
      for (const [dx, dy] of [[0, 0], [1, 0], [0, 1], [1, 1]] as const) {
        const at = ((y + dy) * width + x + dx) * 4;
        r += rgba[at] ?? 0;
        g += rgba[at + 1] ?? 0;
        b += rgba[at + 2] ?? 0;
      }
      r /= 4;
      g /= 4;
      b /= 4;
      const luma = 0.2126 * r + 0.7152 * g + 0.0722 * b;
      const at = (y / 2) * halfWidth + x / 2;
      out[uOffset + at] = Math.min(255, Math.max(0, Math.round((b - luma) / 1.8556 + 128)));
      out[vOffset + at] = Math.min(255, Math.max(0, Math.round((r - luma) / 1.5748 + 128)));
    }
  }
  return out;
}
