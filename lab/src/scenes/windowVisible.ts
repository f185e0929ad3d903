import { execFile } from 'node:child_process';
import { customProbe, type ReadinessCheck } from '../process/readiness.js';

/** Ready when a visible window of the given WM_CLASS exists on the display. */
export function windowVisible(display: string, windowClass: string): ReadinessCheck {
  return customProbe(`a visible ${windowClass} window on ${display}`, () =>
    new Promise((resolve) => {
      execFile('xdotool', ['search', '--onlyvisible', '--class', windowClass], { env: { ...process.env, DISPLAY: display }, timeout: 2000 }, (error, stdout) =>
        resolve(error === null && stdout.trim() !== ''));
    }));
}
