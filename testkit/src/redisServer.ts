// Debian's redis-server for tests: a free loopback port, a temp dir, no
// persistence; stop() and start() again on the same port (a Redis outage and
// its return), kill() for a crash; with a password (requirepass) and TLS
// only (rediss://) if asked.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'node:net';
import { allocateFreePort } from '@lanterna/lab';
import { waitFor } from './waiting.js';

export const redisServerPath = process.env.LANTERNA_REDIS_SERVER ?? '/usr/bin/redis-server';

export interface RedisServer {
  readonly port: number;
  /** redis://127.0.0.1:PORT, or redis://:PASSWORD@127.0.0.1:PORT with a password (rediss:// with TLS) */
  readonly url: string;
  /** redis://127.0.0.1:PORT, without the password (rediss:// with TLS) */
  readonly bareUrl: string;
  readonly password: string | undefined;
  /** Starts it again on the same port (after stop). */
  start(): Promise<void>;
  /** Stops it (SIGTERM) and waits for the exit. */
  stop(): Promise<void>;
  /** Stops it for good and removes its dir. */
  close(): Promise<void>;
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => { socket.destroy(); resolve(true); });
    socket.once('error', () => resolve(false));
  });
}

/**
 * `persistent`: an append-only file, so the data survives stop() and start()
 * (a Redis restart, not a new Redis). `password`: clients must give it.
 * `tls`: the server's certificate and key (PEM); the port then speaks TLS only.
 */
export async function startRedis(options: { persistent?: boolean; password?: string; tls?: { cert: string; key: string } } = {}): Promise<RedisServer> {
  const port = await allocateFreePort();
  const dir = mkdtempSync(join(tmpdir(), 'lanterna-redis-'));
  let listen = ['--port', String(port)];
  if (options.tls) {
    writeFileSync(join(dir, 'cert.pem'), options.tls.cert);
    writeFileSync(join(dir, 'key.pem'), options.tls.key, { mode: 0o600 });
    // Redis wants a CA even when it does not ask clients for certificates.
    listen = ['--port', '0', '--tls-port', String(port), '--tls-cert-file', join(dir, 'cert.pem'), '--tls-key-file', join(dir, 'key.pem'),
      '--tls-ca-cert-file', join(dir, 'cert.pem'), '--tls-auth-clients', 'no'];
  }
  let child: ChildProcess | undefined;
  let output = '';
  const start = async (): Promise<void> => {
    const started = spawn(redisServerPath, [...listen, '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', options.persistent ? 'yes' : 'no', '--protected-mode', 'yes',
      ...(options.password === undefined ? [] : ['--requirepass', options.password])], { stdio: ['ignore', 'pipe', 'pipe'] });
    child = started;
    started.stdout.on('data', (chunk: Buffer) => { output = (output + chunk.toString()).slice(-4000); });
    started.stderr.on('data', (chunk: Buffer) => { output = (output + chunk.toString()).slice(-4000); });
    let exited = false;
    started.once('exit', () => { exited = true; });
    await waitFor(`redis-server on port ${port}`, async () => {
      if (exited) throw new Error(`redis-server exited:\n${output}`);
      return accepts(port);
    }, 10_000);
  };
  const stop = async (): Promise<void> => {
    const running = child;
    child = undefined;
    if (!running || running.exitCode !== null) return;
    const exited = new Promise((resolve) => running.once('exit', resolve));
    running.kill('SIGTERM');
    await exited;
  };
  await start();
  const scheme = options.tls ? 'rediss' : 'redis';
  return {
    port, start, stop,
    url: `${scheme}://${options.password === undefined ? '' : `:${encodeURIComponent(options.password)}@`}127.0.0.1:${port}`,
    bareUrl: `${scheme}://127.0.0.1:${port}`,
    password: options.password,
    close: async () => {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
