// This computer's screen as an RDP server for one presentation: FreeRDP's
// shadow server (freerdp-shadow-cli3) on the address the display's gateway
// reaches us at, with Network Level Authentication against a one-time user
// and password that only the display gets (inside the Connect request, over
// the gateway's TLS). Its home directory persists, so its certificate stays
// the same from one presentation to the next.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { EXIT, PresenterError } from './presenterError.js';
import { writeShadowNlaFiles } from './shadowNla.js';

export interface ShadowServer {
  readonly host: string;
  readonly port: number;
  readonly username: string;
  readonly password: string;
  readonly child: ChildProcess;
  stop(): void;
}

const READY_TIMEOUT_MS = 20_000;

function portAnswers(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port, timeout: 500 }, () => { socket.destroy(); resolve(true); });
    socket.once('error', () => resolve(false));
    socket.once('timeout', () => { socket.destroy(); resolve(false); });
  });
}

export async function startShadowServer(options: { host: string; port: number; stateDir: string }): Promise<ShadowServer> {
  if (!process.env.DISPLAY) throw new PresenterError(EXIT.usage, 'no screen to share: $DISPLAY is not set (or give --target for another RDP server)');
  const home = join(options.stateDir, 'shadow-home');
  mkdirSync(home, { recursive: true, mode: 0o700 });
  const username = `present-${randomBytes(3).toString('hex')}`;
  const password = randomBytes(18).toString('base64url');
  const { samPath: sam, opensslConf } = await writeShadowNlaFiles(home, username, password).catch((error: unknown) => {
    throw new PresenterError(EXIT.failed, `cannot prepare the one-time password (winpr-hash3, from FreeRDP's winpr3-utils, is needed): ${(error as Error).message}`);
  });
  const child = spawn('freerdp-shadow-cli3', [`/bind-address:${options.host}`, `/port:${options.port}`, '/sec:nla', `/sam-file:${sam}`], {
    env: { ...process.env, HOME: home, XDG_CONFIG_HOME: join(home, '.config'), OPENSSL_CONF: opensslConf },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let log = '';
  child.stderr.on('data', (chunk: Buffer) => { log = (log + chunk.toString()).slice(-2000); });
  const spawned = new Promise<never>((_, reject) => {
    child.once('error', (error) => reject(new PresenterError(EXIT.failed, `cannot start freerdp-shadow-cli3 (FreeRDP's shadow server): ${error.message}`)));
    child.once('exit', (code) => reject(new PresenterError(EXIT.failed, `freerdp-shadow-cli3 exited (${String(code)}): ${log.trim().split('\n').slice(-3).join(' ')}`)));
  });
  const ready = (async () => {
    const deadline = Date.now() + READY_TIMEOUT_MS;
    while (!(await portAnswers(options.host, options.port))) {
      if (Date.now() > deadline) throw new PresenterError(EXIT.failed, `the shadow server did not listen on ${options.host}:${options.port} within ${READY_TIMEOUT_MS / 1000} s`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  })();
  try {
    await Promise.race([ready, spawned]);
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
  spawned.catch(() => { /* exits after this are the caller's to watch */ });
  return { host: options.host, port: options.port, username, password, child, stop: () => { if (child.exitCode === null) child.kill('SIGTERM'); } };
}
