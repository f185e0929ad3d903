// This computer's screen as an RDP server for one presentation: FreeRDP's
// shadow server (freerdp-shadow-cli3) on the address the display's gateway
// reaches us at, with Network Level Authentication against a one-time user
// and password that only the display gets (inside the Connect request, over
// the gateway's TLS). Its home directory persists, so its certificate stays
// the same from one presentation to the next.
import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { EXIT, PresenterError } from './presenterError.js';

export interface ShadowServer {
  readonly host: string;
  readonly port: number;
  readonly username: string;
  readonly password: string;
  readonly child: ChildProcess;
  stop(): void;
}

const READY_TIMEOUT_MS = 20_000;

// NTLM inside CredSSP needs MD4, which OpenSSL 3 keeps in its legacy provider.
const OPENSSL_WITH_LEGACY = `openssl_conf = openssl_init
[openssl_init]
providers = provider_sect
[provider_sect]
default = default_sect
legacy = legacy_sect
[default_sect]
activate = 1
[legacy_sect]
activate = 1
`;

/** WinPR's SAM line ("user:::LM:NT:::") for the one-time account, from winpr-hash3. */
function samEntry(username: string, password: string): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile('winpr-hash3', ['-u', username, '-p', password, '-f', 'sam'], { timeout: 5000 }, (error, stdout) => {
      if (error) reject(new PresenterError(EXIT.failed, `winpr-hash3 (FreeRDP's winpr3-utils) is needed for the one-time password: ${error.message}`));
      else resolve(`${stdout.trim()}\n`);
    });
  });
}

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
  const sam = join(home, 'one-time-sam');
  writeFileSync(sam, await samEntry(username, password), { mode: 0o600 });
  const opensslConf = join(home, 'openssl.cnf');
  writeFileSync(opensslConf, OPENSSL_WITH_LEGACY);
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
