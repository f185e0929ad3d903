/**
 * Reads what a canvas shows by drawing it into a 2D canvas, the same way for
 * WebGL2 and Canvas2D output. Call it in the same task as present(): a WebGL
 * drawing buffer is only guaranteed until the page composites.
 */
export function readCanvasRgba(canvas: HTMLCanvasElement): Uint8Array {
  const copy = document.createElement('canvas');
  copy.width = canvas.width;
  copy.height = canvas.height;
  const context = copy.getContext('2d', { willReadFrequently: true });
  if (!context) throw new Error('no 2d context for readback');
  context.drawImage(canvas, 0, 0);
  const data = context.getImageData(0, 0, canvas.width, canvas.height).data;
  return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
}

export function toBase64(bytes: Uint8Array): string {
  let binary = '';
  const chunk = 0x8000;
  for (let i = 0; i < bytes.length; i += chunk) {
    binary += String.fromCharCode(...bytes.subarray(i, i + chunk));
  }
  return btoa(binary);
}
