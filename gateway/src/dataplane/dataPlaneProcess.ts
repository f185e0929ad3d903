// The data plane as a child process: `lanterna-dataplane`, one per gateway
// process, its RPC on file descriptor 3 (a socket pair both ways), its log
// lines (JSON) on stderr into our logger. Its exit while we run is not
// survivable (its sockets, and every session on them, are gone): the owner
// hears it through onExit and ends this gateway process.
import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';
import type { Duplex } from 'node:stream';
import type { Logger } from 'pino';
import { DataPlaneRpc, type RpcAnswer } from './dataPlaneRpc.js';
import type { ConfigureConfig } from '@lanterna/protocol';

/** Where the built binary is (gateway/dataplane/bin), unless LANTERNA_DATAPLANE_BIN names another. */
export function dataPlaneBinary(env: NodeJS.ProcessEnv = process.env): string {
  return env.LANTERNA_DATAPLANE_BIN ?? fileURLToPath(new URL('../../dataplane/bin/lanterna-dataplane', import.meta.url));
}

/** The binary is missing or cannot be run: with relay.engine "native" the gateway does not start. */
export class DataPlaneMissingError extends Error {
  constructor(readonly binary: string, reason: string) {
    super(`the native data plane (${binary}) cannot be run: ${reason}; build it with gateway/dataplane/build.sh, or set relay.engine to "node"`);
    this.name = 'DataPlaneMissingError';
  }
}

export interface DataPlaneProcessOptions {
  logger: Logger;
  onRequest(op: string, message: Record<string, unknown>): Promise<RpcAnswer>;
  onNotification(op: string, message: Record<string, unknown>): void;
  /** The data plane ended while we had not asked it to: fatal for this gateway process. */
  onExit(error: Error): void;
  binary?: string | undefined;
}

const LOG_LEVELS = new Set(['trace', 'debug', 'info', 'warn', 'error', 'fatal']);
/** How long an asked-for stop may take before the process is killed. */
const STOP_GRACE_MS = 5000;

export class DataPlaneProcess {
  readonly rpc: DataPlaneRpc;
  private readonly child: ChildProcess;
  private readonly exited: Promise<void>;
  private stopping = false;
  /** Said ready: from here an exit is the owner's to handle (before, configure() rejects with it). */
  private running = false;
  private ready: { resolve: (port: number) => void; reject: (error: Error) => void } | undefined;

  constructor(private readonly options: DataPlaneProcessOptions) {
    const binary = options.binary ?? dataPlaneBinary();
    try {
      accessSync(binary, constants.X_OK);
    } catch (error) {
      throw new DataPlaneMissingError(binary, (error as NodeJS.ErrnoException).code ?? String(error));
    }
    const log = options.logger.child({ component: 'dataplane' });
    this.child = spawn(binary, [], { stdio: ['ignore', 'ignore', 'pipe', 'pipe'] });
    const channel = this.child.stdio[3] as Duplex;
    this.rpc = new DataPlaneRpc({
      write: (line) => { if (channel.writable) channel.write(line); },
      onRequest: (op, message) => options.onRequest(op, message),
      onNotification: (op, message) => this.onNotification(op, message),
      logger: log,
    });
    channel.on('data', (chunk: Buffer) => this.rpc.receive(chunk));
    // A write after the process died: its exit is what we report.
    channel.on('error', (error) => log.debug({ err: error }, 'data plane channel error'));
    const stderr = this.child.stderr;
    if (stderr) createInterface({ input: stderr }).on('line', (line) => writeLogLine(log, line));
    this.exited = new Promise((resolve) => {
      this.child.once('exit', (code, signal) => {
        this.rpc.close('the data plane exited');
        // Our end of the pair would stay open (and keep this process alive) after the child's is gone.
        channel.destroy();
        const error = new Error(`the data plane exited (${signal ?? `code ${String(code)}`})`);
        this.ready?.reject(error);
        this.ready = undefined;
        if (this.running && !this.stopping) options.onExit(error);
        resolve();
      });
    });
    this.child.once('error', (error) => {
      this.ready?.reject(error);
      this.ready = undefined;
    });
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  /** Sends `configure` and resolves with the port the data plane listens on (its `ready`), or rejects with its `fatal`. */
  configure(config: ConfigureConfig): Promise<number> {
    return new Promise((resolve, reject) => {
      this.ready = { resolve, reject };
      this.rpc.notify('configure', { config });
    });
  }

  /** Ends the data plane: closes its channel (it exits), then kills it if it lingers. */
  async stop(graceMs = STOP_GRACE_MS): Promise<void> {
    this.stopping = true;
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    this.rpc.close('the gateway stopped the data plane');
    (this.child.stdio[3] as Duplex).end();
    this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), graceMs);
    await this.exited;
    clearTimeout(timer);
  }

  private onNotification(op: string, message: Record<string, unknown>): void {
    if (op === 'ready') {
      const port = message.port;
      if (typeof port !== 'number') this.ready?.reject(new Error('the data plane said ready without a port'));
      else {
        this.running = true;
        this.ready?.resolve(port);
      }
      this.ready = undefined;
      return;
    }
    if (op === 'fatal') {
      const error = new Error(`the data plane could not start: ${String(message.message)}`);
      this.ready?.reject(error);
      this.ready = undefined;
      this.options.logger.error({ event: 'dataplane-fatal', reason: message.message }, 'the data plane failed');
      return;
    }
    this.options.onNotification(op, message);
  }
}

/** One stderr line of the data plane into our log, at its level; a line that is not its JSON is logged as it is. */
function writeLogLine(log: Logger, line: string): void {
  if (line.trim() === '') return;
  let entry: unknown;
  try {
    entry = JSON.parse(line);
  } catch {
    log.warn({ line }, 'data plane output');
    return;
  }
  if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
    log.warn({ line }, 'data plane output');
    return;
  }
  const { level, msg, ...fields } = entry as Record<string, unknown>;
  const at = typeof level === 'string' && LOG_LEVELS.has(level) ? level as 'info' : 'info';
  log[at](fields, typeof msg === 'string' ? msg : 'data plane log');
}
