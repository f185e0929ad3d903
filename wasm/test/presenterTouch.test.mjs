// Multi-touch through RDPEI (issue 30, docs/ink-and-touch.md "Multi-touch"):
// the display's real wasm client and the browser presenter's real wasm RDP
// server, joined by the real gateway (testkit) as in presenterLeg.test.mjs,
// in both relay engines (scripts/run-tests.mjs). The presenter offers
// `Microsoft::Windows::RDS::Input`; the client takes it and says so; the
// touch contacts the client sends — two fingers at once, with and without
// pressure, a move, the ups, a quick tap — arrive at the presenter decoded
// as sent. And the bytes on the presenter's socket (after the gateway) are
// read by an independent decoder written from [MS-RDPEI] (rdpeiSpec.mjs):
// SC_READY, CS_READY and every RDPINPUT_TOUCH_EVENT_PDU, field by field,
// each touch PDU matching the frame FreeRDP's server decoded from it.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import WebSocket from 'ws';

import { loadLanternaPresenter, loadLanternaRdp } from '../js/nodeLoader.js';
import { runOverGateway } from '../js/gatewaySession.js';
import { countDifferences, testPicture } from './presenterPipe.mjs';
import { startDisplayGateway } from './displayGateway.mjs';
import { CONTACT, DvcFollower, EVENT_ID, FIELDS, PROTOCOL_V300, SpecReader, channelPdus, clientDvcData, decodeRdpeiPdu } from './rdpeiSpec.mjs';

const DISPLAY = 'room-1';
const DISPLAY_TOKEN = 'room-1-token-0123456789abcdef';
const WIDTH = 320;
const HEIGHT = 240;
const ENGAGED = CONTACT.INRANGE | CONTACT.INCONTACT;

let rdp;
let presenters;
let gateway;
/** The gateway with the display online (displayGateway.mjs). */
let room;

before(async () => {
  [rdp, presenters] = await Promise.all([loadLanternaRdp(), loadLanternaPresenter()]);
  room = await startDisplayGateway(DISPLAY, DISPLAY_TOKEN);
  gateway = room.gateway;
});
after(async () => {
  await room?.close();
  await Promise.all([rdp?.close(), presenters?.close()]);
});

function nextProject(deadlineMs = 5000) {
  return room.nextProject(deadlineMs);
}

/** Resolves when `check()` is true (polled), or fails with `what`. */
async function until(check, what, deadlineMs = 15000) {
  const deadline = Date.now() + deadlineMs;
  while (!check()) {
    if (Date.now() > deadline) assert.fail(`${what} within ${deadlineMs} ms`);
    await new Promise((resolve) => { setTimeout(resolve, 20); });
  }
}

/**
 * A browser-source projection with the display's client and the presenter's
 * server joined through the gateway; every binary message on the presenter's
 * socket is kept, both ways, in order.
 */
async function presentation(t, options = {}) {
  const pin = await gateway.roomPin(DISPLAY);
  const response = await fetch(`${gateway.httpUrl}/v1/displays/${DISPLAY}/projection`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-lanterna-presenter': '1' },
    body: JSON.stringify({ pin, source: 'browser' }),
  });
  const started = await response.json();
  assert.equal(response.status, 202, JSON.stringify(started));
  const project = await nextProject();

  const client = rdp.createSession({ width: 640, height: 480, connectTimeoutMs: 15000, username: 'display', password: 'unused' });
  const offered = [];
  client.ontouchoffered = (yes) => offered.push(yes);
  const displayEnded = runOverGateway(client, new WebSocket(`${gateway.url}/v1/sessions/${encodeURIComponent(project.sessionId)}/data`, 'lanterna.v1'), { token: project.sessionToken });

  const presenter = presenters.createSession({ width: WIDTH, height: HEIGHT, ...options });
  const wire = []; // { fromServer, bytes } in the order the presenter's socket saw them
  const frames = []; // what FreeRDP's server decoded, one per touch frame
  const ready = [];
  const off = [];
  presenter.ontouch = (frame) => frames.push(Object.defineProperty(frame, 'at', { value: performance.now() }));
  presenter.ontouchready = (info) => ready.push(info);
  presenter.ontouchoff = (info) => off.push(info);
  const socket = new WebSocket(started.presenter.socketUrl, 'lanterna.v1');
  socket.binaryType = 'nodebuffer';
  presenter.onoutput = (bytes) => {
    wire.push({ fromServer: true, bytes: new Uint8Array(bytes) });
    if (socket.readyState === WebSocket.OPEN) socket.send(bytes);
  };
  socket.on('open', () => {
    socket.send(JSON.stringify({ type: 'present', token: started.presenter.token, publicKey: Buffer.from(presenter.publicKey).toString('base64') }));
    presenter.start();
  });
  socket.on('message', (data, isBinary) => {
    if (!isBinary) return;
    wire.push({ fromServer: false, bytes: new Uint8Array(data) });
    presenter.feed(new Uint8Array(data));
  });
  socket.on('close', () => presenter.endOfInput());
  const active = new Promise((resolve) => { presenter.onactive = resolve; });
  t.after(async () => {
    client.stop();
    presenter.stop();
    socket.close();
    await Promise.all([displayEnded, presenter.ended]);
    await fetch(`${gateway.httpUrl}/v1/displays/${DISPLAY}/projection`, { method: 'DELETE', headers: { 'x-lanterna-presenter': '1', 'x-lanterna-stop-token': started.stopToken } });
  });
  await Promise.race([
    active,
    displayEnded.then((end) => { throw new Error(`the display ended before GFX was up: ${JSON.stringify(end)}`); }),
    presenter.ended.then((end) => { throw new Error(`the presenter ended before GFX was up: ${JSON.stringify(end)}`); }),
  ]);
  return { client, presenter, wire, frames, ready, off, offered, socket };
}

/** Each contact id's frames in order: [{ flags, x, y, pressure? }]. */
function byContact(frames) {
  const seen = new Map();
  for (const frame of frames) {
    for (const c of frame.contacts) {
      if (!seen.has(c.id)) seen.set(c.id, []);
      seen.get(c.id).push(c);
    }
  }
  return seen;
}

/** [MS-RDPEI] 3.1.1.1: a contact goes down engaged, stays engaged while it moves, then goes up. */
function assertContactLife(states, what) {
  assert.ok(states.length >= 2, `${what}: ${JSON.stringify(states)}`);
  assert.equal(states[0].flags, CONTACT.DOWN | ENGAGED, `${what} begins with a down: ${JSON.stringify(states)}`);
  for (const s of states.slice(1, -1)) assert.equal(s.flags, CONTACT.UPDATE | ENGAGED, `${what} moves engaged: ${JSON.stringify(states)}`);
  assert.equal(states.at(-1).flags, CONTACT.UP, `${what} ends with an up: ${JSON.stringify(states)}`);
}

test('the decoder reads the specification\'s own examples', () => {
  // [MS-RDPEI] 2.2.2.x (the same encodings as [MS-RDPEGDI]'s): the examples the text gives
  const read = (bytes, how) => { const r = new SpecReader(Uint8Array.from(bytes), 'example'); const v = r[how](); assert.equal(r.left, 0); return v; };
  assert.equal(read([0x9a, 0x1b, 0x1c], 'fourByteUnsigned'), 0x001a1b1c);
  assert.equal(read([0xda, 0x1b], 'twoByteSigned'), -0x1a1b);
  assert.equal(read([0x42], 'twoByteSigned'), -2);
  assert.equal(read([0xda, 0x1b, 0x1c, 0x1d, 0x1e, 0x1f, 0x2a], 'eightByteUnsigned'), 0x001a1b1c1d1e1f2an);
  assert.equal(read([0x7f], 'twoByteUnsigned'), 0x7f);
  assert.equal(read([0x81, 0x00], 'twoByteUnsigned'), 0x100);
  assert.equal(read([0x25], 'fourByteSigned'), -5);
  assert.equal(read([0x41, 0x40], 'fourByteSigned'), 0x140);
  // a pduLength that is not the pdu's, and a field cut short, are refused
  assert.throws(() => decodeRdpeiPdu(Uint8Array.of(2, 0, 17, 0, 0, 0, 3, 0, 0, 0, 0, 0, 3, 0, 64, 0)), /pduLength 17/);
  assert.throws(() => decodeRdpeiPdu(Uint8Array.of(3, 0, 8, 0, 0, 0, 0, 0x81)), /cut/);
});

test('touch contacts from the display\'s client reach the presenter\'s server through RDPEI, through the gateway; its bytes read as [MS-RDPEI] says', async (t) => {
  const { client, wire, frames, ready, off, offered } = await presentation(t);
  await until(() => client.touchOffered, 'the client heard the presenter open RDPEI');
  assert.deepEqual(offered, [true]);
  await until(() => ready.length === 1, 'the presenter heard CS_READY');
  assert.deepEqual(ready[0], { protocolVersion: PROTOCOL_V300, maxTouchContacts: 64, flags: 0x3 });

  // two fingers: A with pressure, B without; B goes down while A is held, A moves, A up, B up
  // (each step waits for the server to have it, so that the first PDU is A's down alone)
  const seen = (check) => frames.some((f) => f.contacts.some(check));
  // ms from sendTouch to the presenter's ontouch of the frame that carries it (display client → gateway → server → JS)
  const latencies = [];
  const step = async (send, check, what) => {
    const sentAt = performance.now();
    assert.equal(send(), true, what);
    await until(() => seen(check), what);
    latencies.push(frames.find((f) => f.contacts.some(check)).at - sentAt);
  };
  await step(() => client.sendTouch('down', 41, 10, 20, 512), (c) => c.x === 10, 'A down');
  await step(() => client.sendTouch('down', 42, 300, 200), (c) => c.x === 300 && c.flags !== CONTACT.UP, 'B down');
  assert.ok(frames.some((f) => f.contacts.length === 2), 'a frame with both contacts');
  await step(() => client.sendTouch('move', 41, 15, 25, 600), (c) => c.x === 15, 'A moved');
  await step(() => client.sendTouch('up', 41, 15, 25), (c) => c.x === 15 && c.flags === CONTACT.UP, 'A up');
  await step(() => client.sendTouch('up', 42, 301, 202), (c) => c.x === 301 && c.flags === CONTACT.UP, 'B up');
  t.diagnostic(`sendTouch → ontouch through the gateway: ${latencies.map((ms) => ms.toFixed(1)).join(', ')} ms (down, down, move, up, up)`);
  // a tap: down and up with nothing between (FreeRDP's channel lost the down before patch 0016)
  assert.equal(client.sendTouch('down', 43, 100, 101, 1024), true);
  assert.equal(client.sendTouch('up', 43, 100, 101), true);
  await until(() => seen((c) => c.x === 100 && c.flags === CONTACT.UP), 'the tap up');
  assert.deepEqual(off, []);

  // what FreeRDP's server decoded, contact by contact
  const first = frames.findIndex((f) => f.contacts.some((c) => c.flags & CONTACT.DOWN));
  assert.equal(frames[first].frameOffsetUs, 0, 'the first frame of a session has offset 0');
  const tapStart = frames.findIndex((f) => f.contacts.some((c) => c.flags & CONTACT.DOWN && c.x === 100));
  const fingers = byContact(frames.slice(0, tapStart));
  assert.deepEqual([...fingers.keys()].sort(), [0, 1]);
  const a = fingers.get(0);
  const b = fingers.get(1);
  assertContactLife(a, 'finger A');
  assertContactLife(b, 'finger B');
  assert.deepEqual({ x: a[0].x, y: a[0].y, pressure: a[0].pressure }, { x: 10, y: 20, pressure: 512 });
  assert.ok(a.some((s) => s.x === 15 && s.y === 25 && s.pressure === 600), `A moved with its pressure: ${JSON.stringify(a)}`);
  assert.deepEqual({ x: a.at(-1).x, y: a.at(-1).y }, { x: 15, y: 25 });
  assert.deepEqual({ x: b[0].x, y: b[0].y, pressure: b[0].pressure }, { x: 300, y: 200, pressure: undefined });
  assert.deepEqual({ x: b.at(-1).x, y: b.at(-1).y }, { x: 301, y: 202 });
  // simultaneous: a frame carries B's down with A engaged
  assert.ok(frames.some((f) => f.contacts.length === 2 && f.contacts.some((c) => c.id === 1 && c.flags === (CONTACT.DOWN | ENGAGED)) && f.contacts.some((c) => c.id === 0 && (c.flags & ENGAGED) === ENGAGED)), 'B went down while A was held');
  const tap = byContact(frames.slice(tapStart)).get(0);
  assertContactLife(tap, 'the tap');
  assert.deepEqual({ x: tap[0].x, y: tap[0].y, pressure: tap[0].pressure }, { x: 100, y: 101, pressure: 1024 });

  // the same, on the wire: every RDPEI PDU the presenter's socket carried, read from the specification
  const follower = new DvcFollower();
  for (const message of wire) follower.feed(message.bytes, message.fromServer);
  assert.equal(follower.rdpeiIds.size, 1, 'the server created the channel once');
  const pdus = follower.pdus.map((p) => ({ ...p, decoded: decodeRdpeiPdu(p.bytes) }));
  const fromServer = pdus.filter((p) => p.fromServer);
  assert.equal(fromServer.length, 1);
  assert.deepEqual(fromServer[0].decoded, { eventId: EVENT_ID.SC_READY, pduLength: 14, protocolVersion: PROTOCOL_V300, supportedFeatures: 0 });
  const fromClient = pdus.filter((p) => !p.fromServer);
  // CS_READY first (2.2.3.2): SHOW_TOUCH_VISUALS | DISABLE_TIMESTAMP_INJECTION, version 3.0.0, 64 contacts
  assert.deepEqual(fromClient[0].decoded, { eventId: EVENT_ID.CS_READY, pduLength: 16, flags: 0x3, protocolVersion: PROTOCOL_V300, maxTouchContacts: 64 });
  assert.deepEqual([...fromClient[0].bytes], [0x02, 0x00, 0x10, 0x00, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0x00, 0x40, 0x00]);
  const touches = fromClient.slice(1);
  assert.ok(touches.every((p) => p.decoded.eventId === EVENT_ID.TOUCH), JSON.stringify(touches.map((p) => p.decoded.eventId)));
  // one PDU per frame the server decoded, in order, field for field
  const wireFrames = touches.flatMap((p) => p.decoded.frames.map((f) => ({ ...f, encodeTime: p.decoded.encodeTime })));
  // (the server decodes on its own thread: its last frames may still be on their way to JS)
  await until(() => frames.length >= wireFrames.length, `the server's ${wireFrames.length} frames`);
  assert.equal(wireFrames.length, frames.length, 'every frame on the wire was decoded by the server, and nothing else');
  wireFrames.forEach((frame, i) => {
    assert.equal(Number(frame.frameOffset), frames[i].frameOffsetUs, `frame ${i} offset`);
    assert.deepEqual(frame.contacts.map((c) => ({ id: c.contactId, flags: c.contactFlags, x: c.x, y: c.y, ...(c.pressure === undefined ? {} : { pressure: c.pressure }), fieldsPresent: c.fieldsPresent })), frames[i].contacts, `frame ${i}`);
    for (const c of frame.contacts) {
      // FreeRDP's client gives every contact a 4×4 rectangle around its point, pressure where the page gave one
      assert.ok(c.fieldsPresent & FIELDS.CONTACTRECT);
      assert.deepEqual(c.contactRect, { left: c.x - 2, top: c.y - 2, right: c.x + 2, bottom: c.y + 2 });
      assert.equal((c.fieldsPresent & FIELDS.PRESSURE) !== 0, c.pressure !== undefined);
      assert.equal(c.fieldsPresent & FIELDS.ORIENTATION, 0);
    }
  });
  t.diagnostic(`${frames.length} touch frames in ${touches.length} RDPINPUT_TOUCH_EVENT_PDUs (${touches.reduce((n, p) => n + p.bytes.length, 0)} bytes), each matching the server's decoding`);
  // one frame, decoded by hand from its bytes: A's down with pressure 512 (the first touch pdu)
  const down = touches[0];
  const expected = [
    0x03, 0x00, down.bytes.length, 0x00, 0x00, 0x00, // header: EVENTID_TOUCH, pduLength
    0x00, // encodeTime 0 (FOUR_BYTE_UNSIGNED, one byte)
    0x01, // frameCount 1 (TWO_BYTE_UNSIGNED)
    0x01, // contactCount 1
    0x00, // frameOffset 0 (EIGHT_BYTE_UNSIGNED)
    0x00, // contactId 0
    0x05, // fieldsPresent CONTACTRECT | PRESSURE
    0x0a, 0x14, // x 10, y 20 (FOUR_BYTE_SIGNED, one byte each)
    0x19, // contactFlags DOWN | INRANGE | INCONTACT
    0x08, 0x12, 0x0c, 0x16, // contactRect 8, 18, 12, 22 (TWO_BYTE_SIGNED)
    0x42, 0x00, // pressure 512 (FOUR_BYTE_UNSIGNED, two bytes: c 1, 0x200)
  ];
  assert.deepEqual([...down.bytes], expected);
});

test('a server without RDPEI: the client says nothing is offered and sendTouch refuses (the page sends mouse input instead)', async (t) => {
  const { client, offered, ready } = await presentation(t, { touch: false });
  // the presenter would have opened it right behind GFX: give a server that could a while
  await new Promise((resolve) => { setTimeout(resolve, 1000); });
  assert.equal(client.state, 'connected');
  assert.equal(client.touchOffered, false);
  assert.deepEqual(offered, []);
  assert.deepEqual(ready, []);
  assert.equal(client.sendTouch('down', 1, 5, 5), false);
  assert.equal(client.sendMouse(0x0800, 5, 5), true, 'mouse input still goes');
});

test('RDPEI the presenter cannot read turns touch off for the session, closing the channel, and the picture goes on', async (t) => {
  const { client, presenter, wire, frames, ready, off, offered } = await presentation(t);
  await until(() => ready.length === 1, 'the presenter heard CS_READY');
  assert.equal(client.sendTouch('down', 7, 30, 40), true);
  await until(() => frames.length > 0, 'a touch frame');
  // what a display page could write itself: a touch event whose frame is cut after contactCount
  const follower = new DvcFollower();
  for (const message of wire) follower.feed(message.bytes, message.fromServer);
  const [channelId] = [...follower.rdpeiIds];
  const { initiator } = wire.filter((m) => !m.fromServer).flatMap((m) => [...channelPdus(m.bytes)]).find((p) => p.mcsChannel === follower.rdpeiMcs);
  const cut = Uint8Array.of(0x03, 0x00, 0x09, 0x00, 0x00, 0x00, 0x00, 0x01, 0x05); // EVENTID_TOUCH, 9 bytes: encodeTime 0, frameCount 1, contactCount 5, nothing more
  presenter.feed(clientDvcData({ initiator, mcsChannel: follower.rdpeiMcs, channelId }, cut));
  await until(() => off.length === 1, 'touch off at the presenter');
  assert.notEqual(off[0].code, 0);
  // the presenter closed the channel: the client hears it, and sends no more
  await until(() => !client.touchOffered, 'the client heard RDPEI closed');
  assert.deepEqual(offered, [true, false]);
  assert.equal(client.sendTouch('up', 7, 30, 40), false);
  // the picture goes on
  const picture = testPicture(WIDTH, HEIGHT, 3);
  const shown = new Promise((resolve) => {
    client.onframe = (frame) => { if (frame.width === WIDTH && countDifferences(frame, picture, { x: 0, y: 0, width: WIDTH, height: HEIGHT }).differ === 0) resolve(); };
  });
  presenter.sendFrame({ width: WIDTH, height: HEIGHT, pixels: picture });
  await shown;
  assert.equal(presenter.state, 'active');
});
