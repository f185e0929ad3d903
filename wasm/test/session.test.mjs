// The wasm client end to end: a real FreeRDP shadow server on an Xvfb display,
// the stand-in gateway (standInGateway.mjs), the client in this process.
// Frames must show the display's real pixels; failures must come back typed.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { WebSocketServer } from 'ws';
import WebSocket from 'ws';

import { loadLanternaRdp } from '../js/nodeLoader.js';
import { runOverGateway } from '../js/gatewaySession.js';
import { startShadowServer } from './rdpServers.mjs';
import { startStandInGateway } from './standInGateway.mjs';

const BACKGROUND = [0x33, 0x66, 0xcc]; // xsetroot -solid '#3366cc' in rdpServers.mjs
const USER = { user: 'rdpuser', password: 'Passw0rd!' };
// RemoteFX and progressive are lossy: a flat colour comes back within a few steps
const near = (rgb) => rgb !== null && rgb.every((v, i) => Math.abs(v - BACKGROUND[i]) <= 6);
let rdp;

before(async () => {
  rdp = await loadLanternaRdp();
});
after(() => rdp.close());

/**
 * Runs one session until its surface shows the desktop's background in the
 * middle (servers draw the first frames in pieces) or a deadline, then stops it.
 */
async function connect(gatewayUrl, options, { deadlineMs = 30000 } = {}) {
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
  const socket = new WebSocket(gatewayUrl, 'lanterna.v1');
  const ended = runOverGateway(session, socket, { token: 'k' });
  const timer = setTimeout(() => session.stop(), deadlineMs);
  try {
    seen.end = await ended;
  } finally {
    clearTimeout(timer);
  }
  return seen;
}

test('TLS session through the gateway: connects, decodes the desktop, stops cleanly', async (t) => {
  const server = await startShadowServer();
  t.after(() => server.stop());
  const gateway = await startStandInGateway({ host: server.host, port: server.port, token: 'k' });
  t.after(() => gateway.close());

  const seen = await connect(gateway.url, { username: 'viewer', password: 'x' });
  assert.deepEqual(seen.connected, { width: 1024, height: 768 });
  assert.ok(seen.frames >= 1, `only ${seen.frames} frames`);
  assert.ok(seen.rects >= 1);
  assert.equal(seen.layout, 'bgrx');
  assert.ok(near(seen.sample), `centre pixel ${seen.sample} is not the desktop's ${BACKGROUND}`);
  assert.equal(seen.end.reason, 'stopped');
});

test('NLA session: CredSSP binds to the key the gateway reports', async (t) => {
  const server = await startShadowServer({ auth: USER });
  t.after(() => server.stop());
  const gateway = await startStandInGateway({ host: server.host, port: server.port, token: 'k' });
  t.after(() => gateway.close());

  const good = await connect(gateway.url, { username: USER.user, password: USER.password, pixelLayout: 'rgbx' });
  assert.ok(good.frames >= 1, `no frames (ended ${JSON.stringify(good.end)})`);
  assert.equal(good.layout, 'rgbx');
  assert.ok(near(good.sample), `centre pixel ${good.sample} is not the desktop's ${BACKGROUND}`);

  const bad = await connect(gateway.url, { username: USER.user, password: 'not-the-password' });
  assert.equal(bad.frames, 0);
  assert.equal(bad.end.reason, 'wrong-password');
});

test('a gateway that never answers ends the session with a timeout', async (t) => {
  const silent = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  t.after(() => new Promise((resolve) => { for (const c of silent.clients) c.terminate(); silent.close(resolve); }));
  await new Promise((resolve) => silent.once('listening', resolve));
  const started = Date.now();
  const seen = await connect(`ws://127.0.0.1:${silent.address().port}/`, { username: 'u', password: 'p', connectTimeoutMs: 2000 });
  assert.equal(seen.end.reason, 'timeout');
  assert.ok(Date.now() - started < 10000, `took ${Date.now() - started} ms`);
});

test('a gateway that drops the socket mid-connect ends it as connection-reset', async (t) => {
  const rude = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  t.after(() => new Promise((resolve) => rude.close(resolve)));
  rude.on('connection', (ws) => ws.on('message', (_data, isBinary) => { if (isBinary) ws.terminate(); }));
  await new Promise((resolve) => rude.once('listening', resolve));
  const seen = await connect(`ws://127.0.0.1:${rude.address().port}/`, { username: 'u', password: 'p' });
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
