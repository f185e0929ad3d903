// Debian's HAProxy in front of gateway instances, for tests (the load test
// runs the same generated config with its own CPU pinning, loadtest/src/haproxyInstance.ts).
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'node:net';
import { allocateFreePort } from '@lanterna/lab';
import { haproxyConfig, type HaproxyConfigOptions } from './haproxyConfig.js';
import { waitFor } from './waiting.js';

export const haproxyPath = process.env.LANTERNA_HAPROXY ?? '/usr/sbin/haproxy';

export interface HaproxyProcess {
  readonly port: number;
  readonly config: string;
  close(): Promise<void>;
}

export async function startHaproxyProcess(options: Omit<HaproxyConfigOptions, 'listenPort' | 'maxConnections'> & { maxConnections?: number }): Promise<HaproxyProcess> {
  const port = await allocateFreePort();
  const dir = mkdtempSync(join(tmpdir(), 'lanterna-haproxy-'));
  const config = haproxyConfig({ maxConnections: 1000, ...options, listenPort: port });
  writeFileSync(join(dir, 'haproxy.cfg'), config);
  const child = spawn(haproxyPath, ['-db', '-f', join(dir, 'haproxy.cfg')], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => { output = (output + chunk.toString()).slice(-4000); });
  child.stderr.on('data', (chunk: Buffer) => { output = (output + chunk.toString()).slice(-4000); });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const close = async (): Promise<void> => {
    if (child.exitCode === null) {
      child.kill('SIGTERM');
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await waitFor('haproxy listening', async () => {
      if (child.exitCode !== null) throw new Error(`haproxy exited:\n${output}`);
      return new Promise<boolean>((resolve) => {
        const socket = connect(port, '127.0.0.1');
        socket.once('connect', () => { socket.destroy(); resolve(true); });
        socket.once('error', () => resolve(false));
      });
    }, 10_000);
  } catch (error) {
    await close();
    throw error;
  }
  return { port, config, close };
}
