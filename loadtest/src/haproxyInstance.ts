// Runs Debian's HAProxy in front of the gateway instances of a farm.
import { mkdtemp, writeFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ManagedProcess } from './managedProcess.js';
import { pickFreePort } from './tcpPorts.js';
import { haproxyConfig } from '@lanterna/testkit';

export interface HaproxyInstance { baseUrl: string; process: ManagedProcess; config: string; stop(): Promise<void> }

export async function startHaproxy(backendPorts: readonly number[], maxConnections: number, cpus: string | undefined): Promise<HaproxyInstance> {
  const dir = await mkdtemp(join(tmpdir(), 'lanterna-haproxy-'));
  const listenPort = await pickFreePort();
  const config = haproxyConfig({ listenPort, backendPorts, maxConnections });
  const file = join(dir, 'haproxy.cfg');
  await writeFile(file, config);
  const child = new ManagedProcess('haproxy', { command: '/usr/sbin/haproxy', args: ['-db', '-f', file], cpus });
  const stop = async (): Promise<void> => {
    await child.stop();
    await rm(dir, { recursive: true, force: true });
  };
  await child.listeningOn(listenPort, 10_000, stop);
  return { baseUrl: `ws://127.0.0.1:${listenPort}`, process: child, config, stop };
}
