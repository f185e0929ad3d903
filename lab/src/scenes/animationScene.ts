import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ANIMATION_PAGE_HTML } from './animationPage.js';
import type { ScenePlan, SceneTarget } from './scenePlan.js';
import { windowVisible } from './windowVisible.js';

/** Flags from NOTES.md: no network chatter, no first-run UI, no crash bubbles. */
export const KIOSK_CHROMIUM_FLAGS: readonly string[] = [
  '--no-sandbox', '--disable-background-networking', '--disable-component-update', '--disable-sync',
  '--no-first-run', '--no-default-browser-check', '--noerrdialogs', '--disable-infobars',
  '--disable-session-crashed-bubble', '--disable-quic',
];

/** Debian's chromium in kiosk mode showing the full-screen canvas animation (60 fps requestAnimationFrame). */
export function animationScenePlan(target: SceneTarget): ScenePlan {
  const page = join(target.workDir, 'animation.html');
  const profile = join(target.workDir, 'chromium-profile');
  return {
    name: 'animation',
    files: [{ path: page, content: ANIMATION_PAGE_HTML }],
    needsWindowManager: true,
    steps: [
      {
        component: 'chromium (animation scene)',
        command: 'chromium',
        args: [
          ...KIOSK_CHROMIUM_FLAGS,
          `--display=${target.display}`,
          `--user-data-dir=${profile}`,
          `--window-size=${target.width},${target.height}`,
          '--window-position=0,0',
          '--kiosk',
          `--app=${pathToFileURL(page).href}`,
        ],
        lifetime: 'daemon',
        ready: windowVisible(target.display, 'chromium'),
      },
    ],
  };
}
