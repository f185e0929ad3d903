// The gateway's presenter leg end to end (issue 25, docs/browser-presenter.md):
// the presenter is the real wasm RDP server (LanternaPresenter) on a real
// presenter socket, the display is the real wasm client on its real data
// socket, and between them the real gateway (testkit), which the presenter
// API told to join them. A picture the presenter sends must arrive in the
// display's surface pixel for pixel; a wrong PIN, a busy display, a presenter
// that sends something that is not a PDU, a stop from the presenter API and
// the presenter's socket closing must each end clearly. Runs against both
// relay engines (scripts/run-tests.mjs): the native data plane's front door
// serves the presenter socket and joins it in Go (presenterjoin.go), the
// Node engine in presenterJoin.ts.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import WebSocket from 'ws';
import { buildConnectionConfirm, parseGatewayPresenterMessage, PROTOCOL } from '@lanterna/protocol';

import { loadLanternaPresenter, loadLanternaRdp } from '../js/nodeLoader.js';
import { runOverGateway } from '../js/gatewaySession.js';
import { countDifferences, testPicture } from './presenterPipe.mjs';
import { startDisplayGateway } from './displayGateway.mjs';

const DISPLAY = 'room-1';
const DISPLAY_TOKEN = 'room-1-token-0123456789abcdef';
const WIDTH = 320;
const HEIGHT = 240;

let rdp;
let presenters;
let gateway;

/** The gateway with the display online (displayGateway.mjs); replaced by tests that need other settings. */
let room;

async function startRoom(overrides = {}) {
  room = await startDisplayGateway(DISPLAY, DISPLAY_TOKEN, overrides);
  gateway = room.gateway;
}

before(async () => {
  [rdp, presenters] = await Promise.all([loadLanternaRdp(), loadLanternaPresenter()]);
  await startRoom();
});
after(async () => {
  await room?.close();
  await Promise.all([rdp?.close(), presenters?.close()]);
});

async function currentPin() {
  // what the broker holds, and the display is sent (it rotates after each use)
  const pin = await gateway.roomPin(DISPLAY);
  assert.ok(pin, 'the display has a room PIN');
  return pin;
}

/** The next `project` the display is told. */
function nextProject(deadlineMs = 5000) {
  return room.nextProject(deadlineMs);
}

function projectionUrl(displayId = DISPLAY) {
  return `${gateway.httpUrl}/v1/displays/${displayId}/projection`;
}

/** POST a browser-source projection; resolves with the status and the JSON answer. */
async function askToPresent(body) {
  const response = await fetch(projectionUrl(), {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-lanterna-presenter': '1' },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: await response.json() };
}

async function stopProjection(stopToken) {
  const response = await fetch(projectionUrl(), { method: 'DELETE', headers: { 'x-lanterna-presenter': '1', 'x-lanterna-stop-token': stopToken } });
  return { status: response.status, body: await response.json() };
}

async function displayState() {
  const listing = await (await fetch(`${gateway.httpUrl}/v1/displays`)).json();
  return listing.displays.find((display) => display.id === DISPLAY)?.state;
}

async function untilIdle(deadlineMs = 5000) {
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    const state = await displayState();
    if (state === 'idle') return;
    if (Date.now() > deadline) assert.fail(`the display is still ${state} after ${deadlineMs} ms`);
    await new Promise((resolve) => { setTimeout(resolve, 50); });
  }
}

/**
 * The presenter page's part, as the page will play it: its socket, `present`
 * with the token and the peer's key, then bytes both ways (each PDU the peer
 * writes is one message: whole PDUs, never a part of one).
 */
function presentOverGateway(presenter, started) {
  const socket = new WebSocket(started.presenter.socketUrl, 'lanterna.v1');
  socket.binaryType = 'nodebuffer';
  const heard = { messages: [], closeCode: null };
  presenter.onoutput = (bytes) => { if (socket.readyState === WebSocket.OPEN) socket.send(bytes); };
  socket.on('open', () => {
    socket.send(JSON.stringify({ type: 'present', token: started.presenter.token, publicKey: Buffer.from(presenter.publicKey).toString('base64') }));
    presenter.start();
  });
  socket.on('message', (data, isBinary) => {
    if (isBinary) presenter.feed(new Uint8Array(data));
    else {
      const parsed = parseGatewayPresenterMessage(data.toString('utf8'));
      heard.messages.push(parsed.ok ? parsed.message : { unreadable: parsed.failure.message });
    }
  });
  const closed = new Promise((resolve) => {
    socket.on('close', (code, reason) => {
      heard.closeCode = code;
      presenter.endOfInput();
      resolve({ code, reason: reason.toString() });
    });
  });
  return { socket, heard, closed };
}

/** A browser-source projection, the display's client on its data socket and the presenter on its socket; resolves once GFX is up. */
async function presentation(t) {
  const pin = await currentPin();
  const asked = await askToPresent({ pin, source: 'browser' });
  assert.equal(asked.status, 202, JSON.stringify(asked.body));
  const started = asked.body;
  assert.equal(started.target, undefined);
  assert.match(started.presenter.socketUrl, new RegExp(`/v1/sessions/${started.sessionId}/present$`));
  const project = await nextProject();
  assert.equal(project.sessionId, started.sessionId);

  const client = rdp.createSession({ width: 640, height: 480, connectTimeoutMs: 15000, username: 'display', password: 'unused' });
  const frames = [];
  const frameWaiters = new Set();
  client.onframe = (frame) => {
    frames.push(frame.width);
    for (const waiter of [...frameWaiters]) waiter(frame);
  };
  const nextFrame = (check, what, deadlineMs = 20000) => new Promise((resolve, reject) => {
    let last = null;
    const waiter = (frame) => {
      const verdict = check(frame);
      last = verdict;
      if (verdict !== true) return;
      frameWaiters.delete(waiter);
      clearTimeout(timer);
      resolve(frame);
    };
    const timer = setTimeout(() => { frameWaiters.delete(waiter); reject(new Error(`no frame showed ${what} (last: ${JSON.stringify(last)})`)); }, deadlineMs);
    frameWaiters.add(waiter);
  });
  const dataSocket = new WebSocket(`${gateway.url}/v1/sessions/${encodeURIComponent(project.sessionId)}/data`, 'lanterna.v1');
  const displayEnded = runOverGateway(client, dataSocket, { token: project.sessionToken });

  const presenter = presenters.createSession({ width: WIDTH, height: HEIGHT });
  const active = new Promise((resolve) => { presenter.onactive = resolve; });
  const leg = presentOverGateway(presenter, started);
  t.after(async () => {
    client.stop();
    presenter.stop();
    leg.socket.close();
    await Promise.all([displayEnded, presenter.ended]);
    // a test that failed half way leaves the display free for the next
    await stopProjection(started.stopToken);
    await untilIdle();
  });
  const info = await Promise.race([
    active,
    displayEnded.then((end) => { throw new Error(`the display ended before GFX was up: ${JSON.stringify(end)}; presenter heard ${JSON.stringify(leg.heard)}`); }),
    presenter.ended.then((end) => { throw new Error(`the presenter ended before GFX was up: ${JSON.stringify(end)}; it heard ${JSON.stringify(leg.heard)}`); }),
  ]);
  return { started, client, presenter, leg, displayEnded, nextFrame, info };
}

test('a picture the presenter page sends arrives at the display pixel for pixel, through the gateway', async (t) => {
  const { presenter, nextFrame, info, started, displayEnded, leg } = await presentation(t);
  assert.deepEqual({ width: info.width, height: info.height }, { width: WIDTH, height: HEIGHT });
  assert.equal(await displayState(), 'presenting');

  const first = testPicture(WIDTH, HEIGHT, 1);
  const whole = { x: 0, y: 0, width: WIDTH, height: HEIGHT };
  const shown = nextFrame((frame) => (frame.width !== WIDTH ? `size ${frame.width}` : countDifferences(frame, first, whole).differ === 0 || countDifferences(frame, first, whole)), 'the first picture');
  presenter.sendFrame({ width: WIDTH, height: HEIGHT, pixels: first });
  await shown;

  const part = { x: 40, y: 30, width: 120, height: 80 };
  const second = testPicture(part.width, part.height, 2);
  const partShown = nextFrame((frame) => countDifferences(frame, second, part).differ === 0 || countDifferences(frame, second, part), 'the second picture');
  presenter.sendFrame({ ...part, pixels: second, codec: 'planar' });
  await partShown;

  // the presenter API's stop ends the display's session and tells the presenter's page
  const stopped = await stopProjection(started.stopToken);
  assert.equal(stopped.status, 202);
  const end = await displayEnded;
  assert.equal(end.reason, 'closed', JSON.stringify(end));
  assert.equal(end.gatewayEnded, 'stopped');
  await leg.closed;
  assert.deepEqual(leg.heard.messages, [{ type: 'ended', reason: 'stopped' }]);
  assert.equal((await presenter.ended).reason, 'closed');
  await untilIdle();
});

test('a wrong PIN is refused and opens nothing', async () => {
  const pin = await currentPin();
  const wrong = pin === '000000' ? '111111' : '000000';
  const asked = await askToPresent({ pin: wrong, source: 'browser' });
  assert.equal(asked.status, 403);
  assert.equal(asked.body.code, 'pin-wrong');
  const noPin = await askToPresent({ source: 'browser' });
  assert.equal(noPin.status, 401);
  assert.equal(noPin.body.code, 'pin-required');
  // a browser source with a target, or with credentials, is not understood
  const both = await askToPresent({ pin, source: 'browser', target: { host: '127.0.0.1', port: 3389 } });
  assert.equal(both.status, 400);
  assert.equal(await displayState(), 'idle');
});

test('a busy display is refused; the presenter closing its socket ends the display\'s session', async (t) => {
  const { displayEnded, leg, presenter } = await presentation(t);
  const busy = await askToPresent({ pin: await currentPin(), source: 'browser' });
  assert.equal(busy.status, 409);
  assert.equal(busy.body.code, 'display-busy');

  leg.socket.close(1000);
  const end = await displayEnded;
  assert.equal(end.reason, 'server-ended', JSON.stringify(end));
  assert.equal(end.gatewayEnded, 'server-closed');
  await presenter.ended;
  await untilIdle();
});

test('a presenter page that sends something that is not a PDU ends its own session with the reason, and the display\'s', async (t) => {
  const { displayEnded, leg } = await presentation(t);
  // a TPKT header that promises 1,000 bytes, and 4 of them
  leg.socket.send(Buffer.from([3, 0, 0x03, 0xe8, 1, 2, 3, 4]));
  const closed = await leg.closed;
  assert.equal(closed.code, 4400);
  const error = leg.heard.messages.find((message) => message.type === 'error');
  assert.ok(error, `the presenter heard ${JSON.stringify(leg.heard.messages)}`);
  assert.equal(error.code, 'bad-message');
  assert.match(error.message, /not whole rdp pdus/);
  const end = await displayEnded;
  assert.equal(end.gateway?.code, 'server-error', JSON.stringify(end));
  assert.match(end.gateway.message, /presenter page sent a message that is not whole rdp pdus/);
  await untilIdle();
});

test('a presenter token opens its socket once, and never a data socket', async () => {
  const asked = await askToPresent({ pin: await currentPin(), source: 'browser' });
  assert.equal(asked.status, 202);
  const project = await nextProject();
  // the presenter token on the display's data socket: refused
  const data = new WebSocket(`${gateway.url}/v1/sessions/${encodeURIComponent(project.sessionId)}/data`, 'lanterna.v1');
  const dataHeard = [];
  data.on('message', (message) => dataHeard.push(JSON.parse(message.toString('utf8'))));
  data.on('open', () => data.send(JSON.stringify({ type: 'open', token: asked.body.presenter.token })));
  const dataClosed = await new Promise((resolve) => { data.on('close', (code) => resolve(code)); });
  assert.equal(dataClosed, 4401);
  assert.equal(dataHeard[0]?.code, 'unauthorized');
  // the display's token on the presenter's socket: refused
  const wrong = new WebSocket(asked.body.presenter.socketUrl, 'lanterna.v1');
  wrong.on('open', () => wrong.send(JSON.stringify({ type: 'present', token: project.sessionToken, publicKey: 'AAAA' })));
  assert.equal(await new Promise((resolve) => { wrong.on('close', (code) => resolve(code)); }), 4401);
  // stop it: the display never joined, the booking ends at once
  assert.equal((await stopProjection(asked.body.stopToken)).status, 202);
  await untilIdle();
});

test('a presenter page whose Confirm selects HYBRID or RDP security, or is no Confirm, ends with the reason; the display\'s session with negotiation-failed or x224-invalid', async () => {
  const cases = [
    { answer: buildConnectionConfirm({ kind: 'response', selectedProtocol: PROTOCOL.HYBRID, flags: 0 }), display: 'negotiation-failed', page: /selected protocol 2, not tls/ },
    // a Confirm without negotiation: standard RDP security
    { answer: Uint8Array.of(3, 0, 0, 11, 6, 0xd0, 0, 0, 0x12, 0x34, 0), display: 'negotiation-failed', page: /selected protocol 0, not tls/ },
    // an X.224 Data TPDU where the Confirm belongs
    { answer: Uint8Array.of(3, 0, 0, 7, 2, 0xf0, 0x80), display: 'x224-invalid', page: /sent no connection confirm/ },
  ];
  for (const { answer, display, page } of cases) {
    const asked = await askToPresent({ pin: await currentPin(), source: 'browser' });
    assert.equal(asked.status, 202);
    const project = await nextProject();
    // the page: a plain socket that answers the display's Connection Request with `answer`
    const socket = new WebSocket(asked.body.presenter.socketUrl, 'lanterna.v1');
    const heard = [];
    let request = null;
    socket.on('open', () => socket.send(JSON.stringify({ type: 'present', token: asked.body.presenter.token, publicKey: 'AAAA' })));
    socket.on('message', (data, isBinary) => {
      if (isBinary) {
        request = data;
        socket.send(answer);
      } else heard.push(JSON.parse(data.toString('utf8')));
    });
    const pageClosed = new Promise((resolve) => { socket.on('close', (code) => resolve(code)); });
    const client = rdp.createSession({ width: 640, height: 480, connectTimeoutMs: 15000, username: 'display', password: 'unused' });
    const end = await runOverGateway(client, new WebSocket(`${gateway.url}/v1/sessions/${encodeURIComponent(project.sessionId)}/data`, 'lanterna.v1'), { token: project.sessionToken });
    assert.equal(end.gateway?.code, display, JSON.stringify(end));
    assert.equal(await pageClosed, 4400);
    assert.ok(request && request[0] === 3, 'the page got the display\'s Connection Request');
    assert.equal(heard[0]?.code, 'bad-message', JSON.stringify(heard));
    assert.match(heard[0].message, page);
    await untilIdle();
  }
});

/** A plain socket as a presenter page: opens, says `present` with `token`, records what it hears. */
function plainPage(socketUrl, token) {
  const socket = new WebSocket(socketUrl, 'lanterna.v1');
  socket.binaryType = 'nodebuffer';
  const heard = [];
  const binary = [];
  socket.on('open', () => socket.send(JSON.stringify({ type: 'present', token, publicKey: 'AAAA' })));
  socket.on('message', (data, isBinary) => {
    if (isBinary) binary.push(data);
    else heard.push(JSON.parse(data.toString('utf8')));
  });
  const closed = new Promise((resolve) => { socket.on('close', (code) => resolve(code)); });
  return { socket, heard, binary, closed };
}

test('hostile presenter pages end alone, typed: a forged token, data or garbage text while it waits, text that is not close mid-session', async (t) => {
  // a forged token: refused as on the data socket, and the projection still waits for its real page
  const asked = await askToPresent({ pin: await currentPin(), source: 'browser' });
  assert.equal(asked.status, 202);
  await nextProject();
  const forged = plainPage(asked.body.presenter.socketUrl, `${asked.body.presenter.token.slice(0, -4)}AAAA`);
  assert.equal(await forged.closed, 4401);
  assert.equal(forged.heard[0]?.code, 'unauthorized');
  // the real token still opens it; a page that speaks before its display joined ends its own wait
  const early = plainPage(asked.body.presenter.socketUrl, asked.body.presenter.token);
  await new Promise((resolve) => { early.socket.on('open', resolve); });
  await new Promise((resolve) => { setTimeout(resolve, 200); });
  early.socket.send(Buffer.from([3, 0, 0, 7, 2, 0xf0, 0x80]));
  assert.equal(await early.closed, 4400);
  assert.equal(early.heard[0]?.code, 'bad-message', JSON.stringify(early.heard));
  assert.match(early.heard[0].message, /before the display joined/);
  // its token was single-use: a second page with it is refused
  const again = plainPage(asked.body.presenter.socketUrl, asked.body.presenter.token);
  assert.equal(await again.closed, 4401);
  assert.equal((await stopProjection(asked.body.stopToken)).status, 202);
  await untilIdle();

  // mid-session: text that is not close is the page's fault; the display returns to idle
  const { displayEnded, leg } = await presentation(t);
  leg.socket.send(JSON.stringify({ type: 'present', token: 'again', publicKey: 'AAAA' }));
  assert.equal((await leg.closed).code, 4400);
  const error = leg.heard.messages.find((message) => message.type === 'error');
  assert.equal(error?.code, 'bad-message', JSON.stringify(leg.heard.messages));
  assert.match(error.message, /text that is not close/);
  const end = await displayEnded;
  assert.equal(end.gateway?.code, 'server-error', JSON.stringify(end));
  await untilIdle();
});

test('a presenter page that never sends its Confirm, or leaves before it, ends the display\'s session typed within the Confirm deadline', async () => {
  await room.close();
  await startRoom({ timeouts: { confirmMs: 500 } });
  for (const behaviour of ['silent', 'leaves']) {
    const asked = await askToPresent({ pin: await currentPin(), source: 'browser' });
    assert.equal(asked.status, 202);
    const project = await nextProject();
    const page = plainPage(asked.body.presenter.socketUrl, asked.body.presenter.token);
    page.socket.on('message', (_data, isBinary) => { if (isBinary && behaviour === 'leaves') page.socket.terminate(); });
    const client = rdp.createSession({ width: 640, height: 480, connectTimeoutMs: 15000, username: 'display', password: 'unused' });
    const startedAt = Date.now();
    const end = await runOverGateway(client, new WebSocket(`${gateway.url}/v1/sessions/${encodeURIComponent(project.sessionId)}/data`, 'lanterna.v1'), { token: project.sessionToken });
    const tookMs = Date.now() - startedAt;
    if (behaviour === 'silent') {
      assert.equal(end.gateway?.code, 'timeout', JSON.stringify(end));
      assert.equal(end.gateway.detail?.phase, 'x224');
      assert.ok(tookMs >= 450 && tookMs < 5000, `the display waited ${tookMs} ms for a 500 ms Confirm deadline`);
      assert.equal(await page.closed, 4400);
      assert.equal(page.heard[0]?.code, 'bad-message', JSON.stringify(page.heard));
      assert.match(page.heard[0].message, /no connection confirm within 500 ms/);
    } else {
      assert.equal(end.gateway?.code, 'server-error', JSON.stringify(end));
      assert.match(end.gateway.message, /left before its connection confirm/);
    }
    assert.equal(page.binary.length, 1, 'the page got the display\'s Connection Request, once');
    await untilIdle();
  }
});

test('a presenter page past relay.presenterBytesPerSecond is read later, not cut: its pictures still arrive whole, paced', async (t) => {
  await room.close();
  await startRoom({ relay: { presenterBytesPerSecond: 64 * 1024 } });
  const { presenter, nextFrame, started, displayEnded } = await presentation(t);
  // two uncompressed whole pictures: 2 × 300 KiB through a 64 KiB/s door
  const whole = { x: 0, y: 0, width: WIDTH, height: HEIGHT };
  const sentAt = Date.now();
  for (const seed of [10, 11]) {
    const picture = testPicture(WIDTH, HEIGHT, seed);
    const shown = nextFrame((frame) => countDifferences(frame, picture, whole).differ === 0 || countDifferences(frame, picture, whole), `picture ${seed}`, 60000);
    // one at a time: a newer picture would replace one not yet sent
    presenter.sendFrame({ width: WIDTH, height: HEIGHT, pixels: picture });
    await shown;
  }
  const tookMs = Date.now() - sentAt;
  // 600 KiB, of which 64 KiB pass at once: at least (600 - 64) / 64 ≈ 8 s; without the cap well under a second
  assert.ok(tookMs >= 6000, `two pictures took only ${tookMs} ms through a 64 KiB/s cap`);
  assert.equal((await stopProjection(started.stopToken)).status, 202);
  assert.equal((await displayEnded).gatewayEnded, 'stopped');
});
