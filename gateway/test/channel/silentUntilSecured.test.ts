// Between its Connection Request and `secured` a display must send nothing:
// the server leg is being set up (up to the Confirm and TLS deadlines). Data
// there ends that session at once with bad-message and is never buffered; a
// polite close ends it politely; a healthy session beside it is untouched.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { WebSocket } from 'ws';
import { startTestGateway, startFaultyPeer, connectControl, openData, type TestGateway, type FaultyPeer, type MessageQueue } from '@lanterna/testkit';
import { buildConnectionRequest, PROTOCOL } from '@lanterna/protocol';

const TOKEN = 'display-token-0123456789';
const CONFIRM_DEADLINE_MS = 15_000;
let gateway: TestGateway;
let silent: FaultyPeer;
let echo: FaultyPeer;
let healthy: { socket: WebSocket; queue: MessageQueue };

/** A session whose Connection Request went out; the server leg is under way. */
async function session(displayId: string, port: number): Promise<{ socket: WebSocket; queue: MessageQueue; sessionId: string }> {
  const control = await connectControl(gateway.url, displayId, TOKEN);
  try {
    const response = await fetch(`${gateway.httpUrl}/v1/admin/sessions`, {
      method: 'POST', headers: { authorization: `Bearer ${gateway.adminToken}` },
      body: JSON.stringify({ displayId, target: { host: '127.0.0.1', port } }),
    });
    assert.equal(response.status, 202);
    const project = await control.next('project');
    const data = await openData(gateway.url, String(project.sessionId), String(project.sessionToken));
    data.socket.send(buildConnectionRequest({ requestedProtocols: PROTOCOL.SSL }));
    return { ...data, sessionId: String(project.sessionId) };
  } finally {
    control.close();
  }
}

async function assertHealthyRelays(): Promise<void> {
  const probe = Buffer.from([0x03, 0x00, 0x00, 0x08, 0x02, 0xf0, 0x80, Math.floor(Math.random() * 256)]);
  healthy.socket.send(probe);
  assert.deepEqual(await healthy.queue.nextBinary(), probe, 'the healthy session keeps relaying');
}

before(async () => {
  silent = await startFaultyPeer('silent');
  echo = await startFaultyPeer('echo');
  gateway = await startTestGateway({
    displays: ['healthy', 'room'].map((id) => ({ id, token: TOKEN })),
    certificates: { mode: 'insecure' },
    timeouts: { confirmMs: CONFIRM_DEADLINE_MS },
  });
  healthy = await session('healthy', echo.port);
  await healthy.queue.nextText('secured');
  await healthy.queue.nextBinary();
});

after(async () => {
  healthy.socket.close();
  await gateway.close();
  await silent.close();
  await echo.close();
});

test('megabytes sent before secured end the session at once with bad-message, none of it buffered', { timeout: 30_000 }, async () => {
  const flooding = await session('room', silent.port);
  // 16 KiB frames: a larger one may reach the gateway before `open` was read,
  // while a data socket still takes JSON-sized frames only (it is closed 1009 then).
  const frame = Buffer.alloc(16 * 1024, 0x03);
  const started = performance.now();
  for (let i = 0; i < 1024 && flooding.socket.readyState === flooding.socket.OPEN; i++) flooding.socket.send(frame); // 16 MiB
  const closed = await flooding.queue.closed(CONFIRM_DEADLINE_MS);
  const took = performance.now() - started;
  assert.equal(closed.error?.code, 'bad-message', JSON.stringify(closed.error));
  assert.equal(closed.error.phase, 'request');
  assert.equal(closed.error.message, 'the display sent data before the server connection was secured');
  assert.equal(closed.code, 4400);
  assert.ok(took < 5000, `ended as the data arrived (${took.toFixed(0)} ms), not at the ${CONFIRM_DEADLINE_MS} ms Confirm deadline`);
  const errors = await gateway.metrics.errors.get();
  assert.ok(errors.values.some((v) => v.labels.phase === 'request' && v.labels.code === 'bad-message' && v.value >= 1));
  await assertHealthyRelays();
});

test('a polite close while the server leg is set up ends the session politely and at once', { timeout: 30_000 }, async () => {
  const leaving = await session('room', silent.port);
  const started = performance.now();
  leaving.socket.send('{"type":"close"}');
  assert.deepEqual(await leaving.queue.nextText('ended', CONFIRM_DEADLINE_MS), { type: 'ended', reason: 'client-closed' });
  assert.equal((await leaving.queue.closed()).code, 1000);
  assert.ok(performance.now() - started < 5000, 'without waiting for the Confirm deadline');
  await assertHealthyRelays();
});

test('an admin\'s stop during the handshake is kept: the session ends stopped once its server leg is secured, and relays nothing', { timeout: 30_000 }, async () => {
  // the server answers its Confirm after SLOW_CONFIRM_MS: the stop lands while the leg is being set up
  const slow = await startFaultyPeer('slow-confirm');
  try {
    const stopping = await session('room', slow.port);
    const stop = await fetch(`${gateway.httpUrl}/v1/admin/sessions/${stopping.sessionId}`, { method: 'DELETE', headers: { authorization: `Bearer ${gateway.adminToken}` } });
    assert.equal(stop.status, 202);
    // the native data plane tells the display `secured` and hands it the server's Connection Confirm
    // itself, before the gateway's Node side hears of it; nothing after that
    let item = await stopping.queue.next(CONFIRM_DEADLINE_MS);
    if ('text' in item && item.text.type === 'secured') {
      assert.ok('binary' in (item = await stopping.queue.next(CONFIRM_DEADLINE_MS)), 'the Connection Confirm follows secured');
      item = await stopping.queue.next(CONFIRM_DEADLINE_MS);
    }
    assert.deepEqual(item, { text: { type: 'ended', reason: 'stopped' } }, 'the stop was lost: the session went on relaying');
    assert.equal((await stopping.queue.closed()).code, 1000);
  } finally {
    await slow.close();
  }
  await assertHealthyRelays();
});
