// A child process the run owns: started in its own process group (so helpers
// that fork, like websockify, go down with it), optionally pinned to CPUs with
// taskset, its output kept for diagnostics, and always stopped with a deadline.
import { spawn, type ChildProcess, type StdioOptions } from 'node:child_process';
import { appendFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { waitForListening } from './tcpPorts.js';

/**
 * Niceness for every process a run starts. On a machine shared with niced
 * builds, a negative value keeps their wake-ups from queueing behind the
 * builds (the load test then sees what a dedicated gateway host would).
 */
export const NICENESS_ENV = 'LANTERNA_LOADTEST_NICE';

/**
 * A folder to which every child's whole output is appended (`<name>-<pid>.log`),
 * for profiling flags that print as they go (`--trace-gc-nvp`): the kept tail
 * holds only the last lines.
 */
export const OUTPUT_DIR_ENV = 'LANTERNA_LOADTEST_OUTPUT_DIR';

export interface ManagedProcessOptions {
  command: string;
  args: string[];
  /** taskset CPU list, e.g. "0" or "1-3"; unset = no pinning. */
  cpus?: string | undefined;
  /**
   * Run under SCHED_BATCH (`chrt -b 0`; its niceness kept): the kernel then
   * lets no wake-up of the process preempt the task running on its CPU. For
   * the Go load processes, which share one CPU: with preemption on every
   * wake-up, each write of the generator switched to the echo host and back
   * (loadtest/README.md, "Generators").
   */
  batchScheduling?: boolean;
  /** This process's niceness (and its autogroup's), instead of the run's (`LANTERNA_LOADTEST_NICE`). */
  niceness?: string | undefined;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** Adds an IPC channel (the child must be node). */
  ipc?: boolean;
  /** A pipe to the child's stdin (`child.stdin`), for children that take messages there. */
  stdinPipe?: boolean;
  onLine?: (line: string) => void;
  /** Lines of stdout only (without them in the kept tail): a child that answers on stdout. */
  onStdoutLine?: (line: string) => void;
}

/**
 * Linux's autogroup scheduling (on by default) shares a CPU equally between
 * sessions whatever their tasks' nice values, and a detached child leads a
 * session of its own: measured with a nice 19 build in another session on
 * the gateway's core, the nice -10 gateway got half of it and its p99 went
 * from 7 ms to hundreds. The group's niceness is what counts between
 * sessions, so the child's group gets the run's niceness too.
 */
export function setAutogroupNiceness(pid: number, niceness: string): void {
  try {
    writeFileSync(`/proc/${pid}/autogroup`, niceness);
  } catch {
    // No autogroup in this kernel (nothing to set), or not allowed to raise priority: nice alone then applies.
  }
}

export class ManagedProcess {
  readonly child: ChildProcess;
  private readonly tail: string[] = [];
  private exited = false;
  private readonly exitPromise: Promise<void>;

  constructor(readonly name: string, options: ManagedProcessOptions) {
    let [command, args] = options.batchScheduling === true
      ? ['chrt', ['-b', '0', options.command, ...options.args]]
      : [options.command, options.args];
    if (options.cpus !== undefined) [command, args] = ['taskset', ['-c', options.cpus, command, ...args]];
    const niceness = options.niceness ?? (process.env[NICENESS_ENV] || undefined);
    if (niceness !== undefined && niceness !== '0') [command, args] = ['nice', ['-n', niceness, command, ...args]];
    const stdin = options.stdinPipe === true ? 'pipe' : 'ignore';
    const stdio: StdioOptions = options.ipc === true ? [stdin, 'pipe', 'pipe', 'ipc'] : [stdin, 'pipe', 'pipe'];
    this.child = spawn(command, args, { stdio, detached: true, env: options.env ?? process.env, cwd: options.cwd });
    if (niceness !== undefined && this.child.pid !== undefined) setAutogroupNiceness(this.child.pid, niceness);
    this.exitPromise = new Promise((resolve) => this.child.once('exit', () => { this.exited = true; resolve(); }));
    const lineReader = (onLine: (line: string) => void): (chunk: Buffer) => void => {
      let partial = '';
      return (chunk) => {
        const lines = (partial + chunk.toString('utf8')).split('\n');
        partial = lines.pop() ?? '';
        for (const line of lines) onLine(line);
      };
    };
    const outputDir = process.env[OUTPUT_DIR_ENV];
    const outputFile = outputDir === undefined || outputDir === '' ? undefined : join(outputDir, `${name}-${this.child.pid ?? 'unstarted'}.log`);
    const keep = (line: string): void => {
      if (outputFile !== undefined) appendFileSync(outputFile, `${line}\n`);
      this.tail.push(line);
      if (this.tail.length > 40) this.tail.shift();
      options.onLine?.(line);
    };
    const onStdoutLine = options.onStdoutLine;
    this.child.stdout?.on('data', lineReader(onStdoutLine ?? keep));
    this.child.stderr?.on('data', lineReader(keep));
  }

  get pid(): number {
    if (this.child.pid === undefined) throw new Error(`${this.name} did not start`);
    return this.child.pid;
  }

  isAlive(): boolean { return !this.exited; }

  recentOutput(): string { return this.tail.join('\n'); }

  /**
   * Waits until the process listens on 127.0.0.1:`port`; when it does not
   * within `timeoutMs` (or exits first), `cleanUp` runs and the error says
   * so with the process's last output.
   */
  async listeningOn(port: number, timeoutMs: number, cleanUp: () => Promise<void>): Promise<void> {
    try {
      await waitForListening('127.0.0.1', port, timeoutMs, () => this.isAlive());
    } catch (error) {
      await cleanUp();
      throw new Error(`${this.name} did not start: ${error instanceof Error ? error.message : String(error)}\n${this.recentOutput()}`);
    }
  }

  /** SIGTERM to the whole group, SIGKILL after `graceMs`. */
  async stop(graceMs = 5000): Promise<void> {
    if (this.exited || this.child.pid === undefined) return;
    this.signalGroup('SIGTERM');
    const killed = await Promise.race([
      this.exitPromise.then(() => false),
      new Promise<boolean>((resolve) => setTimeout(() => resolve(true), graceMs).unref()),
    ]);
    if (killed) {
      this.signalGroup('SIGKILL');
      await Promise.race([this.exitPromise, new Promise((resolve) => setTimeout(resolve, 2000).unref())]);
    }
    // forked helpers (websockify's per-connection children) may outlive the leader
    this.signalGroup('SIGKILL');
  }

  private signalGroup(signal: NodeJS.Signals): void {
    try { process.kill(-this.pid, signal); } catch { /* group already gone */ }
  }
}
