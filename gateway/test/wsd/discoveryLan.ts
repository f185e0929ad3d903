// What the WS-Discovery tests share: a test LAN (the test's namespace and a
// presenter's, joined by a veth), the gateway's CLI serving discovery on that
// veth only, a display brought online by a kiosk client, and the test kit's
// WS-Discovery peer tool run on the presenter's side.
import type { TestContext } from 'node:test';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { allocateFreePort } from '@lanterna/lab';
import { connectControl, createLan, type Lan } from '@lanterna/testkit';

const cli = fileURLToPath(import.meta.resolve('@lanterna/gateway/cli'));
const peerTool = fileURLToPath(new URL('wsdPeerTool.js', import.meta.resolve('@lanterna/testkit')));
export const DISPLAY_TOKEN = 'display-token-0123456789';
export const METRICS_TOKEN = 'metrics-token-0123456789';

export interface DiscoveryGateway {
  readonly lan: Lan;
  readonly port: number;
  readonly dir: string;
  readonly child: ChildProcess;
  readonly logs: Record<string, unknown>[];
  /** Brings a display online (a kiosk's control socket); returns its close. */
  online(displayId: string): Promise<() => void>;
  metrics(): Promise<string>;
}

export function makeLan(t: TestContext): Lan {
  const lan = createLan();
  t.after(() => lan.remove());
  return lan;
}

/** The gateway's CLI in a fresh state dir (or `dir` again), discovery on the LAN's veth; resolves once listening. */
export async function startDiscoveryGateway(t: TestContext, lan: Lan, config: Record<string, unknown> = {}, dir = mkdtempSync(join(tmpdir(), 'lanterna-wsd-'))): Promise<DiscoveryGateway> {
  const port = await allocateFreePort();
  writeFileSync(join(dir, 'config.json'), JSON.stringify({
    // '::' takes IPv4 and IPv6: the metadata must be reachable over both families.
    listen: { host: '::', port, tls: false }, stateDir: join(dir, 'state'), workers: 2,
    metricsToken: METRICS_TOKEN,
    displays: [
      { id: 'room1', name: 'Room one', location: 'Floor 2, east', token: DISPLAY_TOKEN },
      { id: 'room2', name: 'Room two', token: DISPLAY_TOKEN },
    ],
    wsd: { enabled: true, interfaces: [lan.gateway.interfaceName], appMaxDelayMs: 200 },
    ...config,
  }));
  const child = spawn(process.execPath, [cli, '--config', join(dir, 'config.json')], { stdio: ['ignore', 'pipe', 'inherit'] });
  t.after(() => { if (child.exitCode === null) child.kill('SIGKILL'); });
  const logs: Record<string, unknown>[] = [];
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`gateway not listening within 30 s:\n${JSON.stringify(logs)}`)), 30_000);
    child.once('exit', (code) => { clearTimeout(timer); reject(new Error(`gateway exited ${String(code)}: ${JSON.stringify(logs)}`)); });
    createInterface({ input: child.stdout }).on('line', (line) => {
      const entry = JSON.parse(line) as Record<string, unknown>;
      logs.push(entry);
      if (entry.msg === 'listening') { clearTimeout(timer); resolve(); }
    });
  });
  return {
    lan, port, dir, child, logs,
    online: async (displayId) => {
      const session = await connectControl(`ws://127.0.0.1:${port}`, displayId, DISPLAY_TOKEN);
      t.after(() => session.close());
      return () => session.close();
    },
    metrics: async () => {
      const response = await fetch(`http://127.0.0.1:${port}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
      return response.text();
    },
  };
}

export interface PeerRun { lines: Record<string, unknown>[]; done: Promise<number | null>; child: ChildProcess }

/** The test kit's WS-Discovery peer on the presenter's side; each printed line is collected as JSON. */
export function runPeer(t: TestContext, lan: Lan, family: 4 | 6, args: string[]): PeerRun {
  const address = family === 6 ? lan.presenter.ipv6LinkLocal : lan.presenter.ipv4;
  const child = spawn(lan.presenterExec[0] ?? 'ip', [...lan.presenterExec.slice(1), process.execPath, peerTool, ...args, '--family', String(family), '--address', address, '--interface', lan.presenter.interfaceName], { stdio: ['ignore', 'pipe', 'inherit'] });
  t.after(() => { if (child.exitCode === null) child.kill('SIGKILL'); });
  const lines: Record<string, unknown>[] = [];
  createInterface({ input: child.stdout }).on('line', (line) => lines.push(JSON.parse(line) as Record<string, unknown>));
  const done = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { lines, done, child };
}

/** The PyPI wsdiscovery package's interpreter (the project venv that setup.sh makes). */
export function venvPython(): string {
  const cache = process.env.LANTERNA_CACHE ?? join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'lanterna');
  return join(cache, 'venv', 'bin', 'python');
}
