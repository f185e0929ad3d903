// The presenter API and the room message over a real gateway on loopback:
// the PIN reaches the display and rotates after use, writes without the
// presenter header or from another site are refused, a lockout carries
// Retry-After, the stop token stops the projection, and a display that did
// not ask for `room` never gets one.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openControlInbox, startTestGateway, type ControlInbox } from '@lanterna/testkit';

const ADMIN = 'admin-token-0123456789abcdef';
const DISPLAY_TOKEN = 'display-token-0123456789';

async function startGateway(t: { after(fn: () => Promise<void>): void }): Promise<{ url: string; port: number }> {
  const gateway = await startTestGateway({
    adminToken: ADMIN,
    policy: { allowNetworks: ['10.0.0.0/8'], allowPorts: ['3389'] },
    displays: [{ id: 'room', token: DISPLAY_TOKEN, name: 'Room 1', location: 'Floor 2' }],
    roomPin: { perSource: { max: 3, windowMs: 60_000 } },
  });
  t.after(() => gateway.close());
  return { url: gateway.httpUrl, port: gateway.port };
}

/** The display's control socket, keeping every message it receives. */
function display(url: string, features?: string[]): Promise<ControlInbox> {
  return openControlInbox(url, 'room', DISPLAY_TOKEN, features ? { features } : {});
}

const presenterHeaders = { 'content-type': 'application/json', 'x-lanterna-presenter': '1' };

function project(url: string, body: unknown, headers: Record<string, string> = presenterHeaders): Promise<Response> {
  return fetch(`${url}/v1/displays/room/projection`, { method: 'POST', headers, body: JSON.stringify(body) });
}

const target = { host: '10.0.0.5', port: 3389 };

test('the PIN reaches the display, lets one projection in, rotates, and the stop token stops that projection', async (t) => {
  const { url, port } = await startGateway(t);
  const kiosk = await display(url, ['room']);
  t.after(() => kiosk.close());
  const welcome = await kiosk.take('welcome');
  assert.deepEqual(welcome.display, { id: 'room', name: 'Room 1', location: 'Floor 2' });
  const room = await kiosk.take('room');
  assert.match(String(room.pin), /^\d{6}$/);
  assert.equal(room.presenterUrl, `http://127.0.0.1:${port}/present?display=room`);

  const listing = await (await fetch(`${url}/v1/displays`)).json();
  assert.deepEqual(listing, { displays: [{ id: 'room', name: 'Room 1', location: 'Floor 2', state: 'idle' }] });

  const wrong = await project(url, { pin: room.pin === '000000' ? '000001' : '000000', target });
  assert.equal(wrong.status, 403);
  assert.deepEqual(await wrong.json(), { code: 'pin-wrong', message: 'the room pin is wrong', attemptsLeft: 2 });

  const started = await project(url, { pin: room.pin, target, credentials: { username: 'me', password: 'secret' } });
  assert.equal(started.status, 202);
  const body = await started.json() as { sessionId: string; stopToken: string };
  const message = await kiosk.take('project');
  assert.equal(message.sessionId, body.sessionId);
  const rotated = await kiosk.take('room');
  assert.notEqual(rotated.pin, room.pin, 'a new PIN after the use');

  const state = await fetch(`${url}/v1/displays/room/projection`, { headers: { 'x-lanterna-stop-token': body.stopToken } });
  const stateBody = await state.json() as { sessionId: string; state: string; request?: { state: string; slot?: number } };
  assert.deepEqual([stateBody.sessionId, stateBody.state, stateBody.request?.state, stateBody.request?.slot], [body.sessionId, 'minted', 'on-screen', 0]);
  const busy = await project(url, { pin: rotated.pin, target });
  assert.equal(busy.status, 409);
  assert.equal((await busy.json() as { code: string }).code, 'display-busy');

  const noHeader = await fetch(`${url}/v1/displays/room/projection`, { method: 'DELETE', headers: { 'x-lanterna-stop-token': body.stopToken } });
  assert.equal(noHeader.status, 400, 'a write without the presenter header is refused');
  const stopped = await fetch(`${url}/v1/displays/room/projection`, { method: 'DELETE', headers: { 'x-lanterna-presenter': '1', 'x-lanterna-stop-token': body.stopToken } });
  assert.equal(stopped.status, 202);
  assert.equal((await kiosk.take('stop')).sessionId, body.sessionId);
  const after = await (await fetch(`${url}/v1/displays`)).json() as { displays: { state: string }[] };
  assert.equal(after.displays[0]?.state, 'idle');
});

test('writes from another site, without the header or not as JSON are refused; a lockout says when to come back', async (t) => {
  const { url } = await startGateway(t);
  const kiosk = await display(url, ['room']);
  t.after(() => kiosk.close());
  const { pin } = await kiosk.take('room');
  const body = { pin, target };
  const refusals = await Promise.all([
    project(url, body, { 'content-type': 'application/json' }),
    project(url, body, { ...presenterHeaders, origin: 'https://evil.example' }),
    project(url, body, { 'content-type': 'text/plain', 'x-lanterna-presenter': '1' }),
  ]);
  assert.deepEqual(refusals.map((response) => response.status), [400, 400, 400]);
  assert.deepEqual(await Promise.all(refusals.map(async (response) => (await response.json() as { message: string }).message)), [
    'a presenter request carries the x-lanterna-presenter header', 'requests from other sites are refused', 'the body must be application/json',
  ]);
  const wrongPin = pin === '000000' ? '000001' : '000000';
  assert.equal((await project(url, { pin: wrongPin, target })).status, 403);
  assert.equal((await project(url, { pin: wrongPin, target })).status, 403);
  const locked = await project(url, { pin: wrongPin, target });
  assert.equal(locked.status, 429);
  const retryAfter = Number(locked.headers.get('retry-after'));
  assert.ok(retryAfter > 0 && retryAfter <= 60, `Retry-After ${retryAfter}`);
  assert.deepEqual(await locked.json(), { code: 'pin-locked', message: 'too many wrong pins for this source address', retryAfterSeconds: retryAfter });
  assert.equal((await project(url, body)).status, 429, 'the right PIN waits out the lockout too');
  const admin = await project(url, { target }, { ...presenterHeaders, authorization: `Bearer ${ADMIN}` });
  assert.equal(admin.status, 202, 'an administrator needs no PIN and is not locked');
});

test('a display that did not ask for room messages gets none', async (t) => {
  const { url } = await startGateway(t);
  const kiosk = await display(url);
  t.after(() => kiosk.close());
  await kiosk.take('welcome');
  const started = await fetch(`${url}/v1/admin/sessions`, { method: 'POST', headers: { authorization: `Bearer ${ADMIN}` }, body: JSON.stringify({ displayId: 'room', target }) });
  assert.equal(started.status, 202);
  await kiosk.take('project');
  assert.deepEqual(kiosk.messages.map((message) => message.type), ['welcome', 'project']);
});
