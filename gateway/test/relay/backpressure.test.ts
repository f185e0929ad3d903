// A display that stops reading must stop the gateway reading the server: the
// gateway's buffers stay bounded and nothing is lost when the display resumes.
// Real sockets end to end; every wait is on a condition with a deadline.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { WebSocket } from 'ws';
import { startTestGateway, startFaultyPeer, STREAM_REQUEST, STREAM_END, connectControl, openSecuredData, waitFor, withDeadline, type TestGateway, type MessageQueue } from '@lanterna/testkit';

const TOKEN = 'display-token-0123456789';
const BURST = 96 * 1024 * 1024;

async function counter(gateway: TestGateway, metric: 'bytes' | 'pauses'): Promise<number> {
  const { values } = await gateway.metrics[metric].get();
  return values.find((v) => metric === 'pauses' || v.labels.direction === 'to-kiosk')?.value ?? 0;
}

async function secured(gateway: TestGateway, displayId: string): Promise<{ socket: WebSocket; queue: MessageQueue }> {
  const control = await connectControl(gateway.url, displayId, TOKEN);
  const project = await control.next('project');
  control.close();
  const data = await openSecuredData(gateway.url, project);
  await data.queue.nextBinary();
  return data;
}

test('a stalled display pauses the server leg; everything arrives once it reads again', { timeout: 90_000 }, async (t) => {
  const peer = await startFaultyPeer('stream');
  t.after(() => peer.close());
  const target = { host: '127.0.0.1', port: peer.port };
  const gateway = await startTestGateway({
    displays: [{ id: 'room', token: TOKEN, autoProject: target }, { id: 'probe', token: TOKEN, autoProject: target }],
    certificates: { mode: 'insecure' },
    relay: { highWaterBytes: 1024 * 1024, lowWaterBytes: 256 * 1024 },
  });
  t.after(() => gateway.close());
  const { socket } = await secured(gateway, 'room');
  const probe = await secured(gateway, 'probe');
  t.after(() => probe.socket.close());
  socket.removeAllListeners('message');

  const stream = { received: 0 };
  const ended = new Promise<void>((resolve) => {
    socket.on('message', (data: Buffer) => {
      stream.received += data.length;
      if (data[data.length - 16 * 1024 + 7] === STREAM_END) resolve();
    });
  });
  const ask = Buffer.alloc(12);
  ask.writeUInt32BE(0x0300000c, 0);
  ask.set([0x02, 0xf0, 0x80, STREAM_REQUEST], 4);
  ask.writeUInt32BE(BURST, 8);
  socket.pause(); // the display stops reading before the burst starts
  socket.send(ask);

  await waitFor('the gateway paused the server leg', async () => (await counter(gateway, 'pauses')) >= 1);
  const relayedWhilePaused = await counter(gateway, 'bytes');
  // The gateway stays busy and responsive meanwhile: a second session makes round trips through it.
  const ROUND_TRIPS = 50;
  for (let i = 0; i < ROUND_TRIPS; i++) {
    const echo = Buffer.from([0x03, 0x00, 0x00, 0x08, 0x02, 0xf0, 0x80, i]);
    probe.socket.send(echo);
    assert.deepEqual(await probe.queue.nextBinary(), echo);
  }
  // The native engine's figures reach Node's metrics with its once-a-second sample.
  await waitFor('the probe\'s echoes are counted', async () => (await counter(gateway, 'bytes')) >= relayedWhilePaused + ROUND_TRIPS * 8);
  const relayedLater = await counter(gateway, 'bytes');
  assert.equal(relayedLater - relayedWhilePaused, ROUND_TRIPS * 8, 'nothing more is read from the stalled session\'s server, only the probe\'s echoes');
  assert.equal(await counter(gateway, 'pauses'), 1, 'paused once and still paused');
  assert.ok(relayedWhilePaused < 32 * 1024 * 1024, `the gateway buffered a bounded amount (${relayedWhilePaused} bytes read of ${BURST})`);

  socket.resume();
  await withDeadline(ended, 'the whole burst arrived', 60_000);
  assert.equal(stream.received, BURST, 'no byte lost or duplicated');
});
