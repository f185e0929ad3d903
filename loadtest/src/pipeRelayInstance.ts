// Starts a pipe baseline relay as its own pinned process and waits for its
// "listening" line; with a certificate, on wss://. The Node one
// (pipeRelayMain.ts, `--relay pipe`) or the Go one
// (loadtest/generator-go/cmd/pipe-relay, `--relay pipe-go`): the same
// arguments and the same line.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ManagedProcess } from './managedProcess.js';
import { goProgramPath, resolveImplementation, type Implementation } from './goPrograms.js';
import type { CertificatePair } from './selfSignedCertificate.js';

const PIPE_MAIN = fileURLToPath(new URL('./pipeRelayMain.js', import.meta.url));
export const GO_PIPE_RELAY_BINARY = goProgramPath('lanterna-pipe-relay');

export interface PipeRelayInstance {
  url: string;
  /** The certificate clients trust for wss:// (undefined: plain ws://). */
  caPem: string | undefined;
  process: ManagedProcess;
  stop(): Promise<void>;
}

export interface PipeRelayProcessOptions {
  /** node (the default): pipeRelayMain.ts; go: the Go twin. */
  implementation?: Implementation | undefined;
  targetPort: number;
  cpus?: string | undefined;
  /** For the Node pipe only. */
  nodeOptions?: string[] | undefined;
  /** Listen on wss:// with this certificate (`--kiosk-tls`). */
  tls?: CertificatePair | undefined;
}

export async function startPipeRelayProcess(options: PipeRelayProcessOptions): Promise<PipeRelayInstance> {
  const go = resolveImplementation('pipe relay', GO_PIPE_RELAY_BINARY, options.implementation ?? 'node') === 'go';
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
  const relayArgs = ['--target-port', String(options.targetPort), ...tlsArgs];
  const child = new ManagedProcess(go ? 'pipe-go' : 'pipe-relay', {
    command: go ? GO_PIPE_RELAY_BINARY : process.execPath,
    args: go ? relayArgs : [...(options.nodeOptions ?? []), PIPE_MAIN, ...relayArgs],
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
