import type { ScenePlan, SceneTarget } from './scenePlan.js';
import { windowVisible } from './windowVisible.js';

// Typed into `cat`, so nothing runs: the text only echoes, line after line,
// like someone taking notes in a terminal during a talk.
export const TERMINAL_LINES: readonly string[] = [
  'lanterna terminal scene: typing continuously so the server keeps sending small updates',
  'the quick brown fox jumps over the lazy dog 0123456789 ~!@#%^&*()_+ [] {} <>',
  'RDP -> gateway -> websocket -> wasm freerdp -> webgl2',
];

/** A full-screen xterm (running `cat`) with xdotool typing into it without end. */
export function terminalScenePlan(target: SceneTarget): ScenePlan {
  const typing = TERMINAL_LINES.map((line) => `xdotool type --delay 40 '${line.replaceAll("'", '')}'; xdotool key Return;`).join(' ');
  return {
    name: 'terminal',
    files: [],
    needsWindowManager: true,
    steps: [
      {
        component: 'xterm (terminal scene)',
        command: 'xterm',
        args: ['-display', target.display, '-fullscreen', '-fa', 'DejaVu Sans Mono', '-fs', '14', '-bg', 'black', '-fg', '#d0d0d0', '-class', 'LanternaTerm', '-e', 'cat'],
        lifetime: 'daemon',
        ready: windowVisible(target.display, 'LanternaTerm'),
      },
      {
        component: 'xdotool typing (terminal scene)',
        command: 'sh',
        args: ['-c', `export DISPLAY=${target.display}; xdotool search --sync --onlyvisible --class LanternaTerm windowactivate --sync >/dev/null 2>&1; while :; do ${typing} done`],
        lifetime: 'daemon',
      },
    ],
  };
}
