import { randomUUID } from 'node:crypto';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { XDisplay, type LabDisplay } from './display/xDisplay.js';
import { startXvfb } from './display/xvfbDisplay.js';
import { isAlive, pidsWithEnv } from './process/procTable.js';
import { onEmergencyExit, runOnce, startChild, type ChildSpec, type RunOnceSpec, type SupervisedChild } from './process/childSupervisor.js';
import { startXrdp, type XrdpOptions, type XrdpServer } from './servers/xrdpServer.js';
import { startShadowServer, type ShadowServer, type ShadowServerOptions } from './servers/shadowServer.js';
import { startWeston, type WestonOptions, type WestonServer } from './servers/westonServer.js';

/** How long a lab child that escaped its supervisor may take to exit by itself. */
const LEAK_GRACE_MS = 3000;

export interface LabOptions {
  /** Names the temp dir and log files ("gateway-relay-test"). */
  name: string;
  /** Keep the temp dir (logs) after close; default: env LANTERNA_KEEP_LOGS=1. */
  keepLogs?: boolean;
}

export interface DisplayOptions {
  width?: number;
  height?: number;
}

type Cleanup = () => Promise<void>;

/** Every process a lab starts carries LANTERNA_LAB_ID=<lab id>, so close() can prove none survived. */
export const LAB_ID_VARIABLE = 'LANTERNA_LAB_ID';

function slug(text: string): string {
  return text.toLowerCase().replaceAll(/[^a-z0-9]+/g, '-').replaceAll(/^-|-$/g, '').slice(0, 60) || 'component';
}

/**
 * One test file's (or demo's) set of real components. Everything it starts is
 * stopped by close(), in reverse order, even when a test failed half-way.
 */
export class Lab {
  private readonly cleanups: { label: string; run: Cleanup }[] = [];
  private sequence = 0;
  private closed = false;
  private closing: Promise<void> | undefined;
  /** Unique per lab; in the environment of everything the lab starts. */
  readonly id = randomUUID();

  private readonly unregisterEmergency: () => void;

  private constructor(
    readonly name: string,
    /** The lab's temp dir: logs under logs/, one folder per component. */
    readonly dir: string,
    private readonly keepLogs: boolean,
  ) {
    // killed before close(): children are SIGKILLed by the supervisor; the temp dir goes too
    this.unregisterEmergency = onEmergencyExit(() => {
      if (!keepLogs) rmSync(dir, { recursive: true, force: true });
    });
  }

  static create(options: LabOptions): Promise<Lab> {
    const dir = mkdtempSync(join(tmpdir(), `lanterna-lab-${slug(options.name)}-`));
    // xrdp sessions run as a test user who must read scene files in here
    chmodSync(dir, 0o755);
    mkdirSync(join(dir, 'logs'), { mode: 0o755 });
    return Promise.resolve(new Lab(options.name, dir, options.keepLogs ?? process.env.LANTERNA_KEEP_LOGS === '1'));
  }

  /** A lab with one X display of `size`: what a test file sharing one display starts with. */
  static async withDisplay(name: string, size: DisplayOptions): Promise<{ lab: Lab; display: LabDisplay }> {
    const lab = await Lab.create({ name });
    return { lab, display: await lab.display(size) };
  }

  get logDir(): string {
    return join(this.dir, 'logs');
  }

  /** A fresh log file path for a component ("logs/03-xvfb.log"). */
  logPathFor(component: string): string {
    this.sequence += 1;
    return join(this.logDir, `${String(this.sequence).padStart(2, '0')}-${slug(component)}.log`);
  }

  /** A fresh directory inside the lab's temp dir. */
  makeDir(purpose: string): string {
    this.sequence += 1;
    const path = join(this.dir, `${String(this.sequence).padStart(2, '0')}-${slug(purpose)}`);
    mkdirSync(path, { mode: 0o755 });
    return path;
  }

  /** Environment to give every process of this lab (merged into what start() spawns). */
  get env(): Record<string, string> {
    return { [LAB_ID_VARIABLE]: this.id };
  }

  /** Live processes started by this lab (found by LANTERNA_LAB_ID in /proc). */
  livePids(): number[] {
    return pidsWithEnv(LAB_ID_VARIABLE, this.id);
  }

  /** Registers something to undo at close (runs in reverse order of registration). */
  onClose(label: string, run: Cleanup): void {
    this.assertOpen();
    this.cleanups.push({ label, run });
  }

  /** Starts and supervises any process (a gateway, a relay) with the lab's logging, readiness and cleanup. */
  async start(spec: Omit<ChildSpec, 'logPath'> & { logPath?: string }): Promise<SupervisedChild> {
    this.assertOpen();
    const child = await startChild({ ...spec, env: { ...this.env, ...spec.env }, logPath: spec.logPath ?? this.logPathFor(spec.component) });
    this.onClose(spec.component, () => child.stop());
    return child;
  }

  /** Runs a short command to completion with a deadline (see runOnce). */
  run(spec: Omit<RunOnceSpec, 'logPath'> & { logPath?: string }): Promise<SupervisedChild> {
    this.assertOpen();
    return runOnce({ ...spec, env: { ...this.env, ...spec.env }, logPath: spec.logPath ?? this.logPathFor(spec.component) });
  }

  /** Xvfb (depth 24) with openbox; scenes can be shown on it. */
  async display(options: DisplayOptions = {}): Promise<LabDisplay> {
    this.assertOpen();
    const width = options.width ?? 1920;
    const height = options.height ?? 1080;
    const started = await startXvfb({ width, height, env: this.env, logPathFor: (component) => this.logPathFor(component) });
    this.onClose('Xvfb', () => started.xvfb.stop());
    this.onClose('openbox', () => started.windowManager.stop());
    const display = new XDisplay(started.name, width, height, { ...this.env, DISPLAY: started.name }, this.makeDir(`scenes-${started.name.slice(1)}`), (component) => this.logPathFor(component));
    this.onClose(`scene on ${started.name}`, () => display.stopScene());
    return display;
  }

  /** FreeRDP's shadow server sharing `display`, on 127.0.0.1 and a free port. */
  async shadowServer(options: ShadowServerOptions): Promise<ShadowServer> {
    this.assertOpen();
    const server = await startShadowServer(options, { dir: this.makeDir(`shadow-${options.auth}`), env: this.env, logPathFor: (component) => this.logPathFor(component) });
    this.onClose(server.child.component, () => server.stop());
    return server;
  }

  /**
   * xrdp + sesman (xorgxrdp backend) on 127.0.0.1 and a free port, TLS only,
   * with a throwaway user whose session shows `scene` once a client logs in.
   */
  async xrdp(options: XrdpOptions = {}): Promise<XrdpServer> {
    this.assertOpen();
    const server = await startXrdp(options, { dir: this.makeDir('xrdp'), env: this.env, logPathFor: (component) => this.logPathFor(component) });
    this.onClose('xrdp', () => server.stop());
    return server;
  }

  /**
   * Weston's RDP backend (TLS, any credentials) on 127.0.0.1 and a free port,
   * showing a still scene full-screen; its own screenshots are exact.
   */
  async weston(options: WestonOptions = {}): Promise<WestonServer> {
    this.assertOpen();
    const server = await startWeston(options, { dir: this.makeDir('weston'), env: this.env, logPathFor: (component) => this.logPathFor(component) });
    this.onClose('weston', () => server.stop());
    return server;
  }

  /** Stops everything in reverse order, then removes the temp dir (kept with LANTERNA_KEEP_LOGS=1). */
  close(): Promise<void> {
    this.closing ??= this.closeAll();
    return this.closing;
  }

  private async closeAll(): Promise<void> {
    this.closed = true;
    const errors: Error[] = [];
    for (const cleanup of this.cleanups.reverse()) {
      try {
        await cleanup.run();
      } catch (error) {
        errors.push(new Error(`closing ${cleanup.label}: ${error instanceof Error ? error.message : String(error)}`));
      }
    }
    // Belt and braces: anything still carrying this lab's id escaped its supervisor.
    // Some helpers leave their parent's process group and exit on their own once
    // the parent is gone (Chromium's crashpad handler, a second or more later on
    // a loaded machine); only what outlives a short grace counts as leaked.
    const graceEnd = Date.now() + LEAK_GRACE_MS;
    while (this.livePids().length > 0 && Date.now() < graceEnd) await sleep(100);
    const leaked = this.livePids();
    if (leaked.length > 0) {
      const describe = (pid: number): string => {
        try {
          return `${pid} ${readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ').trim()}`;
        } catch {
          return String(pid);
        }
      };
      errors.push(new Error(`processes left running after close were killed: ${leaked.map(describe).join('; ')}`));
      for (const pid of leaked) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch { /* gone */ }
      }
      const deadline = Date.now() + 5000;
      while (leaked.some((pid) => isAlive(pid)) && Date.now() < deadline) await sleep(50);
    }
    this.unregisterEmergency();
    if (this.keepLogs) process.stderr.write(`lanterna lab '${this.name}': logs kept in ${this.logDir}\n`);
    else rmSync(this.dir, { recursive: true, force: true });
    if (errors.length > 0) throw new AggregateError(errors, `lab '${this.name}' did not close cleanly: ${errors.map((error) => error.message).join('; ')}`);
  }

  private assertOpen(): void {
    if (this.closed) throw new Error(`lab '${this.name}' is closed`);
  }
}
