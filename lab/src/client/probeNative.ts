import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { ComponentStartError } from '../process/componentStartError.js';
import { startChild } from '../process/childSupervisor.js';
import { NativeProbeError } from './nativeProbeError.js';

export interface ProbeNativeOptions {
  host: string;
  port: number;
  username: string;
  password: string;
  domain?: string;
  /**
   * true (default): `xfreerdp3 /auth-only`, no window. It passes once the
   * connection sequence has run through security (TLS or NLA) and the client
   * reports "Authentication only, exit status 1".
   * false: a real session on `display`, which passes when `sessionUp` answers
   * true (for servers that check credentials only after connecting, like xrdp).
   */
  authOnly?: boolean;
  /** X display for the client window (authOnly false). */
  display?: string;
  /** Server-side proof that the session is up (authOnly false), polled until the deadline. */
  sessionUp?: () => Promise<boolean>;
  timeoutMs?: number;
  /** Extra xfreerdp3 arguments. */
  extraArgs?: readonly string[];
}

export interface ProbeNativeResult {
  elapsedMs: number;
  output: string;
}

const AUTH_ONLY_SUCCESS = /Authentication only, exit status 1\b/;

/** Proves a native FreeRDP 3 client can connect and authenticate; resolves only on success. */
export async function probeNative(options: ProbeNativeOptions): Promise<ProbeNativeResult> {
  const authOnly = options.authOnly ?? true;
  const timeoutMs = options.timeoutMs ?? 20_000;
  const target = `${options.host}:${options.port}`;
  if (!authOnly && (options.display === undefined || options.sessionUp === undefined)) {
    throw new Error('probeNative without authOnly needs a display and a sessionUp probe');
  }
  const home = mkdtempSync(join(tmpdir(), 'lanterna-probe-'));
  const logPath = join(home, 'xfreerdp3.log');
  const args = [
    `/v:${target}`, `/u:${options.username}`, `/p:${options.password}`,
    ...(options.domain === undefined ? [] : [`/d:${options.domain}`]),
    '/cert:ignore', '/log-level:INFO',
    ...(authOnly ? ['/auth-only'] : ['/size:1024x768', '-clipboard', '/audio-mode:2']),
    ...(options.extraArgs ?? []),
  ];
  const started = Date.now();
  const output = (): string => {
    try {
      return readFileSync(logPath, 'utf8');
    } catch {
      return '';
    }
  };
  let client;
  try {
    client = await startChild({
      component: 'xfreerdp3',
      command: 'xfreerdp3',
      args,
      env: { HOME: home, DISPLAY: authOnly ? undefined : options.display },
      logPath,
      stopGraceMs: 1000,
    });
  } catch (error) {
    rmSync(home, { recursive: true, force: true });
    const detail = error instanceof ComponentStartError ? error.detail : String(error);
    throw new NativeProbeError('spawn', target, null, '', detail);
  }
  try {
    const deadline = started + timeoutMs;
    if (authOnly) {
      const finished = await Promise.race([client.exited.then(() => true), sleep(timeoutMs, undefined, { ref: false }).then(() => false)]);
      if (!finished) throw new NativeProbeError('deadline', target, null, output(), `no result within ${timeoutMs} ms`);
      const text = output();
      if (!AUTH_ONLY_SUCCESS.test(text)) throw new NativeProbeError('auth', target, client.exitCode, text, `authentication did not succeed (${client.describeExit()})`);
      return { elapsedMs: Date.now() - started, output: text };
    }
    const sessionUp = options.sessionUp ?? (() => Promise.resolve(false));
    while (Date.now() < deadline) {
      if (client.hasExited()) throw new NativeProbeError('session', target, client.exitCode, output(), `client ${client.describeExit()} before the session was up`);
      if (await sessionUp().catch(() => false)) return { elapsedMs: Date.now() - started, output: output() };
      await sleep(200);
    }
    throw new NativeProbeError('deadline', target, client.exitCode, output(), `session not up within ${timeoutMs} ms`);
  } finally {
    await client.stop().catch(() => undefined);
    rmSync(home, { recursive: true, force: true });
  }
}
