// The input gate (issue 30) through the relay engine under test (the suite
// runs this file against both): a presenter's computer receives the
// display's input PDUs only while its presenter allows it. A real gateway, a
// presenter projecting with the room PIN, the display's data socket speaking
// the protocol by hand, and an echo server as the presenter's computer: what
// the echo sends back is what reached the computer. Off by default, on at
// the presenter's PATCH (and when granted before the display joined), off
// again at the revoke; only input PDUs are held back, the rest of a frame
// goes through. This is the engine's part of e2e/kiosk/touchToComputer,
// which runs once.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { openControlInbox, openSecuredData, startFaultyPeer, startTestGateway, type ControlInbox, type MessageQueue, type TestGateway } from '@lanterna/testkit';
import type { WebSocket } from 'ws';

const DISPLAY_TOKEN = 'display-token-input-gate-0123';
const presenterHeaders = { 'content-type': 'application/json', 'x-lanterna-presenter': '1' };

// The byte vectors both engines' gates are unit-tested with (protocol's inputPdus.ts, the data plane's pdu/input.go).
const vectorsPath = fileURLToPath(new URL('../../../dataplane/pdu/testdata/input-pdus.json', import.meta.url));
const vectors = JSON.parse(readFileSync(vectorsPath, 'utf8')) as { cases: { name: string; frame: string; kept: string; dropped: number }[] };
const coalesced = vectors.cases.find((vector) => vector.name.startsWith('coalesced'));
assert.ok(coalesced && coalesced.dropped === 2, 'the vectors have a frame with input between other PDUs');
/** Synchronize, fast-path input, Refresh Rect, slow-path input, virtual channel data: one message. */
const MIXED = Buffer.from(coalesced.frame, 'hex');
/** What of it is not input. */
const NOT_INPUT = Buffer.from(coalesced.kept, 'hex');

let markers = 0;
/** A TPKT-framed X.224 data PDU no gate holds back, numbered: where the echo of one probe ends. */
function marker(): Buffer {
  markers += 1;
  const pdu = Buffer.from([0x03, 0x00, 0x00, 0x0b, 0x02, 0xf0, 0x80, 0x4d, 0, 0, 0]);
  pdu.writeUInt16BE(markers, 8);
  return pdu;
}

interface Display { kiosk: ControlInbox; gateway: TestGateway }

async function startDisplay(t: { after(fn: () => Promise<void> | void): void }): Promise<Display & { echoPort: number }> {
  const echo = await startFaultyPeer('echo');
  t.after(() => echo.close());
  const gateway = await startTestGateway({ displays: [{ id: 'room', token: DISPLAY_TOKEN, name: 'Room' }], certificates: { mode: 'insecure' } });
  t.after(() => gateway.close());
  const kiosk = await openControlInbox(gateway.url, 'room', DISPLAY_TOKEN, { features: ['room', 'slots'] });
  t.after(() => kiosk.close());
  await kiosk.take('welcome');
  return { kiosk, gateway, echoPort: echo.port };
}

/** A presenter projects its computer (the echo server) with the PIN the display shows; returns its stop token and the display's `project`. */
async function present(display: Display, echoPort: number): Promise<{ stopToken: string; project: Record<string, unknown> }> {
  const response = await fetch(`${display.gateway.httpUrl}/v1/displays/room/projection`, {
    method: 'POST', headers: presenterHeaders,
    body: JSON.stringify({ pin: await display.gateway.roomPin('room'), name: 'Alice', target: { host: '127.0.0.1', port: echoPort } }),
  });
  assert.equal(response.status, 202, await response.clone().text());
  const started = await response.json() as { stopToken: string };
  return { stopToken: started.stopToken, project: await display.kiosk.take('project') };
}

async function setTouch(display: Display, stopToken: string, touch: boolean): Promise<void> {
  const response = await fetch(`${display.gateway.httpUrl}/v1/displays/room/projection`, {
    method: 'PATCH', headers: { ...presenterHeaders, 'x-lanterna-stop-token': stopToken }, body: JSON.stringify({ touch }),
  });
  assert.equal(response.status, 200, await response.clone().text());
}

/**
 * Sends the mixed frame, then a marker in a message of its own, and returns
 * what of the frame came back from the computer before the marker did (the
 * relay keeps order both ways).
 */
async function probe(socket: WebSocket, queue: MessageQueue): Promise<Buffer> {
  const end = marker();
  socket.send(MIXED);
  socket.send(end);
  let echoed: Buffer = Buffer.alloc(0);
  for (;;) {
    echoed = Buffer.concat([echoed, await queue.nextBinary()]);
    if (echoed.length >= end.length && echoed.subarray(echoed.length - end.length).equals(end)) return echoed.subarray(0, echoed.length - end.length);
    assert.ok(echoed.length <= MIXED.length + end.length, `more came back than was sent: ${echoed.toString('hex')}`);
  }
}

/** Probes until `want` came back (the permission travels from the API to the engine on its own), within the deadline. */
async function probeUntil(socket: WebSocket, queue: MessageQueue, want: Buffer, what: string, deadlineMs = 10_000): Promise<void> {
  const end = Date.now() + deadlineMs;
  let last: Buffer = Buffer.alloc(0);
  while (Date.now() < end) {
    last = await probe(socket, queue);
    if (last.equals(want)) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  assert.fail(`${what}: the computer got ${last.toString('hex')} within ${deadlineMs} ms, not ${want.toString('hex')}`);
}

test('input reaches the presenter\'s computer only while its presenter allows it: off by default, on at the grant, off at the revoke; the rest of a frame always passes', { timeout: 60_000 }, async (t) => {
  const display = await startDisplay(t);
  const { stopToken, project } = await present(display, display.echoPort);
  const data = await openSecuredData(display.gateway.url, project);
  t.after(() => data.socket.close());
  await data.queue.nextBinary(); // the Connection Confirm

  for (let round = 0; round < 3; round += 1) {
    assert.equal((await probe(data.socket, data.queue)).toString('hex'), NOT_INPUT.toString('hex'), `off by default (round ${String(round + 1)}): only the PDUs that are not input reach the computer`);
  }
  // input alone in a message: nothing of it reaches the computer, the session goes on
  const fastPath = Buffer.from(vectors.cases[0]?.frame ?? '', 'hex');
  data.socket.send(fastPath);
  assert.equal((await probe(data.socket, data.queue)).toString('hex'), NOT_INPUT.toString('hex'), 'a message of input only is dropped whole');

  await setTouch(display, stopToken, true);
  await probeUntil(data.socket, data.queue, MIXED, 'granted');
  assert.equal((await probe(data.socket, data.queue)).toString('hex'), MIXED.toString('hex'), 'granted: the whole frame reaches the computer');

  await setTouch(display, stopToken, false);
  await probeUntil(data.socket, data.queue, NOT_INPUT, 'revoked');
  for (let round = 0; round < 3; round += 1) {
    assert.equal((await probe(data.socket, data.queue)).toString('hex'), NOT_INPUT.toString('hex'), `revoked (round ${String(round + 1)}): input is dropped again`);
  }
});

test('a grant made before the display joined its session holds from the session\'s start', { timeout: 60_000 }, async (t) => {
  const display = await startDisplay(t);
  const { stopToken, project } = await present(display, display.echoPort);
  await setTouch(display, stopToken, true);
  const data = await openSecuredData(display.gateway.url, project);
  t.after(() => data.socket.close());
  await data.queue.nextBinary(); // the Connection Confirm
  await probeUntil(data.socket, data.queue, MIXED, 'granted before the display joined');
});
