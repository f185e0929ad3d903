import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ScenePlan, SceneTarget } from './scenePlan.js';

const CLAPPER = fileURLToPath(new URL('./clapperboardCli.js', import.meta.url));

/**
 * The clapperboard (issue 27): a white flash and a click at every whole
 * second (clapperboardCli.ts). Its program speaks X without authorisation
 * (x11Connection.ts), so the display first lets the session's own user in
 * (xhost's server-interpreted localuser: an xrdp session's X server wants
 * its cookie otherwise). It plays its own sound: an xrdp session starts
 * PipeWire for it.
 */
export function clapperboardScenePlan(target: SceneTarget): ScenePlan {
  const logPath = join(target.workDir, 'clapperboard.log');
  return {
    name: 'clapperboard',
    files: [],
    needsWindowManager: false,
    sound: { logPath },
    steps: [
      {
        component: 'xhost (clapperboard scene)',
        command: 'sh',
        args: ['-c', `DISPLAY=${target.display} xhost +si:localuser:$(id -un)`],
        lifetime: 'once',
      },
      {
        component: 'clapperboard',
        command: process.execPath,
        args: [CLAPPER, target.display, '--log', logPath],
        lifetime: 'daemon',
      },
    ],
  };
}
