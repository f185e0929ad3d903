// Starts the pipe baseline relay (pipeRelayMain.ts) as its own pinned process
// and waits for its "listening" line; with a certificate, on wss://.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ManagedProcess } from './managedProcess.js';
import type { CertificatePair } from './selfSignedCertificate.js';

const PIPE_MAIN = fileURLToPath(new URL('./pipeRelayMain.js', import.meta.url));

export interface PipeRelayInstance {
  url: string;
  /** The certificate clients trust for wss:// (undefined: plain ws://). */
  caPem: string | undefined;
  process: ManagedProcess;
  stop(): Promise<void>;
}

export interface PipeRelayProcessOptions {
  targetPort: number;
  cpus?: string | undefined;
  nodeOptions?: string[] | undefined;
  /** Listen on wss:// with this certificate (`--kiosk-tls`). */
  tls?: CertificatePair | undefined;
}

export async function startPipeRelayProcess(options: PipeRelayProcessOptions): Promise<PipeRelayInstance> {
  const tlsDir = options.tls === undefined ? undefined : await mkdtemp(join(tmpdir(), 'lanterna-loadtest-pipe-'));
  const removeTlsDir = async (): Promise<void> => { if (tlsDir !== undefined) await rm(tlsDir, { recursive: true, force: true }); };
  const tlsArgs: string[] = [];
  if (options.tls !== undefined && tlsDir !== undefined) {
    await writeFile(join(tlsDir, 'cert.pem'), options.tls.certPem);
    await writeFile(join(tlsDir, 'key.pem'), options.tls.keyPem, { mode: 0o600 });
    tlsArgs.push('--tls-cert-file', join(tlsDir, 'cert.pem'), '--tls-key-file', join(tlsDir, 'key.pem'));
  }
  let announce: (port: number) => void = () => undefined;
  const announced = new Promise<number>((resolve) => { announce = resolve; });
  const child = new ManagedProcess('pipe-relay', {
    command: process.execPath,
    args: [...(options.nodeOptions ?? []), PIPE_MAIN, '--target-port', String(options.targetPort), ...tlsArgs],
    cpus: options.cpus,
    onLine: (line) => {
      if (!line.startsWith('{')) return;
      const parsed = JSON.parse(line) as { msg?: string; port?: number };
      if (parsed.msg === 'listening' && parsed.port !== undefined) announce(parsed.port);
    },
  });
  let timer: NodeJS.Timeout | undefined;
  const failed = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`pipe relay did not listen within 20 s\n${child.recentOutput()}`)), 20_000);
    child.child.once('exit', () => reject(new Error(`pipe relay exited\n${child.recentOutput()}`)));
  });
  failed.catch(() => { /* observed through the race; later exits are expected */ });
  try {
    const port = await Promise.race([announced, failed]);
    // the files were read at start; nothing needs them while it runs
    await removeTlsDir();
    return { url: `${options.tls === undefined ? 'ws' : 'wss'}://127.0.0.1:${port}/`, caPem: options.tls?.certPem, process: child, stop: () => child.stop() };
  } catch (error) {
    await child.stop();
    await removeTlsDir();
    throw error;
  } finally {
    clearTimeout(timer);
  }
}
