// Control sockets: a reloading kiosk takes over its display, a dead one is
// noticed by heartbeats, and a signage display is projected again after each session.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { startTestGateway, startFaultyPeer, connectControl, openSecuredData, type TestGateway } from '@lanterna/testkit';

const TOKEN = 'display-token-0123456789';

/** An echo server, and a gateway whose signage display `sign` projects it on its own; both closed after the test. */
async function signageGateway(t: TestContext): Promise<{ gateway: TestGateway; peerPort: number }> {
  const peer = await startFaultyPeer('echo');
  t.after(() => peer.close());
  const gateway = await startTestGateway({
    displays: [{ id: 'sign', token: TOKEN, autoProject: { host: '127.0.0.1', port: peer.port, name: 'Lobby' } }],
    certificates: { mode: 'insecure' },
  });
  t.after(() => gateway.close());
  return { gateway, peerPort: peer.port };
}

async function onlineDisplays(gateway: TestGateway): Promise<number> {
  const text = await gateway.metricsText();
  return Number(/^lanterna_displays_online (\d+)/m.exec(text)?.[1] ?? NaN);
}

test('a second kiosk for the same display replaces the first with 4409', async (t) => {
  const gateway = await startTestGateway({ displays: [{ id: 'room', token: TOKEN }] });
  t.after(() => gateway.close());
  const first = await connectControl(gateway.url, 'room', TOKEN);
  const second = await connectControl(gateway.url, 'room', TOKEN);
  t.after(() => second.close());
  const closed = await first.queue.closed();
  assert.equal(closed.code, 4409);
  assert.equal(closed.error?.code, 'replaced');
  assert.equal(await onlineDisplays(gateway), 1);
  assert.equal(second.welcome.type, 'welcome');
});

test('a kiosk that stops answering heartbeats is dropped', { timeout: 20_000 }, async (t) => {
  const gateway = await startTestGateway({ displays: [{ id: 'room', token: TOKEN }], timeouts: { heartbeatMs: 1000 } });
  t.after(() => gateway.close());
  const control = await connectControl(gateway.url, 'room', TOKEN);
  assert.equal(control.welcome.heartbeatMs, 1000);
  assert.equal(await onlineDisplays(gateway), 1);
  control.socket.pause(); // a hung kiosk: pings are not read, so no pongs
  const deadline = Date.now() + 8000;
  while ((await onlineDisplays(gateway)) !== 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 200));
  assert.equal(await onlineDisplays(gateway), 0, 'the display went offline after missed heartbeats');
  control.socket.terminate();
});

test('a signage display (autoProject) is projected again after its session ends', { timeout: 20_000 }, async (t) => {
  const { gateway, peerPort } = await signageGateway(t);
  const control = await connectControl(gateway.url, 'sign', TOKEN);
  t.after(() => control.close());
  const first = await control.next('project');
  assert.deepEqual(first.target, { name: 'Lobby', host: '127.0.0.1', port: peerPort });
  const data = await openSecuredData(gateway.url, first);
  data.socket.send('{"type":"close"}');
  await data.queue.closed();
  const again = await control.next('project', 8000);
  assert.notEqual(again.sessionId, first.sessionId, 'a fresh session, with a fresh token');
  assert.equal(first.signage, undefined, 'no signage flag for a display that did not announce it');
});

test('`project.signage` goes to a display that announced it, only for its own signage, not for an admin\'s projection', { timeout: 20_000 }, async (t) => {
  const { gateway, peerPort } = await signageGateway(t);
  const control = await connectControl(gateway.url, 'sign', TOKEN, undefined, { features: ['signage'] });
  t.after(() => control.close());
  const signage = await control.next('project');
  assert.equal(signage.signage, true);
  const asked = await fetch(`${gateway.httpUrl}/v1/admin/sessions`, {
    method: 'POST', headers: { authorization: `Bearer ${gateway.adminToken}` },
    body: JSON.stringify({ displayId: 'sign', target: { host: '127.0.0.1', port: peerPort, name: 'Admin laptop' } }),
  });
  assert.equal(asked.status, 202);
  const admin = await control.next('project');
  assert.equal(admin.target && (admin.target as { name?: string }).name, 'Admin laptop');
  assert.equal(admin.signage, undefined);
});

test('an admin stop ends the session and tells the display', { timeout: 20_000 }, async (t) => {
  const peer = await startFaultyPeer('echo');
  t.after(() => peer.close());
  const gateway = await startTestGateway({ displays: [{ id: 'room', token: TOKEN }], certificates: { mode: 'insecure' } });
  t.after(() => gateway.close());
  const control = await connectControl(gateway.url, 'room', TOKEN);
  t.after(() => control.close());
  const admin = { authorization: `Bearer ${gateway.adminToken}` };
  const created = await fetch(`${gateway.httpUrl}/v1/admin/sessions`, { method: 'POST', headers: admin, body: JSON.stringify({ displayId: 'room', target: { host: '127.0.0.1', port: peer.port } }) });
  const { sessionId } = await created.json() as { sessionId: string };
  const project = await control.next('project');
  assert.equal(project.sessionId, sessionId);
  const data = await openSecuredData(gateway.url, project);
  await data.queue.nextBinary();
  const stop = await fetch(`${gateway.httpUrl}/v1/admin/displays/room/sessions/${sessionId}`, { method: 'DELETE', headers: admin });
  assert.equal(stop.status, 202);
  assert.deepEqual(await control.next('stop'), { type: 'stop', sessionId, reason: 'stopped by an administrator' });
  assert.deepEqual(await data.queue.nextText('ended'), { type: 'ended', reason: 'stopped' });
  assert.equal((await data.queue.closed()).code, 1000);
});

test('a rename or move reaches an open kiosk that announced `display`, and only such a kiosk', { timeout: 20_000 }, async (t) => {
  const gateway = await startTestGateway({ displays: [] });
  t.after(() => gateway.close());
  const admin = (method: string, path: string, body?: unknown): Promise<Response> => fetch(`${gateway.httpUrl}${path}`, {
    method, headers: { authorization: `Bearer ${gateway.adminToken}`, 'content-type': 'application/json' }, ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const create = async (id: string): Promise<string> => {
    const made = await admin('POST', '/v1/admin/displays', { id, name: `Room ${id}`, location: 'Floor 1' });
    assert.equal(made.status, 201);
    return ((await made.json()) as { token: string }).token;
  };
  const current = await connectControl(gateway.url, 'new', await create('new'), undefined, { features: ['display'] });
  const older = await connectControl(gateway.url, 'old', await create('old'));
  t.after(() => { current.close(); older.close(); });
  assert.equal((await admin('PATCH', '/v1/admin/displays/new', { name: 'Boardroom 2.01', location: 'Floor 2, west wing' })).status, 200);
  assert.deepEqual(await current.next('display'), { type: 'display', display: { id: 'new', name: 'Boardroom 2.01', location: 'Floor 2, west wing' } });
  // A kiosk that did not announce it gets nothing: the next thing it hears is the revocation that follows.
  assert.equal((await admin('PATCH', '/v1/admin/displays/old', { name: 'Renamed' })).status, 200);
  assert.equal((await admin('POST', '/v1/admin/displays/old/token')).status, 200);
  assert.equal((await older.next('error')).code, 'unauthorized');
});

test('`figures`: a display reports what it showed of its own session; kept for the admin, one report a second at most, never for another display\'s session', { timeout: 20_000 }, async (t) => {
  const peer = await startFaultyPeer('echo');
  t.after(() => peer.close());
  const gateway = await startTestGateway({
    displays: [{ id: 'room', token: TOKEN }, { id: 'hall', token: `${TOKEN}-hall` }],
    certificates: { mode: 'insecure' },
  });
  t.after(() => gateway.close());
  const control = await connectControl(gateway.url, 'room', TOKEN);
  t.after(() => control.close());
  assert.deepEqual(control.welcome.features, ['figures', 'panel', 'laser', 'ink-save'], 'the welcome says the gateway reads figures (and panel reports), relays a browser source\'s laser points, and keeps ink (ink.saving is on by default)');
  const hall = await connectControl(gateway.url, 'hall', `${TOKEN}-hall`);
  t.after(() => hall.close());
  const asked = await fetch(`${gateway.httpUrl}/v1/admin/sessions`, {
    method: 'POST', headers: { authorization: `Bearer ${gateway.adminToken}` },
    body: JSON.stringify({ displayId: 'room', target: { host: '127.0.0.1', port: peer.port, name: 'Desk' } }),
  });
  assert.equal(asked.status, 202);
  const project = await control.next('project');
  const sessionId = String(project.sessionId);
  const data = await openSecuredData(gateway.url, project);
  t.after(() => data.socket.close());

  const report = (presents: number) => JSON.stringify({ type: 'figures', sessionId, intervalMs: 1000, presents, frames: presents - 4, messages: 40, bytes: 8000 });
  // Another display cannot write on this session; a flood keeps only its first report.
  hall.socket.send(report(7));
  control.socket.send(report(24));
  for (let i = 0; i < 50; i += 1) control.socket.send(report(99));
  const shown = async (): Promise<Record<string, unknown> | undefined> => {
    const listed = await (await fetch(`${gateway.httpUrl}/v1/admin/sessions?state=live`, { headers: { authorization: `Bearer ${gateway.adminToken}` } })).json() as { sessions: { sessionId: string; shown?: Record<string, unknown> }[] };
    return listed.sessions.find((session) => session.sessionId === sessionId)?.shown;
  };
  const deadline = Date.now() + 5000;
  while ((await shown()) === undefined && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
  await new Promise((resolve) => setTimeout(resolve, 300));
  const first = await shown();
  assert.equal(first?.presents, 24, 'the first report is kept, the flood behind it dropped');
  assert.equal(first.presentsPerSecond, 24);
  assert.equal(first.framesPerSecond, 20, 'the frames with new pixels, apart from the presents');
  assert.equal(first.messagesPerSecond, 40);
  assert.equal(first.bytesPerSecond, 8000);
  // The relay's own count is WebSocket messages, and the API names it so (framesPerSecond stays, the same count, for older clients).
  const relayed = async (): Promise<Record<string, unknown> | undefined> => {
    const listed = await (await fetch(`${gateway.httpUrl}/v1/admin/sessions?state=live`, { headers: { authorization: `Bearer ${gateway.adminToken}` } })).json() as { sessions: { sessionId: string; stats?: Record<string, unknown> }[] };
    return listed.sessions.find((session) => session.sessionId === sessionId)?.stats;
  };
  const sampled = Date.now() + 5000;
  while ((await relayed()) === undefined && Date.now() < sampled) await new Promise((resolve) => setTimeout(resolve, 50));
  const stats = await relayed() ?? {};
  assert.equal(typeof stats.messagesPerSecond, 'number', `the relay's messages per second (${JSON.stringify(stats)})`);
  assert.equal(stats.messagesPerSecond, stats.framesPerSecond);
  assert.equal(stats.messagesToDisplay, stats.framesToDisplay);
  // A second later the next report is taken.
  await new Promise((resolve) => setTimeout(resolve, 1000));
  control.socket.send(JSON.stringify({ type: 'figures', sessionId, intervalMs: 2000, presents: 30, frames: 500, messages: 10, bytes: 100 }));
  const next = Date.now() + 5000;
  while ((await shown())?.presents !== 30 && Date.now() < next) await new Promise((resolve) => setTimeout(resolve, 50));
  assert.equal((await shown())?.presentsPerSecond, 15, 'a report over 2 s reads as half that per second');
  assert.equal((await shown())?.framesPerSecond, 15, 'never more frames than presents');
  // A display too old to count frames: no frames figure, rather than a guess.
  await new Promise((resolve) => setTimeout(resolve, 600));
  control.socket.send(JSON.stringify({ type: 'figures', sessionId, intervalMs: 1000, presents: 12, messages: 10, bytes: 100 }));
  const older = Date.now() + 5000;
  while ((await shown())?.presents !== 12 && Date.now() < older) await new Promise((resolve) => setTimeout(resolve, 50));
  assert.equal((await shown())?.presentsPerSecond, 12);
  assert.equal((await shown())?.framesPerSecond, undefined);
  // A malformed report is a protocol error like any other.
  control.socket.send(JSON.stringify({ type: 'figures', sessionId, intervalMs: 1000, presents: -3, messages: 0, bytes: 0 }));
  const closed = await control.queue.closed();
  assert.equal(closed.error?.code, 'bad-message');
  // The hall display's socket was never closed for its report: it was only ignored.
  assert.equal(hall.socket.readyState, hall.socket.OPEN);
});
