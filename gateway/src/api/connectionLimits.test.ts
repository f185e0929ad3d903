// The per-address budget counts TCP peers; connections over a Unix socket
// (the native data plane's, which counts its clients' addresses itself) are
// not lumped together under one name.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConnectionLimits } from './connectionLimits.js';

const OPTIONS = { perAddressConnections: 2, perNetworkConnections: 100, maxPendingSockets: 1, perSourcePendingSockets: 1 };

/** Opens `count` connections to a server that asks `limits` about each; resolves with the verdicts. */
async function verdicts(limits: ConnectionLimits, listen: (server: Server) => Promise<() => Socket>, count: number): Promise<{ admitted: boolean[]; close: () => void }> {
  const admitted: boolean[] = [];
  const clients: Socket[] = [];
  const server = createServer((socket) => { admitted.push(limits.admitConnection(socket)); });
  const dial = await listen(server);
  for (let i = 0; i < count; i++) clients.push(dial().on('error', () => undefined));
  for (let turn = 0; admitted.length < count && turn < 500; turn++) await new Promise((resolve) => setTimeout(resolve, 5));
  return { admitted, close: () => { for (const client of clients) client.destroy(); server.close(); } };
}

void test('TCP connections count per address; Unix-socket ones are not one address', async (t) => {
  const tcp = await verdicts(new ConnectionLimits(OPTIONS), (server) => new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      resolve(() => connect(typeof address === 'object' && address ? address.port : 0, '127.0.0.1'));
    });
  }), 3);
  t.after(tcp.close);
  assert.deepEqual(tcp.admitted.sort(), [false, true, true]);

  const dir = mkdtempSync(join(tmpdir(), 'lanterna-limits-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const unix = await verdicts(new ConnectionLimits(OPTIONS), (server) => new Promise((resolve) => {
    const path = join(dir, 'gateway.sock');
    server.listen(path, () => resolve(() => connect(path)));
  }), 3);
  t.after(unix.close);
  assert.deepEqual(unix.admitted, [true, true, true]);
});

void test('IPv6 connections count per address and per /64; IPv4 ones per address only', () => {
  const limits = new ConnectionLimits({ ...OPTIONS, perNetworkConnections: 3 });
  const verdicts = ['2001:db8:1:2::1', '2001:db8:1:2::1', '2001:db8:1:2::1', '2001:db8:1:2::2', '2001:db8:1:2::3', '2001:db8:1:3::1', '192.0.2.1', '192.0.2.2', '192.0.2.3']
    .map((address) => limits.admitAddress(address));
  assert.deepEqual(verdicts.map((release) => release !== undefined), [true, true, false, true, false, true, true, true, true]);
  verdicts[0]?.();
  verdicts[0]?.();
  assert.notEqual(limits.admitAddress('2001:db8:1:2::9'), undefined, 'a released place of the /64 comes back, once');
  assert.equal(limits.admitAddress('2001:db8:1:2::a'), undefined);
});
