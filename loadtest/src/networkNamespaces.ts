// Two network namespaces joined by a veth pair with netem delay on both ends:
// a long fat network that exists only for the run. Addresses live only inside
// these namespaces; remove() deletes everything (also after a failure).
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';

export interface NamespacePair {
  near: string;
  far: string;
  nearAddress: string;
  farAddress: string;
  /** Prefix that runs a command inside a namespace. */
  exec(namespace: string): string[];
  setSocketBufferMax(bytes: number): void;
  remove(): void;
}

function run(args: string[]): void {
  execFileSync(args[0] ?? 'true', args.slice(1), { stdio: ['ignore', 'ignore', 'pipe'], timeout: 10_000 });
}

export function createNamespacePair(oneWayDelayMs: number): NamespacePair {
  const tag = randomBytes(3).toString('hex');
  const near = `lt-near-${tag}`;
  const far = `lt-far-${tag}`;
  const nearLink = `ltn${tag}`;
  const farLink = `ltf${tag}`;
  const nearAddress = '10.213.0.1';
  const farAddress = '10.213.0.2';
  const pair: NamespacePair = {
    near, far, nearAddress, farAddress,
    exec: (namespace) => ['ip', 'netns', 'exec', namespace],
    setSocketBufferMax: (bytes) => {
      // tcp_rmem/tcp_wmem are per namespace; autotuning grows buffers up to [2]
      for (const namespace of [near, far]) {
        const initial = Math.min(bytes, 131_072);
        run(['ip', 'netns', 'exec', namespace, 'sysctl', '-q', '-w', `net.ipv4.tcp_rmem=4096 ${initial} ${bytes}`]);
        run(['ip', 'netns', 'exec', namespace, 'sysctl', '-q', '-w', `net.ipv4.tcp_wmem=4096 ${Math.min(bytes, 16_384)} ${bytes}`]);
      }
    },
    remove: () => {
      for (const namespace of [near, far]) {
        try { run(['ip', 'netns', 'del', namespace]); } catch { /* not created or already gone */ }
      }
    },
  };
  try {
    run(['ip', 'netns', 'add', near]);
    run(['ip', 'netns', 'add', far]);
    run(['ip', 'link', 'add', nearLink, 'netns', near, 'type', 'veth', 'peer', 'name', farLink, 'netns', far]);
    for (const [namespace, link, address] of [[near, nearLink, nearAddress], [far, farLink, farAddress]] as const) {
      run(['ip', '-n', namespace, 'addr', 'add', `${address}/30`, 'dev', link]);
      run(['ip', '-n', namespace, 'link', 'set', link, 'up']);
      run(['ip', '-n', namespace, 'link', 'set', 'lo', 'up']);
      // a deep queue: at 250 ms RTT a 16 MiB window is ~11,000 packets in flight
      run(['tc', '-n', namespace, 'qdisc', 'add', 'dev', link, 'root', 'netem', 'delay', `${oneWayDelayMs}ms`, 'limit', '200000']);
    }
  } catch (error) {
    pair.remove();
    const stderr = (error as { stderr?: Buffer }).stderr?.toString().trim();
    throw new Error(`could not build the namespaces: ${stderr ?? (error instanceof Error ? error.message : String(error))}`);
  }
  return pair;
}
