// The server leg's TLS set-up with one shared client context against one
// built per connection (what tls.connect does when given `ca`/`minVersion`),
// alternating rounds in one process against a local TLS server: CPU per
// connect for both ends together. Prints figures, asserts nothing.
//   node gateway/bench/dist/tlsContextBench.js [connects per round] [rounds]
import { connect, createSecureContext, createServer, type ConnectionOptions, type SecureContext } from 'node:tls';
import type { AddressInfo } from 'node:net';
import { generateTestCertificate } from '@lanterna/testkit';

const perRound = Number(process.argv[2] ?? 300);
const rounds = Number(process.argv[3] ?? 3);

const { key, cert } = await generateTestCertificate('bench');
const server = createServer({ key, cert }, (socket) => { socket.on('error', () => undefined); socket.end(); });
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const { port } = server.address() as AddressInfo;

function connectOnce(options: ConnectionOptions): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port, rejectUnauthorized: false, checkServerIdentity: () => undefined, ...options }, () => { socket.destroy(); resolve(); });
    socket.once('error', reject);
  });
}

async function cpuPerConnect(options: () => ConnectionOptions): Promise<number> {
  const before = process.cpuUsage();
  for (let i = 0; i < perRound; i += 1) await connectOnce(options());
  const used = process.cpuUsage(before);
  return (used.user + used.system) / perRound;
}

for (const [trust, ca] of [['Node roots', undefined], ['a CA file', cert]] as const) {
  // as gateway/src/connect/targetTlsContext.ts builds it
  const shared: SecureContext = createSecureContext({ ca, minVersion: 'TLSv1.2' });
  const fresh: number[] = [];
  const reused: number[] = [];
  for (let round = 0; round < rounds; round += 1) {
    fresh.push(await cpuPerConnect(() => ({ ca, minVersion: 'TLSv1.2' })));
    reused.push(await cpuPerConnect(() => ({ secureContext: shared })));
  }
  const mean = (values: number[]): number => values.reduce((sum, value) => sum + value, 0) / values.length;
  console.log(`${trust}: context per connect ${fresh.map((v) => v.toFixed(0)).join(' / ')} µs, shared ${reused.map((v) => v.toFixed(0)).join(' / ')} µs CPU per connect (both ends); shared/per-connect ${(mean(reused) / mean(fresh)).toFixed(2)}`);
}
server.close();
