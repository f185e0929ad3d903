// The gateway as admins run it — its CLI in a child process with a config
// file — for tests that need real processes: several instances, kill -9, a
// drain. Logs (pino JSON lines) are kept for the test to wait on.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { allocateFreePort } from '@lanterna/lab';
import { waitFor } from './waiting.js';
import { withTestRelayEngine } from './testGateway.js';

export interface GatewayProcess {
  readonly child: ChildProcess;
  readonly port: number;
  /** http://127.0.0.1:PORT (the config's listen.tls is false unless given) */
  readonly httpUrl: string;
  readonly dir: string;
  /** Every JSON log line so far. */
  readonly logs: Record<string, unknown>[];
  /** Resolves with the first log line that `match` accepts (already seen ones count). */
  waitForLog(what: string, match: (entry: Record<string, unknown>) => boolean, timeoutMs?: number): Promise<Record<string, unknown>>;
  /** SIGKILL, no drain: a crash. */
  kill(): Promise<void>;
  /** SIGTERM and wait for the exit; removes the dir. */
  close(): Promise<void>;
}

const cliPath = (): string => fileURLToPath(import.meta.resolve('@lanterna/gateway/cli'));

export async function startGatewayProcess(config: Record<string, unknown>, options: { env?: NodeJS.ProcessEnv; port?: number } = {}): Promise<GatewayProcess> {
  const dir = mkdtempSync(join(tmpdir(), 'lanterna-gwp-'));
  const port = options.port ?? await allocateFreePort();
  const { listen, ...rest } = config;
  writeFileSync(join(dir, 'config.json'), JSON.stringify({
    // The listener's other settings (trustedProxies, …) join ours.
    listen: { host: '127.0.0.1', port, tls: false, ...(typeof listen === 'object' ? listen : {}) }, stateDir: join(dir, 'state'), workers: 1,
    policy: { allowNetworks: ['127.0.0.0/8'], allowPorts: ['1024-65535'] },
    ...rest,
    relay: withTestRelayEngine(rest.relay),
  }));
  const child = spawn(process.execPath, [cliPath(), '--config', join(dir, 'config.json')], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...options.env } });
  const logs: Record<string, unknown>[] = [];
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => { stderr = (stderr + chunk.toString()).slice(-4000); });
  createInterface({ input: child.stdout }).on('line', (line) => {
    try {
      logs.push(JSON.parse(line) as Record<string, unknown>);
    } catch {
      logs.push({ msg: line });
    }
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const waitForLog = async (what: string, match: (entry: Record<string, unknown>) => boolean, timeoutMs = 20_000): Promise<Record<string, unknown>> => {
    let found: Record<string, unknown> | undefined;
    await waitFor(what, () => {
      if (child.exitCode !== null && !found) throw new Error(`the gateway exited (${child.exitCode}) before ${what}:\n${stderr}\n${JSON.stringify(logs.slice(-10))}`);
      found = logs.find(match);
      return found !== undefined;
    }, timeoutMs);
    return found ?? {};
  };
  const gateway: GatewayProcess = {
    child, port, httpUrl: `http://127.0.0.1:${port}`, dir, logs, waitForLog,
    kill: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
    close: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
  try {
    // The gateway's own line: its data plane's (relay.engine "native", component "dataplane") says listening too.
    await waitForLog('the gateway listening', (entry) => entry.msg === 'listening' && entry.component === undefined);
  } catch (error) {
    await gateway.kill();
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  return gateway;
}
