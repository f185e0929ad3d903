// A browser presenter's socket joining a room's session (issue 29) through
// the relay engine under test (the suite runs this file against both): the
// presenter leg of a request a moderator accepted, and of a take-over, which
// first ends the session whose place it takes. A real gateway, the display's
// control and data sockets and the presenter page's socket spoken by hand
// (the page's part: `present` with the token its status handed it, the
// Confirm to the display's Connection Request, then PDUs both ways). This is
// the engines' part of e2e/kiosk/roomModeration and roomTakeOver, which run
// once.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WebSocket } from 'ws';
import { buildConnectionConfirm, buildConnectionRequest, PROTOCOL } from '@lanterna/protocol';
import { MessageQueue, openControlInbox, openData, startFaultyPeer, startTestGateway, type ControlInbox, type TestGateway } from '@lanterna/testkit';

const DISPLAY_TOKEN = 'display-token-presenter-room-01';
const presenterHeaders = { 'content-type': 'application/json', 'x-lanterna-presenter': '1' };

interface PresenterSocket { socketUrl: string; token: string }
interface Started { sessionId: string; stopToken: string; state: string; slot?: number; presenter?: PresenterSocket }
interface Status { state: string; tag: string; request?: { state: string; slot?: number }; presenter?: PresenterSocket }

/** A TPKT-framed X.224 data PDU around `payload`. */
function tpkt(payload: number[]): Buffer {
  const pdu = Buffer.from([0x03, 0x00, 0x00, 0x00, 0x02, 0xf0, 0x80, ...payload]);
  pdu.writeUInt16BE(pdu.length, 2);
  return pdu;
}

async function startRoom(t: { after(fn: () => Promise<void> | void): void }): Promise<{ gateway: TestGateway; kiosk: ControlInbox }> {
  const gateway = await startTestGateway({ displays: [{ id: 'room', token: DISPLAY_TOKEN, name: 'Room' }], certificates: { mode: 'insecure' } });
  t.after(() => gateway.close());
  const kiosk = await openControlInbox(gateway.url, 'room', DISPLAY_TOKEN, { features: ['room', 'slots'] });
  t.after(() => kiosk.close());
  await kiosk.take('welcome');
  return { gateway, kiosk };
}

async function admin(gateway: TestGateway, method: string, path: string, body?: unknown): Promise<Response> {
  return fetch(`${gateway.httpUrl}${path}`, {
    method, headers: { authorization: `Bearer ${gateway.adminToken}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

async function share(gateway: TestGateway, name: string, extra: Record<string, unknown> = {}): Promise<Started> {
  const response = await fetch(`${gateway.httpUrl}/v1/displays/room/projection`, {
    method: 'POST', headers: presenterHeaders, body: JSON.stringify({ pin: await gateway.roomPin('room'), name, source: 'browser', ...extra }),
  });
  assert.equal(response.status, 202, await response.clone().text());
  return await response.json() as Started;
}

async function status(gateway: TestGateway, stopToken: string, query = ''): Promise<Status> {
  const response = await fetch(`${gateway.httpUrl}/v1/displays/room/projection${query}`, { headers: { 'x-lanterna-stop-token': stopToken } });
  assert.equal(response.status, 200);
  return await response.json() as Status;
}

/** The presenter page's socket: `present` with its token; it answers the display's Connection Request with a Confirm selecting TLS. */
async function presenterPage(t: { after(fn: () => Promise<void> | void): void }, presenter: PresenterSocket): Promise<{ socket: WebSocket; queue: MessageQueue; request: Promise<Buffer> }> {
  const socket = new WebSocket(presenter.socketUrl, 'lanterna.v1', { perMessageDeflate: false });
  t.after(() => socket.close());
  const queue = new MessageQueue(socket);
  await new Promise((resolve, reject) => { socket.once('open', resolve); socket.once('error', reject); });
  socket.send(JSON.stringify({ type: 'present', token: presenter.token, publicKey: Buffer.alloc(270, 7).toString('base64') }));
  const request = queue.nextBinary(30_000).then((connectionRequest) => {
    socket.send(buildConnectionConfirm({ kind: 'response', selectedProtocol: PROTOCOL.SSL, flags: 0 }));
    return connectionRequest;
  });
  return { socket, queue, request };
}

/**
 * The display's side of a `project`: its data socket, the Connection
 * Request, `secured` as a presenter's leg and the Confirm; then one PDU each
 * way between it and the page, byte for byte.
 */
async function joinAndRelay(t: { after(fn: () => Promise<void> | void): void }, gateway: TestGateway, project: Record<string, unknown>, page: Awaited<ReturnType<typeof presenterPage>>, mark: number): Promise<{ socket: WebSocket; queue: MessageQueue }> {
  const data = await openData(gateway.url, String(project.sessionId), String(project.sessionToken));
  t.after(() => data.socket.close());
  const connectionRequest = buildConnectionRequest({ requestedProtocols: PROTOCOL.SSL, cookie: 'room' });
  data.socket.send(connectionRequest);
  assert.deepEqual(await page.request, Buffer.from(connectionRequest), 'the display\'s Connection Request reached the page whole');
  const secured = await data.queue.nextText('secured', 30_000);
  assert.deepEqual([secured.protocol, secured.trust], ['ssl', 'presenter']);
  assert.equal((await data.queue.nextBinary())[5], 0xd0, 'the page\'s Confirm');
  const up = tpkt([mark, 1, 2, 3]);
  data.socket.send(up);
  assert.deepEqual(await page.queue.nextBinary(), up, 'display → presenter');
  const down = tpkt([mark, 9, 8, 7, 6]);
  page.socket.send(down);
  assert.deepEqual(await data.queue.nextBinary(), down, 'presenter → display');
  return data;
}

test('moderated room: the request the moderator accepts gets its presenter socket, which joins the display\'s session and relays both ways', { timeout: 60_000 }, async (t) => {
  const { gateway, kiosk } = await startRoom(t);
  assert.equal((await admin(gateway, 'PATCH', '/v1/admin/displays/room/room', { mode: 'moderated' })).status, 200);
  const ann = await share(gateway, 'Ann');
  assert.deepEqual([ann.state, ann.presenter], ['waiting', undefined], 'no presenter socket while the request waits');
  const waiting = await status(gateway, ann.stopToken);
  const following = status(gateway, ann.stopToken, `?since=${encodeURIComponent(waiting.tag)}&waitMs=20000`);
  assert.equal((await admin(gateway, 'POST', `/v1/admin/displays/room/room/requests/${ann.sessionId}/accept`, {})).status, 200);
  const accepted = await following;
  assert.ok(accepted.presenter, `the accepted request's status hands over its presenter socket: ${JSON.stringify(accepted)}`);
  const project = await kiosk.take('project');
  assert.equal(project.sessionId, ann.sessionId);
  const page = await presenterPage(t, accepted.presenter);
  const data = await joinAndRelay(t, gateway, project, page, 1);
  await untilState(gateway, ann.stopToken, 'active');

  // the moderator ends the source: both ends hear it
  assert.equal((await admin(gateway, 'DELETE', '/v1/admin/displays/room/room/slots/0')).status, 202);
  const displayEnd = await data.queue.closed(15_000);
  assert.equal(displayEnd.code, 1000, 'the display\'s session ended politely');
  const pageEnd = await page.queue.closed(15_000);
  assert.equal(pageEnd.code, 1000, 'the page\'s socket ended politely');
});

test('open room, every place taken: a take-over ends the oldest source (its display session and its page\'s socket) and the new presenter\'s socket joins in its place', { timeout: 60_000 }, async (t) => {
  const { gateway, kiosk } = await startRoom(t);
  const echo = await startFaultyPeer('echo');
  t.after(() => echo.close());
  const ann = await share(gateway, 'Ann');
  assert.ok(ann.presenter, 'an open room answers with the presenter socket at once');
  const annProject = await kiosk.take('project');
  const annPage = await presenterPage(t, ann.presenter);
  const annData = await joinAndRelay(t, gateway, annProject, annPage, 1);
  await untilState(gateway, ann.stopToken, 'active');
  // three servers in the other places (the admin's projections; their displays need not join for the places to be taken)
  for (let index = 0; index < 3; index += 1) {
    const projected = await admin(gateway, 'POST', '/v1/admin/sessions', { displayId: 'room', target: { host: '127.0.0.1', port: echo.port, name: `Server ${String(index + 1)}` } });
    assert.equal(projected.status, 202, await projected.clone().text());
    await kiosk.take('project');
  }
  const refused = await fetch(`${gateway.httpUrl}/v1/displays/room/projection`, {
    method: 'POST', headers: presenterHeaders, body: JSON.stringify({ pin: await gateway.roomPin('room'), name: 'Bob', source: 'browser' }),
  });
  assert.equal(refused.status, 409, 'every place is taken');

  const bob = await share(gateway, 'Bob', { takeOver: true });
  assert.ok(bob.presenter, `the take-over answers with Bob's presenter socket: ${JSON.stringify(bob)}`);
  assert.equal(bob.slot, 0, 'Bob takes the oldest source\'s place');
  // Ann's session ends at both of its ends
  const annEnd = await annData.queue.closed(15_000);
  assert.equal(annEnd.code, 1000, 'Ann\'s display session ended politely');
  assert.equal((await annPage.queue.closed(15_000)).code, 1000, 'Ann\'s page\'s socket ended politely');
  // and Bob's joins in her place
  const bobProject = await kiosk.take('project');
  assert.equal(bobProject.sessionId, bob.sessionId);
  assert.equal(bobProject.slot, 0);
  const bobPage = await presenterPage(t, bob.presenter);
  await joinAndRelay(t, gateway, bobProject, bobPage, 2);
  await untilState(gateway, bob.stopToken, 'active');
});

/** Until the presenter's status says `state` (the session's own state, as its page reads it). */
async function untilState(gateway: TestGateway, stopToken: string, state: string): Promise<void> {
  const end = Date.now() + 10_000;
  let last: Status | undefined;
  while (Date.now() < end) {
    last = await status(gateway, stopToken);
    if (last.state === state) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  assert.fail(`the presenter's status says ${JSON.stringify(last)}, not ${state}`);
}
