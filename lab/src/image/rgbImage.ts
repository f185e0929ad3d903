/**
 * An image as the lab hands it around: 8-bit RGBA, rows top to bottom, no
 * padding, so `data.length === width * height * 4` and the pixel at (x, y)
 * starts at `(y * width + x) * 4`. Alpha is always 255 for screen captures.
 */
export interface RgbImage {
  width: number;
  height: number;
  data: Buffer;
}

/** Where two images first differ and how many pixels differ, or undefined when they are equal. */
export interface ImageDifference {
  differingPixels: number;
  first: { x: number; y: number; expected: number[]; actual: number[] } | undefined;
  sizeMismatch: boolean;
}

export function createImage(width: number, height: number): RgbImage {
  return { width, height, data: Buffer.alloc(width * height * 4) };
}

/** Compares pixel by pixel (exact, no tolerance). */
export function compareImages(expected: RgbImage, actual: RgbImage): ImageDifference | undefined {
  if (expected.width !== actual.width || expected.height !== actual.height) {
    return { differingPixels: Math.max(expected.width * expected.height, actual.width * actual.height), first: undefined, sizeMismatch: true };
  }
  if (expected.data.equals(actual.data)) return undefined;
  let differingPixels = 0;
  let first: ImageDifference['first'];
  for (let offset = 0; offset < expected.data.length; offset += 4) {
    if (expected.data.readUInt32BE(offset) !== actual.data.readUInt32BE(offset)) {
      differingPixels += 1;
      if (first === undefined) {
        const pixel = offset / 4;
        first = {
          x: pixel % expected.width,
          y: Math.floor(pixel / expected.width),
          expected: [...expected.data.subarray(offset, offset + 4)],
          actual: [...actual.data.subarray(offset, offset + 4)],
        };
      }
    }
  }
  return { differingPixels, first, sizeMismatch: false };
}

/** A one-line account of a difference, for assertion messages. */
export function describeDifference(difference: ImageDifference | undefined): string {
  if (difference === undefined) return 'images are equal';
  if (difference.sizeMismatch) return 'image sizes differ';
  const first = difference.first;
  return `${difference.differingPixels} pixels differ` +
    (first === undefined ? '' : `, first at (${first.x}, ${first.y}): expected rgba(${first.expected.join(',')}) got rgba(${first.actual.join(',')})`);
}
