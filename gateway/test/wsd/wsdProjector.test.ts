// The projector service's Connect over a real gateway on loopback, with the
// room PIN: a Connect without one or with a wrong one is a SOAP fault in
// plain words and leaves the PIN on the screen; the right one projects,
// rotates the PIN and is audited as `wsd`; wrong PINs over WS-Discovery and
// over the presenter page count against one budget per source address, and
// past it Connect is refused with Retry-After; a busy display is refused
// before the PIN is looked at.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  ANONYMOUS, projectorFaultOf, readWsdMessage, writeWsdMessage, type ConnectRequest, type WsdMessage,
} from '@lanterna/protocol/wsd';
import { openControlInbox, startTestGateway, type ControlInbox } from '@lanterna/testkit';

const ADMIN = 'admin-token-0123456789abcdef';
const DISPLAY_TOKEN = 'display-token-0123456789';
const target = { host: '10.0.0.5', port: 3389 };

async function startGateway(t: { after(fn: () => Promise<void>): void }): Promise<string> {
  const gateway = await startTestGateway({
    adminToken: ADMIN,
    policy: { allowNetworks: ['10.0.0.0/8'], allowPorts: ['3389'] },
    displays: [{ id: 'room', token: DISPLAY_TOKEN, name: 'Room 1' }],
    roomPin: { perSource: { max: 3, windowMs: 60_000 } },
    wsd: { enabled: true },
  });
  t.after(() => gateway.close());
  return gateway.httpUrl;
}

/** The display's control socket, asking for the room message; `latest('room')` is the PIN it shows now. */
function kiosk(url: string): Promise<ControlInbox> {
  return openControlInbox(url, 'room', DISPLAY_TOKEN, { features: ['room'] });
}

/** A gateway and its display `room` online with its room message read (both closed after the test). */
async function gatewayWithRoom(t: { after(fn: () => Promise<void> | void): void }): Promise<{ url: string; display: ControlInbox }> {
  const url = await startGateway(t);
  const display = await kiosk(url);
  t.after(() => display.close());
  await display.take('room');
  return { url, display };
}

function shownPin(display: ControlInbox): string | undefined {
  const pin = display.latest('room')?.pin;
  return typeof pin === 'string' ? pin : undefined;
}

async function connect(url: string, request: ConnectRequest): Promise<{ status: number; retryAfter: string | null; message: WsdMessage }> {
  const body = writeWsdMessage({ kind: 'connect', header: { messageId: `urn:uuid:${crypto.randomUUID()}`, replyTo: ANONYMOUS }, request });
  const response = await fetch(`${url}/wsd/room/projector`, { method: 'POST', headers: { 'content-type': 'application/soap+xml' }, body });
  const read = readWsdMessage(Buffer.from(await response.arrayBuffer()));
  assert.ok(read.ok, 'the answer is a SOAP message');
  return { status: response.status, retryAfter: response.headers.get('retry-after'), message: read.message };
}

function fault(answer: { message: WsdMessage }): { subcode: string | undefined; reason: string } {
  const { message } = answer;
  if (message.kind !== 'fault') throw new Error(`a fault was expected: ${JSON.stringify(message)}`);
  return { subcode: projectorFaultOf(message.fault), reason: message.fault.reason };
}

function otherPin(pin: string): string {
  return pin === '000000' ? '000001' : '000000';
}

async function audit(url: string): Promise<{ actor: string; action: string; detail?: Record<string, unknown> }[]> {
  const response = await fetch(`${url}/v1/admin/audit`, { headers: { authorization: `Bearer ${ADMIN}` } });
  return ((await response.json()) as { entries: { actor: string; action: string; detail?: Record<string, unknown> }[] }).entries;
}

test('Connect without the room PIN or with a wrong one is a fault in plain words; the right one projects, rotates the PIN and is audited as wsd', async (t) => {
  const { url, display } = await gatewayWithRoom(t);
  const pin = shownPin(display) ?? '';
  assert.match(pin, /^\d{6}$/);

  const missing = await connect(url, { target, presenter: 'alice-laptop' });
  assert.equal(missing.status, 400);
  assert.deepEqual(fault(missing), { subcode: 'PinRequired', reason: 'this display asks for its room PIN: read it off the display and send it (lp:Pin)' });

  const wrong = await connect(url, { target, pin: otherPin(pin), presenter: 'alice-laptop' });
  assert.equal(wrong.status, 400);
  assert.deepEqual(fault(wrong), { subcode: 'PinWrong', reason: 'the room PIN is wrong: read it off the display again (2 more tries before a pause)' });
  assert.equal(shownPin(display), pin, 'refusals leave the PIN on the screen');

  const accepted = await connect(url, { target, credentials: { username: 'u', password: 'p' }, pin, presenter: 'alice-laptop' });
  assert.equal(accepted.status, 200);
  const { message } = accepted;
  if (message.kind !== 'connect-response') throw new Error(`a ConnectResponse was expected: ${JSON.stringify(message)}`);
  const project = await display.take('project');
  assert.equal(message.response.sessionId, project.sessionId);
  const rotated = await display.take('room');
  assert.notEqual(rotated.pin, pin, 'the used PIN was replaced');

  // Busy is said before the PIN is looked at: the new PIN stays.
  const busy = await connect(url, { target, pin: String(rotated.pin), presenter: 'bob-laptop' });
  assert.equal(fault(busy).subcode, 'DisplayBusy');
  assert.equal(shownPin(display), rotated.pin);

  const entries = await audit(url);
  const requested = entries.find((entry) => entry.action === 'projection-requested');
  assert.equal(requested?.actor, 'wsd@127.0.0.1');
  assert.equal(requested.detail?.via, 'wsd');
  const refusals = entries.filter((entry) => entry.action === 'projection-refused').map((entry) => entry.detail?.code);
  assert.deepEqual(refusals.sort(), ['display-busy', 'pin-required', 'pin-wrong']);
});

test('wrong PINs over WS-Discovery and over the presenter page share one budget per source address; past it Connect is refused with Retry-After, and the right PIN too', async (t) => {
  const { url, display } = await gatewayWithRoom(t);
  const pin = shownPin(display) ?? '';
  const page = await fetch(`${url}/v1/displays/room/projection`, {
    method: 'POST', headers: { 'content-type': 'application/json', 'x-lanterna-presenter': '1' }, body: JSON.stringify({ target, pin: otherPin(pin) }),
  });
  assert.equal(page.status, 403);
  assert.equal(fault(await connect(url, { target, pin: otherPin(pin) })).reason, 'the room PIN is wrong: read it off the display again (1 more try before a pause)');
  const last = await connect(url, { target, pin: otherPin(pin) });
  assert.equal(fault(last).subcode, 'PinLocked', 'the try that uses up the budget is answered as the lockout');
  const locked = await connect(url, { target, pin });
  assert.equal(locked.status, 400);
  assert.equal(fault(locked).subcode, 'PinLocked');
  assert.match(fault(locked).reason, /^too many wrong room PINs from this computer; try again in \d+ seconds$/);
  assert.ok(Number(locked.retryAfter) > 0 && Number(locked.retryAfter) <= 60, `Retry-After ${locked.retryAfter}`);
  assert.equal(shownPin(display), pin, 'a locked-out request uses nothing');
});

async function disconnect(url: string, request: { sessionId: string; stopToken?: string; pin?: string }): Promise<{ status: number; message: WsdMessage }> {
  const body = writeWsdMessage({ kind: 'disconnect', header: { messageId: `urn:uuid:${crypto.randomUUID()}`, replyTo: ANONYMOUS }, request });
  const response = await fetch(`${url}/wsd/room/projector`, { method: 'POST', headers: { 'content-type': 'application/soap+xml' }, body });
  const read = readWsdMessage(Buffer.from(await response.arrayBuffer()));
  assert.ok(read.ok, 'the answer is a SOAP message');
  return { status: response.status, message: read.message };
}

async function sessionState(url: string, sessionId: string): Promise<string | undefined> {
  const response = await fetch(`${url}/v1/admin/sessions`, { headers: { authorization: `Bearer ${ADMIN}` } });
  const { sessions } = (await response.json()) as { sessions: { sessionId: string; state: string }[] };
  return sessions.find((session) => session.sessionId === sessionId)?.state;
}

test('Disconnect needs the stop token ConnectResponse gave, or the room PIN: the session id alone ends nothing', async (t) => {
  const { url, display } = await gatewayWithRoom(t);
  const started = await connect(url, { target, pin: shownPin(display) ?? '', presenter: 'alice-laptop' });
  if (started.message.kind !== 'connect-response') throw new Error(`a ConnectResponse was expected: ${JSON.stringify(started.message)}`);
  const { sessionId, stopToken } = started.message.response;
  assert.match(stopToken ?? '', /^.+\..+$/, 'ConnectResponse carries the stop token');
  await display.take('project');
  const pin = String((await display.take('room')).pin);

  assert.equal(fault(await disconnect(url, { sessionId })).subcode, 'StopTokenWrong', 'a session id alone is refused');
  assert.equal(fault(await disconnect(url, { sessionId, stopToken: `${sessionId}.forged` })).subcode, 'StopTokenWrong');
  assert.equal(fault(await disconnect(url, { sessionId, pin: otherPin(pin) })).subcode, 'PinWrong', 'a wrong PIN counts like a Connect\'s');
  assert.equal(await sessionState(url, sessionId), 'minted', 'none of them ended the projection');

  const stopped = await disconnect(url, { sessionId, stopToken });
  assert.deepEqual([stopped.status, stopped.message.kind], [200, 'disconnect-response']);
  assert.equal(await sessionState(url, sessionId), 'ended');
  assert.equal((await disconnect(url, { sessionId, stopToken })).message.kind, 'disconnect-response', 'a session already over answers the same');

  // The room PIN stops a projection too (a presenter who lost the stop token), and is used up by it.
  const again = await connect(url, { target, pin, presenter: 'bob-laptop' });
  if (again.message.kind !== 'connect-response') throw new Error(`a ConnectResponse was expected: ${JSON.stringify(again.message)}`);
  await display.take('project');
  const next = String((await display.take('room')).pin);
  const byPin = await disconnect(url, { sessionId: again.message.response.sessionId, pin: next });
  assert.equal(byPin.message.kind, 'disconnect-response');
  assert.equal(await sessionState(url, again.message.response.sessionId), 'ended');
  assert.notEqual((await display.take('room')).pin, next, 'the PIN that stopped it was replaced');
});

test('Connect to a moderated room joins its queue (issue 29): the answer names the session to be, the admin sees the request from wsd, and Disconnect with the stop token withdraws it', async (t) => {
  const { url, display } = await gatewayWithRoom(t);
  const moderated = await fetch(`${url}/v1/admin/displays/room/room`, { method: 'PATCH', headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' }, body: JSON.stringify({ mode: 'moderated' }) });
  assert.equal(moderated.status, 200);
  const answer = await connect(url, { target, pin: shownPin(display) ?? '', presenter: 'alice-laptop' });
  assert.ok(answer.message.kind === 'connect-response', 'the Connect is answered at once');
  const { sessionId, stopToken } = answer.message.response;
  const room = await (await fetch(`${url}/v1/admin/displays/room/room`, { headers: { authorization: `Bearer ${ADMIN}` } })).json() as { queue: { requestId: string; requestedBy?: { kind: string } }[]; slots: unknown[] };
  assert.deepEqual(room.queue.map((entry) => [entry.requestId, entry.requestedBy?.kind]), [[sessionId, 'wsd']], 'it waits, asked through WS-Discovery');
  assert.deepEqual(room.slots, [], 'nothing is projected before the moderator accepts');
  const withdrawn = await disconnect(url, { sessionId, stopToken: stopToken ?? '' });
  assert.equal(withdrawn.message.kind, 'disconnect-response');
  const after = await (await fetch(`${url}/v1/admin/displays/room/room`, { headers: { authorization: `Bearer ${ADMIN}` } })).json() as { queue: unknown[] };
  assert.deepEqual(after.queue, [], 'the request left the queue');
  assert.ok((await audit(url)).some((entry) => entry.action === 'room-request-withdrawn'));
});
