import { join } from 'node:path';
import { generateReferenceImage } from '../image/referenceImage.js';
import { encodePpm } from '../image/ppmEncoder.js';
import type { ScenePlan, SceneTarget } from './scenePlan.js';

/**
 * The reference picture as the root window's background: ImageMagick's
 * `display -window root` sets the pixels exactly (no window, no decorations,
 * no dithering at depth 24) and exits; it exits with 1 even on success.
 */
export function referenceScenePlan(target: SceneTarget): ScenePlan {
  const path = join(target.workDir, `reference-${target.width}x${target.height}.ppm`);
  return {
    name: 'reference',
    files: [{ path, content: encodePpm(generateReferenceImage(target.width, target.height)) }],
    needsWindowManager: false,
    steps: [
      {
        component: 'display -window root (reference scene)',
        command: 'display',
        args: ['-display', target.display, '-window', 'root', path],
        lifetime: 'once',
        okExitCodes: [0, 1],
      },
    ],
  };
}
