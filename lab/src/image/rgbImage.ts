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

/** Where two images first differ, how many pixels differ and within which box, or undefined when they are equal. */
export interface ImageDifference {
  differingPixels: number;
  first: { x: number; y: number; expected: number[]; actual: number[] } | undefined;
  /** The smallest rectangle holding every differing pixel (inclusive corners): a failure in CI says where, not only how many. */
  box?: { left: number; top: number; right: number; bottom: number };
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
  const box = { left: expected.width, top: expected.height, right: -1, bottom: -1 };
  for (let offset = 0; offset < expected.data.length; offset += 4) {
    if (expected.data.readUInt32BE(offset) !== actual.data.readUInt32BE(offset)) {
      differingPixels += 1;
      const pixel = offset / 4;
      const x = pixel % expected.width;
      const y = Math.floor(pixel / expected.width);
      box.left = Math.min(box.left, x);
      box.right = Math.max(box.right, x);
      box.top = Math.min(box.top, y);
      box.bottom = Math.max(box.bottom, y);
      if (first === undefined) {
        first = {
          x,
          y,
          expected: [...expected.data.subarray(offset, offset + 4)],
          actual: [...actual.data.subarray(offset, offset + 4)],
        };
      }
    }
  }
  return { differingPixels, first, box, sizeMismatch: false };
}

/** A one-line account of a difference, for assertion messages. */
export function describeDifference(difference: ImageDifference | undefined): string {
  if (difference === undefined) return 'images are equal';
  if (difference.sizeMismatch) return 'image sizes differ';
  const first = difference.first;
  const box = difference.box;
  return `${difference.differingPixels} pixels differ` +
    (box === undefined ? '' : ` within (${box.left}, ${box.top})–(${box.right}, ${box.bottom})`) +
    (first === undefined ? '' : `, first at (${first.x}, ${first.y}): expected rgba(${first.expected.join(',')}) got rgba(${first.actual.join(',')})`);
}
