import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { encodePpm } from '../image/ppmEncoder.js';
import { writeRgbPng } from '../display/pngFile.js';
import { generateReferenceImage } from '../image/referenceImage.js';
import { slideMvg, slidePhotoSize } from './slideDrawing.js';
import { generateSlidePhoto } from './slidePhoto.js';

/** The still scenes: the ones that are one picture. */
export type StillSceneName = 'reference' | 'slide';

/**
 * A still scene as an 8-bit RGB PNG in `dir`, for servers that show pictures
 * through a program of their own rather than an X root window (Weston shows
 * it with weston-image). The same drawing as the X scenes: the reference
 * picture from `generateReferenceImage`, the slide from the same MVG commands
 * through ImageMagick. Returns the PNG's path.
 */
export async function writeScenePng(scene: StillSceneName, width: number, height: number, dir: string): Promise<string> {
  const size = `${width}x${height}`;
  const pngPath = join(dir, `${scene}-${size}.png`);
  if (scene === 'reference') {
    const ppmPath = join(dir, `reference-${size}.ppm`);
    writeFileSync(ppmPath, encodePpm(generateReferenceImage(width, height)));
    await writeRgbPng(`ppm:${ppmPath}`, pngPath);
    return pngPath;
  }
  const photo = slidePhotoSize(width, height);
  const photoPath = join(dir, `slide-photo-${size}.ppm`);
  const mvgPath = join(dir, `slide-${size}.mvg`);
  writeFileSync(photoPath, encodePpm(generateSlidePhoto(photo.width, photo.height)));
  writeFileSync(mvgPath, slideMvg(width, height, photoPath));
  await writeRgbPng(`mvg:${mvgPath}`, pngPath);
  return pngPath;
}
