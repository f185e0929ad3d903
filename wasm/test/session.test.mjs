// The wasm client end to end: a real FreeRDP shadow server on a lab display,
// the real gateway (in process, testkit), the client in this process. Frames
// must show the display's real pixels; failures must come back typed; a
// gateway that never answers or drops the socket (the testkit's stand-in)
// ends the session typed too.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import WebSocket from 'ws';
import { Lab } from '@lanterna/lab';
import { dropOnFirstBinary, GatewayStandIn, startProjectingGateway } from '@lanterna/testkit';

import { loadLanternaRdp } from '../js/nodeLoader.js';
import { runOverGateway } from '../js/gatewaySession.js';
import { DESKTOP_RGB, nearDesktop as near, startFlatDesktop } from './flatDesktop.mjs';

let rdp;

before(async () => {
  rdp = await loadLanternaRdp();
});
after(() => rdp.close());

/**
 * Runs one session until its surface shows the desktop's background in the
 * middle (servers draw the first frames in pieces) or a deadline, then stops it.
 */
async function connect(dataUrl, token, options, { deadlineMs = 30000 } = {}) {
  const session = rdp.createSession({ width: 1024, height: 768, connectTimeoutMs: 15000, ...options });
  const seen = { connected: null, frames: 0, sample: null, rects: 0 };
  session.onconnected = (desktop) => { seen.connected = desktop; };
  session.onframe = (frame) => {
    seen.frames += 1;
    seen.rects += frame.rects.length / 4;
    // sample the middle of the surface straight from the heap view
    const at = (frame.height >> 1) * frame.stride + (frame.width >> 1) * 4;
    const px = frame.pixels.subarray(at, at + 4);
    seen.sample = frame.layout === 'bgrx' ? [px[2], px[1], px[0]] : [px[0], px[1], px[2]];
    seen.layout = frame.layout;
    if (near(seen.sample)) session.stop();
  };
  const socket = new WebSocket(dataUrl, 'lanterna.v1');
  const ended = runOverGateway(session, socket, { token });
  const timer = setTimeout(() => session.stop(), deadlineMs);
  try {
    seen.end = await ended;
  } finally {
    clearTimeout(timer);
  }
  return seen;
}

/** A lab with a flat desktop behind FreeRDP's shadow server, and the real gateway projecting it; all closed after t. */
async function desktopThroughGateway(t, auth) {
  const lab = await Lab.create({ name: `wasm-session-${auth}` });
  t.after(() => lab.close());
  const server = await startFlatDesktop(lab, { auth });
  const projecting = await startProjectingGateway({ displayId: 'wasm' });
  t.after(() => projecting.close());
  return { server, projecting };
}

test('TLS session through the gateway: connects, decodes the desktop, stops cleanly', async (t) => {
  const { server, projecting } = await desktopThroughGateway(t, 'tls');
  const { dataUrl, token } = await projecting.project(server);
  const seen = await connect(dataUrl, token, { username: 'viewer', password: 'x' });
  assert.deepEqual(seen.connected, { width: 1024, height: 768 });
  assert.ok(seen.frames >= 1, `only ${seen.frames} frames`);
  assert.ok(seen.rects >= 1);
  assert.equal(seen.layout, 'bgrx');
  assert.ok(near(seen.sample), `centre pixel ${seen.sample} is not the desktop's ${DESKTOP_RGB}`);
  assert.equal(seen.end.reason, 'stopped');
});

test('NLA session: CredSSP binds to the key the gateway reports', async (t) => {
  const { server, projecting } = await desktopThroughGateway(t, 'nla');
  const first = await projecting.project(server);
  const good = await connect(first.dataUrl, first.token, { username: server.username, password: server.password, pixelLayout: 'rgbx' });
  assert.ok(good.frames >= 1, `no frames (ended ${JSON.stringify(good.end)})`);
  assert.equal(good.layout, 'rgbx');
  assert.ok(near(good.sample), `centre pixel ${good.sample} is not the desktop's ${DESKTOP_RGB}`);

  const second = await projecting.project(server);
  const bad = await connect(second.dataUrl, second.token, { username: server.username, password: 'not-the-password' });
  assert.equal(bad.frames, 0);
  assert.equal(bad.end.reason, 'wrong-password');
});

test('a gateway that never answers ends the session with a timeout', async (t) => {
  const silent = await GatewayStandIn.listen(); // records, never answers
  t.after(() => silent.close());
  const started = Date.now();
  const seen = await connect(silent.dataUrl('silent'), 'k', { username: 'u', password: 'p', connectTimeoutMs: 2000 });
  assert.equal(seen.end.reason, 'timeout');
  assert.ok(Date.now() - started < 10000, `took ${Date.now() - started} ms`);
});

test('a gateway that drops the socket mid-connect ends it as connection-reset', async (t) => {
  const rude = await GatewayStandIn.listen({ dataScript: dropOnFirstBinary() });
  t.after(() => rude.close());
  const seen = await connect(rude.dataUrl('rude'), 'k', { username: 'u', password: 'p' });
  assert.equal(seen.end.reason, 'connection-reset');
});

test('close() with a session still running: the session ends first, then the threads, and nothing waits forever', async () => {
  const own = await loadLanternaRdp();
  const session = own.createSession({ width: 640, height: 480, connectTimeoutMs: 60000 });
  const sent = new Promise((resolve) => { session.onsend = resolve; });
  session.start();
  await sent; // the RDP thread is up and waits for the Connection Confirm that never comes
  const started = Date.now();
  await own.close();
  const end = await Promise.race([session.closed, new Promise((resolve) => setTimeout(() => resolve({ reason: 'never ended' }), 10000).unref())]);
  assert.equal(end.reason, 'stopped');
  assert.ok(Date.now() - started < 5000, `close took ${Date.now() - started} ms (its deadline is 5 s: the stop did not end the session)`);
  assert.equal(own.sessions.size, 0);
  session.stop(); // after close: a no-op, not a call into a module without threads
  session.receive(new Uint8Array([3, 0, 0, 4]));
});
