import { execFile } from 'node:child_process';
import { startChild, type SupervisedChild } from '../process/childSupervisor.js';
import { customProbe } from '../process/readiness.js';

export interface XvfbOptions {
  width: number;
  height: number;
  logPathFor(component: string): string;
  /** Extra environment for Xvfb and openbox. */
  env?: Record<string, string>;
  readyTimeoutMs?: number;
}

export interface StartedXvfb {
  name: string;
  xvfb: SupervisedChild;
  windowManager: SupervisedChild;
}

function wmCheckPresent(display: string): Promise<boolean> {
  return new Promise((resolve) => {
    execFile('xprop', ['-display', display, '-root', '_NET_SUPPORTING_WM_CHECK'], { timeout: 2000 }, (error, stdout) =>
      resolve(error === null && stdout.includes('window id')));
  });
}

/**
 * Xvfb at depth 24 on a display number it picks itself (-displayfd: no race
 * with other labs over lock files), then openbox on it: without a window
 * manager, full-screen and kiosk windows do not cover the screen.
 */
export async function startXvfb(options: XvfbOptions): Promise<StartedXvfb> {
  const readyTimeoutMs = options.readyTimeoutMs ?? 15_000;
  const xvfb = await startChild({
    component: 'Xvfb',
    command: 'Xvfb',
    args: ['-displayfd', '3', '-screen', '0', `${options.width}x${options.height}x24`, '-nolisten', 'tcp', '-noreset'],
    env: options.env,
    logPath: options.logPathFor('Xvfb'),
    extraPipe: true,
    ready: customProbe('display number written to -displayfd', (subject) => Promise.resolve(/^\d+\n/.test(subject.extraPipeText()))),
    readyTimeoutMs,
  });
  const name = `:${xvfb.extraPipeText().trim()}`;
  try {
    const windowManager = await startChild({
      component: 'openbox',
      command: 'openbox',
      args: ['--sm-disable'],
      env: { ...options.env, DISPLAY: name },
      logPath: options.logPathFor('openbox'),
      ready: customProbe(`openbox manages ${name}`, () => wmCheckPresent(name)),
      readyTimeoutMs,
    });
    return { name, xvfb, windowManager };
  } catch (error) {
    await xvfb.stop();
    throw error;
  }
}
