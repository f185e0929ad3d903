import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { ComponentStartError } from './componentStartError.js';
import { readLogTail } from './logTail.js';
import { isAlive, liveFamily } from './procTable.js';
import type { ReadinessCheck, ReadinessSubject } from './readiness.js';

/** The variable the suite runner sets and later looks for in /proc to find leaked processes. */
export const LAB_TAG_VARIABLE = 'LANTERNA_LAB_TAG';

export interface ChildSpec {
  /** Component name used in errors ("Xvfb", "freerdp-shadow-cli3 (tls)"). */
  component: string;
  command: string;
  args?: readonly string[];
  /** Added over process.env; an undefined value removes the variable. LANTERNA_LAB_TAG always passes through. */
  env?: Record<string, string | undefined>;
  cwd?: string;
  /** stdout and stderr go here (appended). */
  logPath: string;
  ready?: ReadinessCheck;
  readyTimeoutMs?: number;
  /** Time between SIGTERM and SIGKILL when stopping. */
  stopGraceMs?: number;
  /** Give the child a pipe on fd 3 (Xvfb -displayfd 3); its text is readable via extraPipeText(). */
  extraPipe?: boolean;
}

const DEFAULT_READY_TIMEOUT_MS = 15_000;
const DEFAULT_STOP_GRACE_MS = 3_000;
const KILL_WAIT_MS = 5_000;
const POLL_MS = 50;

const running = new Set<SupervisedChild>();
const emergencyCleanups = new Set<() => void>();
let exitHookInstalled = false;

/**
 * Registers synchronous cleanup (delete a test user, a temp dir) to run if the
 * process exits or is killed by a signal before the normal, asynchronous
 * cleanup ran. Returns the function that unregisters it.
 */
export function onEmergencyExit(cleanup: () => void): () => void {
  installExitHook();
  emergencyCleanups.add(cleanup);
  return () => emergencyCleanups.delete(cleanup);
}

// If the test process ends without closing its lab (a crash, process.exit,
// a runner's SIGTERM), take the children with it: 'exit' handlers must be
// synchronous, so SIGKILL. A signal only counts when nobody else handles it
// (the CLI closes its lab gracefully on SIGTERM); then it is raised again so
// the process still dies of it.
function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  const killAll = (): void => {
    for (const child of running) child.killNow();
    for (const cleanup of emergencyCleanups) {
      try {
        cleanup();
      } catch { /* best effort while dying */ }
    }
    emergencyCleanups.clear();
  };
  process.once('exit', killAll);
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    // first in line, so the other listeners are still counted when it runs
    const onSignal = (): void => {
      if (process.listenerCount(signal) > 1) return; // someone else owns this signal
      killAll();
      process.removeListener(signal, onSignal);
      process.kill(process.pid, signal);
    };
    process.prependListener(signal, onSignal);
  }
}

function commandLineOf(command: string, args: readonly string[]): string {
  return [command, ...args].map((part) => (/^[\w@%+=:,./-]+$/.test(part) ? part : `'${part.replaceAll("'", `'\\''`)}'`)).join(' ');
}

function signalQuietly(target: number, signal: NodeJS.Signals): void {
  try {
    process.kill(target, signal);
  } catch { /* already gone */ }
}

async function waitFor(condition: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() >= deadline) return false;
    await sleep(POLL_MS);
  }
  return true;
}

/** A started child process in its own process group, with its log in a file. */
export class SupervisedChild implements ReadinessSubject {
  readonly commandLine: string;
  exitCode: number | null = null;
  exitSignal: NodeJS.Signals | null = null;
  /** Resolves when the direct child has exited (never rejects). */
  readonly exited: Promise<void>;
  private pipeText = '';
  private stopping: Promise<void> | undefined;
  private hasExitedFlag = false;

  constructor(
    readonly component: string,
    readonly pid: number,
    readonly logPath: string,
    private readonly process: ChildProcess,
    command: string,
    args: readonly string[],
    private readonly stopGraceMs: number,
  ) {
    this.commandLine = commandLineOf(command, args);
    this.exited = new Promise((resolve) => {
      process.once('exit', (code, signal) => {
        this.exitCode = code;
        this.exitSignal = signal;
        this.hasExitedFlag = true;
        resolve();
      });
    });
    const pipe = process.stdio[3];
    if (pipe !== undefined && pipe !== null && 'on' in pipe) {
      pipe.on('data', (chunk: Buffer) => { this.pipeText += chunk.toString('utf8'); });
      pipe.on('error', () => undefined);
    }
  }

  hasExited(): boolean {
    return this.hasExitedFlag;
  }

  extraPipeText(): string {
    return this.pipeText;
  }

  /** How the child ended, for messages ("exited with code 1", "killed by SIGKILL"). */
  describeExit(): string {
    if (!this.hasExitedFlag) return 'still running';
    return this.exitSignal !== null ? `killed by ${this.exitSignal}` : `exited with code ${this.exitCode ?? 'unknown'}`;
  }

  /**
   * SIGTERM to the process group and every descendant, SIGKILL after the grace
   * period, then wait until none is alive. Safe to call more than once.
   */
  stop(): Promise<void> {
    this.stopping ??= this.stopFamily();
    return this.stopping;
  }

  /** Synchronous SIGKILL of the whole family, for process exit. */
  killNow(): void {
    for (const pid of liveFamily(this.pid)) signalQuietly(pid, 'SIGKILL');
    signalQuietly(-this.pid, 'SIGKILL');
  }

  private async stopFamily(): Promise<void> {
    // Snapshot first: descendants that called setsid are only found through
    // their parents, which are about to die.
    const family = new Set(liveFamily(this.pid));
    const alive = (): number[] => {
      for (const pid of liveFamily(this.pid)) family.add(pid);
      return [...family].filter((pid) => isAlive(pid));
    };
    signalQuietly(-this.pid, 'SIGTERM');
    for (const pid of family) signalQuietly(pid, 'SIGTERM');
    if (!(await waitFor(() => alive().length === 0, this.stopGraceMs))) {
      signalQuietly(-this.pid, 'SIGKILL');
      for (const pid of alive()) signalQuietly(pid, 'SIGKILL');
      if (!(await waitFor(() => alive().length === 0, KILL_WAIT_MS))) {
        throw new Error(`${this.component} processes ${alive().join(', ')} survived SIGKILL`);
      }
    }
    await Promise.race([this.exited, sleep(KILL_WAIT_MS, undefined, { ref: false })]);
    running.delete(this);
  }
}

/**
 * Starts a child and waits until its readiness check passes. On failure (it
 * exits, it cannot be spawned, or the deadline passes) the child is stopped and
 * a ComponentStartError names it, its command line and its log's last lines.
 */
export async function startChild(spec: ChildSpec): Promise<SupervisedChild> {
  installExitHook();
  const args = spec.args ?? [];
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const [name, value] of Object.entries(spec.env ?? {})) {
    if (value === undefined) Reflect.deleteProperty(env, name);
    else env[name] = value;
  }
  const tag = process.env[LAB_TAG_VARIABLE];
  if (tag !== undefined) env[LAB_TAG_VARIABLE] = tag;

  const logFd = openSync(spec.logPath, 'a');
  let child: ChildProcess;
  try {
    child = spawn(spec.command, args, {
      cwd: spec.cwd,
      env,
      detached: true, // own process group, so stop() reaches grandchildren
      stdio: ['ignore', logFd, logFd, ...(spec.extraPipe === true ? ['pipe' as const] : [])],
    });
  } finally {
    closeSync(logFd);
  }
  const spawned = await new Promise<Error | undefined>((resolve) => {
    child.once('spawn', () => resolve(undefined));
    child.once('error', (error) => resolve(error));
  });
  const commandLine = commandLineOf(spec.command, args);
  if (spawned !== undefined || child.pid === undefined) {
    throw new ComponentStartError(spec.component, commandLine, 'spawn', `cannot spawn: ${spawned?.message ?? 'no pid'}`, spec.logPath, readLogTail(spec.logPath));
  }
  const supervised = new SupervisedChild(spec.component, child.pid, spec.logPath, child, spec.command, args, spec.stopGraceMs ?? DEFAULT_STOP_GRACE_MS);
  running.add(supervised);
  if (spec.ready === undefined) return supervised;

  const timeoutMs = spec.readyTimeoutMs ?? DEFAULT_READY_TIMEOUT_MS;
  const failure = await waitReady(supervised, spec.ready, timeoutMs);
  if (failure === undefined) return supervised;
  await supervised.stop().catch(() => undefined);
  throw new ComponentStartError(spec.component, commandLine, failure.kind, failure.detail, spec.logPath, readLogTail(spec.logPath));
}

async function waitReady(
  child: SupervisedChild,
  ready: ReadinessCheck,
  timeoutMs: number,
): Promise<{ kind: 'exited' | 'deadline'; detail: string } | undefined> {
  const deadline = Date.now() + timeoutMs;
  const exitedEarly = (): { kind: 'exited'; detail: string } => ({
    kind: 'exited',
    detail: `${child.describeExit()} before it was ready; waited for: ${ready.description}`,
  });
  for (;;) {
    if (child.hasExited()) return exitedEarly();
    const remaining = deadline - Date.now();
    const answer = await Promise.race([
      ready.check(child),
      child.exited.then(() => false),
      sleep(Math.max(remaining, 0), undefined, { ref: false }).then(() => false),
    ]);
    if (answer) return undefined;
    if (child.hasExited()) return exitedEarly();
    if (Date.now() >= deadline) return { kind: 'deadline', detail: `not ready within ${timeoutMs} ms; waited for: ${ready.description}` };
    await Promise.race([sleep(Math.min(100, Math.max(deadline - Date.now(), 0)), undefined, { ref: false }), child.exited]);
  }
}

export interface RunOnceSpec extends ChildSpec {
  timeoutMs?: number;
  okExitCodes?: readonly number[];
}

/** Runs a short-lived command to completion; throws ComponentStartError when it fails or overruns its deadline. */
export async function runOnce(spec: RunOnceSpec): Promise<SupervisedChild> {
  const child = await startChild({ ...spec, ready: undefined });
  const timeoutMs = spec.timeoutMs ?? DEFAULT_READY_TIMEOUT_MS;
  const finished = await Promise.race([child.exited.then(() => true), sleep(timeoutMs, undefined, { ref: false }).then(() => false)]);
  if (!finished) {
    await child.stop().catch(() => undefined);
    throw new ComponentStartError(spec.component, child.commandLine, 'deadline', `did not finish within ${timeoutMs} ms`, spec.logPath, readLogTail(spec.logPath));
  }
  await child.stop(); // reaps anything it left behind in its group
  const okExitCodes = spec.okExitCodes ?? [0];
  if (child.exitCode === null || !okExitCodes.includes(child.exitCode)) {
    throw new ComponentStartError(spec.component, child.commandLine, 'exited', child.describeExit(), spec.logPath, readLogTail(spec.logPath));
  }
  return child;
}
