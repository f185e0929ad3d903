import { test } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { endpointKey, ownersByPeer, parseProcEndpoint, parseProcNetTcp } from './socketOwners.js';

void test('/proc/net/tcp endpoints: IPv4, IPv4-mapped IPv6 and IPv6', () => {
  assert.deepEqual(parseProcEndpoint('0100007F:1F90'), { address: '127.0.0.1', port: 8080 });
  assert.deepEqual(parseProcEndpoint('0500017F:D431'), { address: '127.1.0.5', port: 54321 });
  assert.deepEqual(parseProcEndpoint('0000000000000000FFFF00000100007F:0050'), { address: '127.0.0.1', port: 80 });
  assert.deepEqual(parseProcEndpoint('00000000000000000000000001000000:0016'), { address: '0:0:0:0:0:0:0:1', port: 22 });
  const table = [
    '  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode',
    '   0: 0100007F:1F90 0500017F:D431 01 00000000:00000000 00:00000000 00000000  1000        0 424242 1 0000000000000000 20 4 30 10 -1',
  ].join('\n');
  assert.deepEqual(parseProcNetTcp(table), [{ local: { address: '127.0.0.1', port: 8080 }, remote: { address: '127.1.0.5', port: 54321 }, inode: 424242 }]);
});

void test('a connection is found in the process that accepted it, and in no other', async (t) => {
  // the accepting side is a child process, as a gateway worker is
  const child = spawn(process.execPath, ['-e', `
    const server = require('node:net').createServer((socket) => socket.on('data', (d) => socket.write(d)));
    server.listen(0, '127.0.0.1', () => console.log(server.address().port));
  `], { stdio: ['ignore', 'pipe', 'inherit'] });
  t.after(() => child.kill('SIGKILL'));
  const [line] = await once(createInterface({ input: child.stdout }), 'line') as [string];
  const client = net.connect({ host: '127.0.0.1', port: Number(line), localAddress: '127.1.0.9' });
  t.after(() => client.destroy());
  await once(client, 'connect');
  client.write('x');
  await once(client, 'data');
  const key = endpointKey({ address: client.localAddress ?? '', port: client.localPort ?? 0 });
  assert.equal(key.startsWith('127.1.0.9:'), true);
  assert.ok(child.pid !== undefined);
  assert.equal(ownersByPeer([child.pid]).get(key), child.pid, 'the child holds the accepted socket');
  assert.equal(ownersByPeer([process.pid]).get(key), undefined, 'this process holds only the client end, whose peer is the server');
});
