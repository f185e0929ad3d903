import { join } from 'node:path';
import { encodePpm } from '../image/ppmEncoder.js';
import type { ScenePlan, SceneTarget } from './scenePlan.js';
import { slideMvg, slidePhotoSize } from './slideDrawing.js';
import { generateSlidePhoto } from './slidePhoto.js';

/**
 * A presentation slide as the root window's background: ImageMagick renders
 * the draw commands (text through FreeType, so anti-aliased like a real
 * presentation program's) to an 8-bit PPM, then `display -window root` sets
 * it exactly, as the reference scene does. Same fonts and ImageMagick, same
 * pixels: the picture is deterministic on one machine; tests compare against
 * a screenshot of the display, not against a stored image.
 */
export function slideScenePlan(target: SceneTarget): ScenePlan {
  const size = `${target.width}x${target.height}`;
  const photo = slidePhotoSize(target.width, target.height);
  const photoPath = join(target.workDir, `slide-photo-${size}.ppm`);
  const mvgPath = join(target.workDir, `slide-${size}.mvg`);
  const picturePath = join(target.workDir, `slide-${size}.ppm`);
  return {
    name: 'slide',
    files: [
      { path: photoPath, content: encodePpm(generateSlidePhoto(photo.width, photo.height)) },
      { path: mvgPath, content: slideMvg(target.width, target.height, photoPath) },
    ],
    needsWindowManager: false,
    steps: [
      {
        component: 'convert (slide scene)',
        command: 'convert',
        args: [`mvg:${mvgPath}`, '-depth', '8', `ppm:${picturePath}`],
        lifetime: 'once',
      },
      {
        component: 'display -window root (slide scene)',
        command: 'display',
        args: ['-display', target.display, '-window', 'root', picturePath],
        lifetime: 'once',
        okExitCodes: [0, 1],
      },
    ],
  };
}
