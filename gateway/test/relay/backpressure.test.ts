// A display that stops reading must stop the gateway reading the server: the
// gateway's buffers stay bounded and nothing is lost when the display resumes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { startTestGateway, startFaultyPeer, STREAM_REQUEST, STREAM_END, connectControl, openData, type TestGateway } from '@lanterna/testkit';
import { buildConnectionRequest, PROTOCOL } from '@lanterna/protocol';

const TOKEN = 'display-token-0123456789';
const BURST = 96 * 1024 * 1024;

async function metric(gateway: TestGateway, name: string): Promise<number> {
  const text = await gateway.metricsText();
  const line = text.split('\n').find((l) => l.startsWith(name));
  return line ? Number(line.split(' ').pop()) : 0;
}

test('a stalled display pauses the server leg; everything arrives once it reads again', { timeout: 90_000 }, async (t) => {
  const peer = await startFaultyPeer('stream');
  t.after(() => peer.close());
  const gateway = await startTestGateway({
    displays: [{ id: 'room', token: TOKEN, autoProject: { host: '127.0.0.1', port: peer.port } }],
    certificates: { mode: 'insecure' },
    relay: { highWaterBytes: 1024 * 1024, lowWaterBytes: 256 * 1024 },
  });
  t.after(() => gateway.close());
  const control = await connectControl(gateway.url, 'room', TOKEN);
  t.after(() => control.close());
  const project = await control.next('project');
  const { socket, queue } = await openData(gateway.url, String(project.sessionId), String(project.sessionToken));
  socket.send(buildConnectionRequest({ requestedProtocols: PROTOCOL.SSL }));
  await queue.nextText('secured');
  await queue.nextBinary();
  socket.removeAllListeners('message');

  const stream = { received: 0, ended: false };
  socket.on('message', (data: Buffer) => {
    stream.received += data.length;
    if (data[data.length - 16 * 1024 + 7] === STREAM_END) stream.ended = true;
  });
  const ask = Buffer.alloc(12);
  ask.writeUInt32BE(0x0300000c, 0);
  ask.set([0x02, 0xf0, 0x80, STREAM_REQUEST], 4);
  ask.writeUInt32BE(BURST, 8);
  socket.pause(); // the display stops reading before the burst starts
  socket.send(ask);
  await sleep(3000);
  const relayedWhilePaused = await metric(gateway, 'lanterna_relay_bytes_total{direction="to-kiosk"}');
  await sleep(1000);
  const relayedLater = await metric(gateway, 'lanterna_relay_bytes_total{direction="to-kiosk"}');
  const pauses = await metric(gateway, 'lanterna_relay_backpressure_pauses_total');
  assert.ok(pauses >= 1, 'the gateway paused the server leg');
  assert.equal(relayedLater, relayedWhilePaused, 'nothing more is read from the server while the display is stalled');
  assert.ok(relayedWhilePaused < 32 * 1024 * 1024, `the gateway buffered a bounded amount (${relayedWhilePaused} bytes read of ${BURST})`);

  socket.resume();
  const deadline = Date.now() + 60_000;
  while (!stream.ended && Date.now() < deadline) await sleep(50);
  assert.ok(stream.ended, 'the whole burst arrived after resuming');
  assert.equal(stream.received, BURST, 'no byte lost or duplicated');
});
