// Starts websockify 0.13 (PyPI, from the project venv) as the baseline relay:
// plain ws:// in, TLS out to an echo host in tls-first mode.
import { mkdtemp, writeFile, rm } from 'node:fs/promises';
import { tmpdir, homedir } from 'node:os';
import { join } from 'node:path';
import { ManagedProcess } from './managedProcess.js';
import { pickFreePort } from './tcpPorts.js';

export const WEBSOCKIFY_BIN = process.env['LANTERNA_WEBSOCKIFY'] ?? join(homedir(), '.cache/lanterna/venv/bin/websockify');

export interface WebsockifyInstance {
  readonly url: string;
  readonly process: ManagedProcess;
  stop(): Promise<void>;
}

export async function startWebsockify(options: { targetPort: number; targetCertPem: string; cpus?: string | undefined }): Promise<WebsockifyInstance> {
  const dir = await mkdtemp(join(tmpdir(), 'lanterna-websockify-'));
  const caFile = join(dir, 'echo-ca.pem');
  await writeFile(caFile, options.targetCertPem);
  const port = await pickFreePort();
  // --ssl-target verifies the target against SSL_CERT_FILE (the echo host's
  // self-signed certificate, which carries an IP SAN for 127.0.0.1)
  const child = new ManagedProcess('websockify', {
    command: WEBSOCKIFY_BIN,
    args: ['--ssl-target', `127.0.0.1:${port}`, `127.0.0.1:${options.targetPort}`],
    cpus: options.cpus,
    env: { ...process.env, SSL_CERT_FILE: caFile },
  });
  const stop = async (): Promise<void> => {
    await child.stop();
    await rm(dir, { recursive: true, force: true });
  };
  await child.listeningOn(port, 15_000, stop);
  return { url: `ws://127.0.0.1:${port}/`, process: child, stop };
}
