// Issue 30 over a real gateway on loopback: the presenter's touch permission
// (PATCH …/projection {touch} with the stop token) reaches the display in its
// `layout` at once, both ways, and is refused for a browser source; a
// display's `laser` on a browser presenter's picture reaches that presenter's
// long-poll (GET …/projection/laser), and nothing of another display's or a
// stranger's does.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openControlInbox, startTestGateway, waitFor, type ControlInbox } from '@lanterna/testkit';

const DISPLAY_TOKEN = 'display-token-0123456789';
const presenterHeaders = { 'content-type': 'application/json', 'x-lanterna-presenter': '1' };

async function start(t: { after(fn: () => Promise<void> | void): void }): Promise<{ url: string; kiosk: ControlInbox; other: ControlInbox }> {
  const gateway = await startTestGateway({
    policy: { allowNetworks: ['10.0.0.0/8'], allowPorts: ['3389'] },
    displays: [{ id: 'room', token: DISPLAY_TOKEN, name: 'Room 1' }, { id: 'hall', token: `${DISPLAY_TOKEN}-hall`, name: 'Hall' }],
  });
  t.after(() => gateway.close());
  const kiosk = await openControlInbox(gateway.httpUrl, 'room', DISPLAY_TOKEN, { features: ['room', 'slots'] });
  t.after(() => kiosk.close());
  const other = await openControlInbox(gateway.httpUrl, 'hall', `${DISPLAY_TOKEN}-hall`, { features: ['room', 'slots'] });
  t.after(() => other.close());
  const welcome = await kiosk.take('welcome');
  assert.ok((welcome.features as string[]).includes('laser'), 'the gateway reads laser');
  await kiosk.take('room');
  await other.take('welcome');
  return { url: gateway.httpUrl, kiosk, other };
}

async function project(url: string, kiosk: ControlInbox, body: Record<string, unknown>): Promise<{ sessionId: string; stopToken: string }> {
  const pin = String(kiosk.latest('room')?.pin);
  const response = await fetch(`${url}/v1/displays/room/projection`, { method: 'POST', headers: presenterHeaders, body: JSON.stringify({ pin, ...body }) });
  assert.equal(response.status, 202, await response.clone().text());
  return await response.json() as { sessionId: string; stopToken: string };
}

function slotOf(kiosk: ControlInbox, sessionId: string): Record<string, unknown> | undefined {
  const layout = kiosk.latest('layout') as { slots?: Record<string, unknown>[] } | undefined;
  return layout?.slots?.find((slot) => slot.sessionId === sessionId);
}

function setTouch(url: string, stopToken: string, touch: unknown, headers: Record<string, string> = presenterHeaders): Promise<Response> {
  return fetch(`${url}/v1/displays/room/projection`, { method: 'PATCH', headers: { ...headers, 'x-lanterna-stop-token': stopToken }, body: JSON.stringify({ touch }) });
}

test('touch: off by default; the presenter\'s grant and revoke reach the display\'s layout at once; refused without the header, with a wrong token, and for a browser source', async (t) => {
  const { url, kiosk } = await start(t);
  const computer = await project(url, kiosk, { target: { host: '10.0.0.5', port: 3389 }, name: 'Alice' });
  await waitFor('the layout with Alice', () => slotOf(kiosk, computer.sessionId) !== undefined, 5000);
  assert.equal(slotOf(kiosk, computer.sessionId)?.touch, undefined, 'off by default');
  const status = await (await fetch(`${url}/v1/displays/room/projection`, { headers: { 'x-lanterna-stop-token': computer.stopToken } })).json() as { touch?: boolean };
  assert.equal(status.touch, false);

  assert.equal((await setTouch(url, computer.stopToken, true, { 'content-type': 'application/json' })).status, 400, 'no presenter header');
  assert.equal((await setTouch(url, 'not-the-token', true)).status, 403);
  assert.equal((await setTouch(url, computer.stopToken, 'yes')).status, 400, 'a boolean or nothing');

  const granted = await setTouch(url, computer.stopToken, true);
  assert.equal(granted.status, 200);
  assert.equal((await granted.json() as { touch: boolean }).touch, true);
  await waitFor('touch on the display\'s slot', () => slotOf(kiosk, computer.sessionId)?.touch === true, 5000);
  const revoked = await setTouch(url, computer.stopToken, false);
  assert.equal((await revoked.json() as { touch: boolean }).touch, false);
  await waitFor('touch gone from the slot', () => slotOf(kiosk, computer.sessionId)?.touch === undefined, 5000);

  const browser = await project(url, kiosk, { source: 'browser', name: 'Bob' });
  const refused = await setTouch(url, browser.stopToken, true);
  assert.equal(refused.status, 400);
  assert.match((await refused.json() as { message: string }).message, /browser cannot be controlled/);
});

test('laser: the display\'s finger on a browser presenter\'s picture reaches that presenter\'s long-poll; another display\'s does not', async (t) => {
  const { url, kiosk, other } = await start(t);
  const browser = await project(url, kiosk, { source: 'browser', name: 'Bob' });
  await waitFor('the layout with Bob', () => slotOf(kiosk, browser.sessionId) !== undefined, 5000);
  const poll = (after: number, waitMs: number, stopToken = browser.stopToken): Promise<Response> =>
    fetch(`${url}/v1/displays/room/projection/laser?after=${after}&waitMs=${waitMs}`, { headers: { 'x-lanterna-stop-token': stopToken } });

  assert.deepEqual(await (await poll(0, 0)).json(), { seq: 0, points: [] });
  assert.equal((await poll(0, 0, 'wrong')).status, 403);
  // a waiting poll is answered by the next point
  const waiting = poll(0, 10_000);
  await new Promise((resolve) => setTimeout(resolve, 200));
  kiosk.send({ type: 'laser', sessionId: browser.sessionId, x: 0.25, y: 0.75, down: true });
  const first = await (await waiting).json() as { seq: number; points: { x: number; y: number; down: boolean }[] };
  assert.equal(first.seq, 1);
  assert.deepEqual(first.points.map(({ x, y, down }) => ({ x, y, down })), [{ x: 0.25, y: 0.75, down: true }]);

  // another display pointing at this session, and this display at a session not its own: nothing
  other.send({ type: 'laser', sessionId: browser.sessionId, x: 0.9, y: 0.9, down: true });
  kiosk.send({ type: 'laser', sessionId: 'not-a-session', x: 0.9, y: 0.9, down: true });
  await new Promise((resolve) => setTimeout(resolve, 100));
  kiosk.send({ type: 'laser', sessionId: browser.sessionId, x: 0.5, y: 0.5, down: false });
  const next = await (await poll(first.seq, 5000)).json() as { seq: number; points: { x: number; y: number; down: boolean }[] };
  assert.deepEqual(next.points.map(({ x, y, down }) => ({ x, y, down })), [{ x: 0.5, y: 0.5, down: false }], 'only this display\'s own source, in order');
  assert.equal(next.seq, 2);
  const quiet = Date.now();
  assert.deepEqual((await (await poll(next.seq, 300)).json() as { points: unknown[] }).points, [], 'nothing new: answered empty when the wait ends');
  assert.ok(Date.now() - quiet >= 250, 'the poll waited');
});
