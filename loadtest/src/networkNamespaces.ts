// Two network namespaces joined by a delay line: a long fat network that
// exists only for the run. This kernel has no netem, so the delay is a
// userspace packet delay line over one TUN device per namespace
// (helpers/tun_delay_line.py); TCP still runs end to end across it.
// Addresses live only inside these namespaces; remove() deletes everything.
// The namespace primitives are the test kit's (shared with the WS-Discovery
// tests' veth LAN, testkit/src/lanNamespaces.ts).
import { randomBytes } from 'node:crypto';
import { addNamespaces, removeNamespaces, runCommand as run } from '@lanterna/testkit';
import { fileURLToPath } from 'node:url';
import { ManagedProcess } from './managedProcess.js';
import { waitFor } from './httpReadiness.js';

const DELAY_LINE = fileURLToPath(new URL('../helpers/tun_delay_line.py', import.meta.url));
/** Jumbo frames keep the userspace delay line's packet rate low at high window sizes. */
const LINK_MTU = 9000;

export interface NamespacePair {
  near: string;
  far: string;
  nearAddress: string;
  farAddress: string;
  /** Prefix that runs a command inside a namespace. */
  exec(namespace: string): string[];
  setSocketBufferMax(bytes: number): void;
  remove(): Promise<void>;
}

export async function createNamespacePair(oneWayDelayMs: number): Promise<NamespacePair> {
  const tag = randomBytes(3).toString('hex');
  const near = `lt-near-${tag}`;
  const far = `lt-far-${tag}`;
  const nearLink = `ltn${tag}`;
  const farLink = `ltf${tag}`;
  const nearAddress = '10.213.0.1';
  const farAddress = '10.213.0.2';
  let delayLine: ManagedProcess | undefined;
  const pair: NamespacePair = {
    near, far, nearAddress, farAddress,
    exec: (namespace) => ['ip', 'netns', 'exec', namespace],
    setSocketBufferMax: (bytes) => {
      // tcp_rmem/tcp_wmem are per namespace; autotuning grows buffers up to [2]
      for (const namespace of [near, far]) {
        run(['ip', 'netns', 'exec', namespace, 'sysctl', '-q', '-w', `net.ipv4.tcp_rmem=4096 ${Math.min(bytes, 131_072)} ${bytes}`]);
        run(['ip', 'netns', 'exec', namespace, 'sysctl', '-q', '-w', `net.ipv4.tcp_wmem=4096 ${Math.min(bytes, 16_384)} ${bytes}`]);
      }
    },
    remove: async () => {
      await delayLine?.stop(2000);
      removeNamespaces([near, far]);
    },
  };
  try {
    addNamespaces([near, far]);
    let ready = false;
    const line = new ManagedProcess('delay-line', {
      command: 'python3',
      args: [DELAY_LINE, '--delay-ms', String(oneWayDelayMs), '--near-ns', near, '--far-ns', far, '--near-dev', nearLink, '--far-dev', farLink],
      onLine: (text) => { if (text.includes('"ready"')) ready = true; },
    });
    delayLine = line;
    await waitFor(() => ready, 10_000, () => line.isAlive()).catch((error: unknown) => {
      throw new Error(`delay line did not start: ${error instanceof Error ? error.message : String(error)} ${line.recentOutput()}`);
    });
    for (const [namespace, link, address, peer] of [[near, nearLink, nearAddress, farAddress], [far, farLink, farAddress, nearAddress]] as const) {
      run(['ip', '-n', namespace, 'addr', 'add', address, 'peer', peer, 'dev', link]);
      run(['ip', '-n', namespace, 'link', 'set', link, 'mtu', String(LINK_MTU), 'up']);
      run(['ip', '-n', namespace, 'link', 'set', 'lo', 'up']);
    }
  } catch (error) {
    await pair.remove();
    const stderr = (error as { stderr?: Buffer }).stderr?.toString().trim();
    throw new Error(`could not build the namespaces: ${stderr ?? (error instanceof Error ? error.message : String(error))}`);
  }
  return pair;
}
