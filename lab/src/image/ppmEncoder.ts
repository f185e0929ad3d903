import type { RgbImage } from './rgbImage.js';

/** Binary PPM (P6, 8-bit RGB; alpha dropped): the simplest file ImageMagick's `display` reads exactly. */
export function encodePpm(image: RgbImage): Buffer {
  const header = Buffer.from(`P6\n${image.width} ${image.height}\n255\n`, 'ascii');
  const body = Buffer.alloc(image.width * image.height * 3);
  for (let source = 0, target = 0; source < image.data.length; source += 4, target += 3) {
    body[target] = image.data[source] ?? 0;
    body[target + 1] = image.data[source + 1] ?? 0;
    body[target + 2] = image.data[source + 2] ?? 0;
  }
  return Buffer.concat([header, body]);
}
