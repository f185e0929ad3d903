// The X side of a kiosk: wait for the display to answer (at boot X may come
// up after the service), make sure a window manager runs (without one a
// --kiosk window does not cover the screen), and keep the screen from
// blanking (X's screen saver and DPMS; the page adds a wake lock).
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import type { Logger } from 'pino';
import { killFamily } from './processFamily.js';

export interface XSessionOptions {
  /** ':0' */
  readonly display: string;
  /** Environment for X programs (XAUTHORITY passes through from here). */
  readonly env: NodeJS.ProcessEnv;
  readonly logger: Logger;
}

interface ToolResult {
  readonly ok: boolean;
  readonly output: string;
}

function runTool(command: string, args: readonly string[], env: NodeJS.ProcessEnv, timeoutMs = 5000): Promise<ToolResult> {
  return new Promise((resolve) => {
    execFile(command, args, { env, timeout: timeoutMs, encoding: 'utf8' }, (error, stdout, stderr) => {
      resolve({ ok: error === null, output: `${stdout}${stderr}`.trim() || (error?.message ?? '') });
    });
  });
}

/** Whether the X display accepts a client. */
export async function xDisplayAnswers(options: Pick<XSessionOptions, 'display' | 'env'>): Promise<boolean> {
  return (await runTool('xset', ['-display', options.display, 'q'], options.env)).ok;
}

/**
 * Whether an EWMH window manager runs (openbox, xfwm4, matchbox, mutter …).
 * The root window's _NET_SUPPORTING_WM_CHECK names a window of the manager's,
 * which must exist and name itself the same way: a manager that died leaves
 * the root's property behind, pointing at a window that is gone.
 */
export async function windowManagerRuns(options: Pick<XSessionOptions, 'display' | 'env'>): Promise<boolean> {
  const root = await runTool('xprop', ['-display', options.display, '-root', '_NET_SUPPORTING_WM_CHECK'], options.env);
  const id = /window id # (0x[0-9a-f]+)/i.exec(root.output)?.[1];
  if (!root.ok || id === undefined) return false;
  const child = await runTool('xprop', ['-display', options.display, '-id', id, '_NET_SUPPORTING_WM_CHECK'], options.env);
  return child.ok && child.output.toLowerCase().includes(`window id # ${id.toLowerCase()}`);
}

/** An openbox the launcher started; stop() ends it and anything it spawned. */
export interface StartedWindowManager {
  readonly pid: number;
  hasExited(): boolean;
  stop(): Promise<void>;
}

/**
 * Starts `openbox --sm-disable` when no window manager runs. Resolves once it
 * manages the display; undefined when one was already there.
 */
export async function ensureWindowManager(options: XSessionOptions, deadlineMs = 10_000): Promise<StartedWindowManager | undefined> {
  if (await windowManagerRuns(options)) return undefined;
  const child: ChildProcess = spawn('openbox', ['--sm-disable'], {
    env: { ...options.env, DISPLAY: options.display },
    stdio: 'ignore',
    detached: true, // own process group, so stop() reaches what it spawns
  });
  const state: { exited: boolean; spawnError?: Error } = { exited: false };
  child.once('exit', () => { state.exited = true; });
  child.once('error', (error) => { state.spawnError = error; state.exited = true; });
  const pid = child.pid ?? -1;
  const started: StartedWindowManager = {
    pid,
    hasExited: () => state.exited,
    stop: async () => {
      if (pid > 0) await killFamily(pid);
    },
  };
  const end = Date.now() + deadlineMs;
  while (!(await windowManagerRuns(options))) {
    if (state.exited || Date.now() > end) {
      await started.stop();
      throw new Error(`openbox did not start on ${options.display}: ${state.spawnError?.message ?? (state.exited ? 'it exited' : `not managing the display after ${deadlineMs} ms`)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  options.logger.info({ pid, display: options.display }, 'started openbox: no window manager was running');
  return started;
}

/**
 * Turns off X's screen saver, blanking and DPMS. Each setting is tried on
 * its own (Xvfb, for one, has no DPMS); returns what could not be set.
 */
export async function keepScreenAwake(options: XSessionOptions): Promise<string[]> {
  const failed: string[] = [];
  for (const args of [['s', 'off'], ['s', 'noblank'], ['-dpms']]) {
    const result = await runTool('xset', ['-display', options.display, ...args], options.env);
    // xset exits 0 but complains when the server lacks the extension
    if (!result.ok || /does not have|unable/i.test(result.output)) failed.push(`xset ${args.join(' ')}: ${result.output || 'failed'}`);
  }
  if (failed.length > 0) options.logger.info({ display: options.display, notApplied: failed }, 'screen kept awake where the X server allows');
  else options.logger.info({ display: options.display }, 'screen saver, blanking and DPMS off');
  return failed;
}
