import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { listeningPorts, portListening, portOpen } from './readiness.js';
import { allocateFreePort } from './freePort.js';

const subject = { logPath: '/nonexistent', extraPipeText: () => '' };

test('listeningPorts reads LISTEN rows from /proc/net/tcp text', () => {
  const text = [
    '  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode',
    '   0: 0100007F:0D3D 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 1 1 0 100 0 0 10 0',
    '   1: 0100007F:A1B2 0100007F:0D3D 01 00000000:00000000 00:00000000 00000000     0        0 2 1 0 20 4 30 10 -1',
  ].join('\n');
  assert.deepEqual([...listeningPorts(text)], [0x0d3d]);
});

test('portListening and portOpen see a real listener, and not before it listens', async (t) => {
  const port = await allocateFreePort();
  assert.equal(await portListening(port).check(subject), false);
  assert.equal(await portOpen('127.0.0.1', port).check(subject), false);
  const server = createServer((socket) => socket.destroy());
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  assert.equal(await portListening(port).check(subject), true);
  assert.equal(await portOpen('127.0.0.1', port).check(subject), true);
});
