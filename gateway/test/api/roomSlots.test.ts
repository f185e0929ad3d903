// Several presenters on one display (issue 29) over a real gateway on
// loopback: a display whose page announced `slots` takes four sources side by
// side and is told the layout; a fifth is refused until it asks to take a
// slot over; a moderated room queues requests until the admin API accepts or
// declines them, and each presenter's status (long-polled) says where it
// stands and who decided; a page that did not announce `slots` keeps one.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openControlInbox, startTestGateway, type ControlInbox } from '@lanterna/testkit';

const ADMIN = 'admin-token-0123456789abcdef';
const DISPLAY_TOKEN = 'display-token-0123456789';

let currentPin: () => Promise<string | undefined> = () => Promise.resolve(undefined);

async function startGateway(t: { after(fn: () => Promise<void>): void }): Promise<string> {
  const gateway = await startTestGateway({
    adminToken: ADMIN,
    policy: { allowNetworks: ['10.0.0.0/8'], allowPorts: ['3389'] },
    displays: [{ id: 'room', token: DISPLAY_TOKEN, name: 'Room 1' }],
  });
  t.after(() => gateway.close());
  currentPin = () => gateway.roomPin('room');
  return gateway.httpUrl;
}

const presenterHeaders = { 'content-type': 'application/json', 'x-lanterna-presenter': '1' };
const admin = { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' };

interface Started { sessionId: string; stopToken: string; state: string; slot?: number; position?: number }
interface Status { sessionId: string; state: string; tag: string; request?: { requestId: string; state: string; slot?: number; position?: number; by?: string; reason?: string } }

/** One presenter's request with the PIN the display shows now (it rotates after each use). */
async function present(url: string, _kiosk: ControlInbox, name: string, extra: Record<string, unknown> = {}): Promise<Response> {
  const pin = await currentPin();
  return fetch(`${url}/v1/displays/room/projection`, {
    method: 'POST', headers: presenterHeaders,
    body: JSON.stringify({ pin, name, target: { host: '10.0.0.5', port: 3389 }, ...extra }),
  });
}

async function status(url: string, stopToken: string, query = ''): Promise<Status> {
  const response = await fetch(`${url}/v1/displays/room/projection${query}`, { headers: { 'x-lanterna-stop-token': stopToken } });
  assert.equal(response.status, 200);
  return await response.json() as Status;
}

async function audit(url: string): Promise<{ action: string; detail?: Record<string, unknown> }[]> {
  const page = await (await fetch(`${url}/v1/admin/audit?limit=100`, { headers: admin })).json() as { entries: { action: string; detail?: Record<string, unknown> }[] };
  return page.entries;
}

test('four presenters fill the four slots of a display that shows several; the layout says where each is; a fifth takes a slot over only when it asks', async (t) => {
  const url = await startGateway(t);
  const kiosk = await openControlInbox(url, 'room', DISPLAY_TOKEN, { features: ['room', 'slots'] });
  t.after(() => kiosk.close());
  await kiosk.take('welcome');
  const empty = await kiosk.take('layout');
  assert.deepEqual({ layout: empty.layout, mode: empty.mode, slots: empty.slots }, { layout: 'grid', mode: 'open', slots: [] });

  const started: Started[] = [];
  for (const name of ['Ann', 'Bob', 'Cem', 'Dan']) {
    const response = await present(url, kiosk, name);
    assert.equal(response.status, 202, `${name} joins a free slot`);
    started.push(await response.json() as Started);
  }
  assert.deepEqual(started.map((entry) => [entry.state, entry.slot]), [['on-screen', 0], ['on-screen', 1], ['on-screen', 2], ['on-screen', 3]]);
  for (const [slot, entry] of started.entries()) {
    const project = await kiosk.take('project');
    assert.equal(project.sessionId, entry.sessionId);
    assert.equal(project.slot, slot, 'the display is told which slot the session takes');
  }
  let layout = await kiosk.take('layout');
  while ((layout.slots as unknown[]).length < 4) layout = await kiosk.take('layout');
  assert.deepEqual(layout.slots, [
    { slot: 0, sessionId: started[0]?.sessionId, label: 'Ann', x: 0, y: 0, width: 0.5, height: 0.5 },
    { slot: 1, sessionId: started[1]?.sessionId, label: 'Bob', x: 0.5, y: 0, width: 0.5, height: 0.5 },
    { slot: 2, sessionId: started[2]?.sessionId, label: 'Cem', x: 0, y: 0.5, width: 0.5, height: 0.5 },
    { slot: 3, sessionId: started[3]?.sessionId, label: 'Dan', x: 0.5, y: 0.5, width: 0.5, height: 0.5 },
  ]);

  const live = await (await fetch(`${url}/v1/admin/sessions?state=live`, { headers: admin })).json() as { sessions: { presenter: string }[] };
  assert.deepEqual(live.sessions.map((session) => session.presenter).sort(), ['Ann', 'Bob', 'Cem', 'Dan'], "each session is named as its presenter named it (the admin's live sessions)");

  const refused = await present(url, kiosk, 'Eve');
  assert.equal(refused.status, 409);
  assert.equal((await refused.json() as { code: string }).code, 'display-busy', 'a full open room refuses without takeOver');

  const eve = await present(url, kiosk, 'Eve', { takeOver: true, slot: 2 });
  assert.equal(eve.status, 202);
  const taken = await eve.json() as Started;
  assert.deepEqual([taken.state, taken.slot], ['on-screen', 2]);
  assert.equal((await kiosk.take('stop')).sessionId, started[2]?.sessionId, "Cem's session is stopped");
  const cem = await status(url, started[2]?.stopToken ?? '');
  assert.equal(cem.request?.state, 'ended');
  assert.match(cem.request.reason ?? '', /taken over by "Eve"/);
  assert.match(cem.request.by ?? '', /^presenter@/);
  const entries = await audit(url);
  assert.ok(entries.some((entry) => entry.action === 'room-slot-taken-over' && entry.detail?.slot === 2), 'the take-over is audited');
  assert.equal(entries.filter((entry) => entry.action === 'room-request-accepted').length, 4, 'each join is audited');
});

test('a display that did not announce slots keeps one source: a second presenter is refused as before', async (t) => {
  const url = await startGateway(t);
  const kiosk = await openControlInbox(url, 'room', DISPLAY_TOKEN, { features: ['room'] });
  t.after(() => kiosk.close());
  await kiosk.take('welcome');
  const first = await present(url, kiosk, 'Ann');
  assert.equal(first.status, 202);
  const project = await kiosk.take('project');
  assert.equal(project.slot, undefined, 'no slot field for a page that shows one source');
  const second = await present(url, kiosk, 'Bob');
  assert.equal(second.status, 409);
  assert.equal((await second.json() as { code: string }).code, 'display-busy');
});

test('moderated: requests wait; the admin accepts one (its presenter, long-polling, hears at once) and declines another, and each status says who decided', async (t) => {
  const url = await startGateway(t);
  const kiosk = await openControlInbox(url, 'room', DISPLAY_TOKEN, { features: ['room', 'slots'] });
  t.after(() => kiosk.close());
  await kiosk.take('welcome');
  const moderated = await fetch(`${url}/v1/admin/displays/room/room`, { method: 'PATCH', headers: admin, body: JSON.stringify({ mode: 'moderated', layout: 'side-by-side' }) });
  assert.equal(moderated.status, 200);

  const ann = await (await present(url, kiosk, 'Ann')).json() as Started;
  const bob = await (await present(url, kiosk, 'Bob')).json() as Started;
  assert.deepEqual([ann.state, ann.position, bob.state, bob.position], ['waiting', 1, 'waiting', 2]);
  const waiting = await status(url, ann.stopToken);
  assert.deepEqual([waiting.state, waiting.request?.state, waiting.request?.position], ['waiting', 'waiting', 1]);
  const room = await (await fetch(`${url}/v1/admin/displays/room/room`, { headers: admin })).json() as { queue: { requestId: string; label: string }[]; slots: unknown[] };
  assert.deepEqual(room.queue.map((entry) => entry.label), ['Ann', 'Bob']);
  assert.deepEqual(room.slots, []);

  // Ann's page follows its request: the answer comes when the moderator decides, not at the end of the wait.
  const following = status(url, ann.stopToken, `?since=${encodeURIComponent(waiting.tag)}&waitMs=20000`);
  const askedAt = Date.now();
  await new Promise((resolve) => setTimeout(resolve, 300));
  const accepted = await fetch(`${url}/v1/admin/displays/room/room/requests/${ann.sessionId}/accept`, { method: 'POST', headers: admin, body: '{}' });
  assert.equal(accepted.status, 200);
  const heard = await following;
  assert.ok(Date.now() - askedAt < 5000, 'the long poll answered on the change');
  assert.deepEqual([heard.request?.state, heard.request?.slot], ['on-screen', 0]);
  assert.match(heard.request?.by ?? '', /^admin@/);
  assert.equal((await kiosk.take('project')).sessionId, ann.sessionId, 'the accepted request is projected with the id its presenter holds');

  const again = await fetch(`${url}/v1/admin/displays/room/room/requests/${ann.sessionId}/accept`, { method: 'POST', headers: admin, body: '{}' });
  assert.equal(again.status, 409, 'a request is decided once');
  const declined = await fetch(`${url}/v1/admin/displays/room/room/requests/${bob.sessionId}/decline`, { method: 'POST', headers: admin, body: JSON.stringify({ reason: 'not now' }) });
  assert.equal(declined.status, 200);
  const bobNow = await status(url, bob.stopToken);
  assert.deepEqual([bobNow.request?.state, bobNow.request?.reason], ['declined', 'not now']);
  assert.match(bobNow.request?.by ?? '', /^admin@/);

  const ended = await fetch(`${url}/v1/admin/displays/room/room/slots/0`, { method: 'DELETE', headers: admin });
  assert.equal(ended.status, 202);
  assert.equal((await kiosk.take('stop')).sessionId, ann.sessionId);
  const annNow = await status(url, ann.stopToken);
  assert.equal(annNow.request?.state, 'ended');
  assert.match(annNow.request.reason ?? '', /^ended by admin@/);

  const actions = (await audit(url)).map((entry) => entry.action);
  for (const action of ['room-mode-changed', 'room-layout-changed', 'room-request-queued', 'room-request-accepted', 'room-request-declined', 'room-source-ended']) {
    assert.ok(actions.includes(action), `audited: ${action}`);
  }
});

test("moderated by a host: the admin names a presenter's request the room's host; with its stop token it sees the queue, accepts, declines and picks the layout, and nobody else may", async (t) => {
  const url = await startGateway(t);
  const kiosk = await openControlInbox(url, 'room', DISPLAY_TOKEN, { features: ['room', 'slots'] });
  t.after(() => kiosk.close());
  await kiosk.take('welcome');
  // The host presents first (open room), then the admin makes it host and the room moderated.
  const hostStart = await (await present(url, kiosk, 'Host')).json() as Started;
  assert.equal(hostStart.state, 'on-screen');
  const changed = await fetch(`${url}/v1/admin/displays/room/room`, { method: 'PATCH', headers: admin, body: JSON.stringify({ mode: 'moderated', host: hostStart.sessionId }) });
  assert.equal(changed.status, 200);
  assert.equal((await changed.json() as { hostRequestId?: string }).hostRequestId, hostStart.sessionId);

  const cat = await (await present(url, kiosk, 'Cat')).json() as Started;
  const dev = await (await present(url, kiosk, 'Dev')).json() as Started;
  assert.deepEqual([cat.state, dev.state], ['waiting', 'waiting']);
  const hostHeaders = (token: string): Record<string, string> => ({ ...presenterHeaders, 'x-lanterna-stop-token': token });
  const act = (token: string, body: unknown): Promise<Response> => fetch(`${url}/v1/displays/room/room`, { method: 'POST', headers: hostHeaders(token), body: JSON.stringify(body) });

  const notHost = await act(cat.stopToken, { action: 'accept', requestId: cat.sessionId });
  assert.equal(notHost.status, 403);
  assert.equal((await notHost.json() as { code: string }).code, 'not-host', 'a waiting presenter cannot let itself in');
  const forged = await act('forged', { action: 'accept', requestId: cat.sessionId });
  assert.equal(forged.status, 403);

  const view = await (await fetch(`${url}/v1/displays/room/room`, { headers: { 'x-lanterna-stop-token': hostStart.stopToken } })).json() as { queue: { label: string }[]; slots: { label: string; host: boolean }[] };
  assert.deepEqual(view.queue.map((entry) => entry.label), ['Cat', 'Dev']);
  assert.deepEqual(view.slots.map((slot) => [slot.label, slot.host]), [['Host', true]]);

  const accepted = await act(hostStart.stopToken, { action: 'accept', requestId: cat.sessionId });
  assert.equal(accepted.status, 200);
  assert.deepEqual(await (async () => { const body = await accepted.json() as { state: string; slot?: number }; return [body.state, body.slot]; })(), ['on-screen', 1]);
  const declined = await act(hostStart.stopToken, { action: 'decline', requestId: dev.sessionId, reason: 'after the break' });
  assert.equal(declined.status, 200);
  const devNow = await status(url, dev.stopToken);
  assert.deepEqual([devNow.request?.state, devNow.request?.reason], ['declined', 'after the break']);
  assert.match(devNow.request?.by ?? '', /^host@/, "the presenter's page says the host declined");

  const layout = await act(hostStart.stopToken, { action: 'layout', layout: 'one-large', large: 1 });
  assert.equal(layout.status, 200);
  let message = await kiosk.take('layout');
  while (message.layout !== 'one-large') message = await kiosk.take('layout');
  assert.deepEqual((message.slots as { slot: number; width: number }[]).map((slot) => [slot.slot, slot.width]), [[0, 0.25], [1, 0.75]], 'slot 1 is large, the host small beside it');
  const words = (await audit(url)).map((entry) => (typeof entry.detail?.words === 'string' ? entry.detail.words : ''));
  assert.ok(words.some((line) => /^host@.* accepted "Cat" into slot 2/.test(line)), 'the audit says the host accepted Cat');
});

test("take-over never replaces the room's host, even when its slot is named", async (t) => {
  const url = await startGateway(t);
  const kiosk = await openControlInbox(url, 'room', DISPLAY_TOKEN, { features: ['room'] });
  t.after(() => kiosk.close());
  await kiosk.take('welcome');
  const ann = await (await present(url, kiosk, 'Ann')).json() as Started;
  const hosted = await fetch(`${url}/v1/admin/displays/room/room`, { method: 'PATCH', headers: admin, body: JSON.stringify({ host: ann.sessionId }) });
  assert.equal(hosted.status, 200);
  for (const extra of [{ takeOver: true }, { takeOver: true, slot: 0 }]) {
    const refused = await present(url, kiosk, 'Bob', extra);
    assert.equal(refused.status, 409, JSON.stringify(extra));
    assert.equal((await refused.json() as { code: string }).code, 'display-busy');
  }
  assert.equal((await status(url, ann.stopToken)).request?.state, 'on-screen', 'the host stays on screen');
});

test("moderated: a browser presenter's request waits like any other (no presenter socket yet); once accepted its status hands its page the presenter socket's token, and a declined one's says who declined", async (t) => {
  const url = await startGateway(t);
  const kiosk = await openControlInbox(url, 'room', DISPLAY_TOKEN, { features: ['room', 'slots'] });
  t.after(() => kiosk.close());
  await kiosk.take('welcome');
  const moderated = await fetch(`${url}/v1/admin/displays/room/room`, { method: 'PATCH', headers: admin, body: JSON.stringify({ mode: 'moderated' }) });
  assert.equal(moderated.status, 200);
  const share = async (name: string): Promise<Response> => fetch(`${url}/v1/displays/room/projection`, {
    method: 'POST', headers: presenterHeaders, body: JSON.stringify({ pin: await currentPin(), name, source: 'browser' }),
  });

  const annAnswer = await share('Ann');
  assert.equal(annAnswer.status, 202, await annAnswer.clone().text());
  const ann = await annAnswer.json() as Started & { presenter?: unknown };
  assert.deepEqual([ann.state, ann.position, ann.presenter], ['waiting', 1, undefined], 'no presenter socket while the request waits: its token would lapse');
  const bob = await (await share('Bob')).json() as Started;
  assert.deepEqual([bob.state, bob.position], ['waiting', 2]);
  const waiting = await status(url, ann.stopToken) as Status & { presenter?: unknown };
  assert.deepEqual([waiting.state, waiting.presenter], ['waiting', undefined]);

  const following = status(url, ann.stopToken, `?since=${encodeURIComponent(waiting.tag)}&waitMs=20000`);
  const accepted = await fetch(`${url}/v1/admin/displays/room/room/requests/${ann.sessionId}/accept`, { method: 'POST', headers: admin, body: '{}' });
  assert.equal(accepted.status, 200);
  const heard = await following as Status & { presenter?: { socketUrl: string; token: string; expiresAt: number } };
  assert.deepEqual([heard.request?.state, heard.request?.slot], ['on-screen', 0]);
  assert.ok(heard.presenter, 'the accepted browser request gets its presenter socket in the status');
  assert.match(heard.presenter.socketUrl, new RegExp(`/v1/sessions/${ann.sessionId}/present$`));
  assert.ok(heard.presenter.token.length > 20 && heard.presenter.expiresAt > Date.now());
  const project = await kiosk.take('project');
  assert.equal(project.sessionId, ann.sessionId, 'the display is told to start the accepted browser source');
  // the token does not change the status's tag: a page long-polling with the tag is not woken by each new token
  const again = await status(url, ann.stopToken) as Status & { presenter?: unknown };
  assert.equal(again.tag, heard.tag);

  const declined = await fetch(`${url}/v1/admin/displays/room/room/requests/${bob.sessionId}/decline`, { method: 'POST', headers: admin, body: JSON.stringify({}) });
  assert.equal(declined.status, 200);
  const bobNow = await status(url, bob.stopToken) as Status & { presenter?: unknown };
  assert.deepEqual([bobNow.state, bobNow.request?.state, bobNow.presenter], ['ended', 'declined', undefined]);
  assert.match(bobNow.request?.by ?? '', /^admin@/);
});

test("the admin API's room of a display the gateway does not know is a 404 unknown-display, for a view and a change alike", async (t) => {
  const url = await startGateway(t);
  for (const init of [{ headers: admin }, { method: 'PATCH', headers: admin, body: JSON.stringify({ mode: 'moderated' }) }]) {
    const response = await fetch(`${url}/v1/admin/displays/nowhere/room`, init);
    assert.equal(response.status, 404, init.method ?? 'GET');
    assert.deepEqual(await response.json(), { code: 'unknown-display', message: 'no display "nowhere"' });
    assert.equal((await fetch(`${url}/v1/admin/displays/room/room`, init)).status, 200, `${init.method ?? 'GET'} of a display it knows`);
  }
});
