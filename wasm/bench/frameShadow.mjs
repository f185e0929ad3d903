// What a renderer holds after uploading only each frame's dirty rectangles,
// kept as a copy so the final picture can be hashed after the session (and its
// surface in the wasm heap) is gone. The C twin is native/frame_shadow.c: the
// same copy and the same hash, so equal hashes mean both builds showed the
// same pixels.

export class FrameShadow {
  width = 0;
  height = 0;
  /** @type {Uint8Array} width * 4 bytes per row, no padding */
  pixels = new Uint8Array(0);

  /**
   * Copies the frame's rectangles; a new size starts a new, black shadow.
   * @param {{ width: number, height: number, stride: number, pixels: Uint8Array, rects: Int32Array }} frame
   */
  apply(frame) {
    const { width, height, stride, pixels, rects } = frame;
    if (width !== this.width || height !== this.height) {
      this.width = width;
      this.height = height;
      this.pixels = new Uint8Array(width * height * 4);
    }
    const clamp = (v, lo, hi) => Math.min(Math.max(v, lo), hi);
    for (let i = 0; i < rects.length; i += 4) {
      const x0 = clamp(rects[i], 0, width);
      const y0 = clamp(rects[i + 1], 0, height);
      const x1 = clamp(rects[i] + rects[i + 2], x0, width);
      const y1 = clamp(rects[i + 1] + rects[i + 3], y0, height);
      for (let y = y0; y < y1; y += 1) {
        const from = y * stride + x0 * 4;
        this.pixels.set(pixels.subarray(from, from + (x1 - x0) * 4), (y * width + x0) * 4);
      }
    }
  }

  /** 32-bit FNV-1a over all bytes, as eight hex digits. */
  hash() {
    let hash = 0x811c9dc5;
    for (const byte of this.pixels) hash = Math.imul(hash ^ byte, 0x01000193);
    return (hash >>> 0).toString(16).padStart(8, '0');
  }
}
