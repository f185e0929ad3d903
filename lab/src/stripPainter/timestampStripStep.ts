import { fileURLToPath } from 'node:url';
import { readTimestampStrip } from '@lanterna/protocol';
import { captureScreen } from '../display/screenshot.js';
import { customProbe } from '../process/readiness.js';
import type { ScenePlan, SceneTarget } from '../scenes/scenePlan.js';

const PAINTER = fileURLToPath(new URL('./stripPainterCli.js', import.meta.url));

/**
 * The plan with the timestamp strip painter as its last program (so its
 * window starts on top), ready once a screenshot of the display reads back a
 * stamp: the strip is on screen, not just asked for.
 */
export function withTimestampStrip(plan: ScenePlan, target: SceneTarget): ScenePlan {
  return {
    ...plan,
    steps: [
      ...plan.steps,
      {
        component: `timestamp strip painter (${plan.name} scene)`,
        command: process.execPath,
        args: [PAINTER, target.display],
        lifetime: 'daemon',
        ready: customProbe(`a readable timestamp strip on ${target.display}`, async () => {
          const shot = await captureScreen(target.display);
          return readTimestampStrip({ pixels: shot.data, stride: shot.width * 4, width: shot.width, height: shot.height }) !== null;
        }),
      },
    ],
  };
}
