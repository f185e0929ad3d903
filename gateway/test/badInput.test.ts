// Every bad input ends only its own session, with a typed error and a close
// code, while a healthy session relays beside it the whole time.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { connect as connectTcp } from 'node:net';
import { WebSocket } from 'ws';
import { startTestGateway, type TestGateway, startFaultyPeer, type FaultyPeer, type PeerBehaviour, connectControl, openData, type MessageQueue } from '@lanterna/testkit';
import { buildConnectionRequest, PROTOCOL } from '@lanterna/protocol';

const TOKEN = 'display-token-0123456789';
const connectionRequest = buildConnectionRequest({ requestedProtocols: PROTOCOL.SSL | PROTOCOL.HYBRID, cookie: 'test' });
const peers = new Map<PeerBehaviour, FaultyPeer>();
let gateway: TestGateway;
let healthy: { socket: WebSocket; queue: MessageQueue };

function tpkt(payload: number[]): Buffer {
  const pdu = Buffer.from([0x03, 0x00, 0x00, 0x00, 0x02, 0xf0, 0x80, ...payload]);
  pdu.writeUInt16BE(pdu.length, 2);
  return pdu;
}

async function project(displayId: string, port: number): Promise<{ sessionId: string; sessionToken: string }> {
  const control = await connectControl(gateway.url, displayId, TOKEN);
  try {
    const response = await fetch(`${gateway.httpUrl}/v1/admin/sessions`, {
      method: 'POST', headers: { authorization: `Bearer ${gateway.adminToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ displayId, target: { host: '127.0.0.1', port } }),
    });
    assert.equal(response.status, 202, await response.clone().text());
    const project = await control.next('project');
    return { sessionId: String(project.sessionId), sessionToken: String(project.sessionToken) };
  } finally {
    control.close();
  }
}

/** Opens a session to a peer and sends the Connection Request; returns the data socket's queue. */
async function session(displayId: string, behaviour: PeerBehaviour | number): Promise<{ socket: WebSocket; queue: MessageQueue }> {
  const port = typeof behaviour === 'number' ? behaviour : (peers.get(behaviour)?.port ?? 0);
  const { sessionId, sessionToken } = await project(displayId, port);
  const data = await openData(gateway.url, sessionId, sessionToken);
  data.socket.send(connectionRequest);
  return data;
}

async function assertHealthyStillRelays(): Promise<void> {
  const probe = tpkt([Math.floor(Math.random() * 256), 1, 2, 3]);
  healthy.socket.send(probe);
  assert.deepEqual(await healthy.queue.nextBinary(), probe, 'the healthy session must keep relaying');
  const health = await fetch(`${gateway.httpUrl}/healthz`);
  assert.equal(health.status, 200);
}

async function expectError(queue: MessageQueue, code: string, closeCode: number, phase?: string): Promise<void> {
  const closed = await queue.closed();
  assert.equal(closed.error?.code, code, `error code (got ${JSON.stringify(closed.error)})`);
  if (phase) assert.equal(closed.error.phase, phase);
  assert.equal(typeof closed.error.message, 'string');
  assert.equal(closed.code, closeCode);
  await assertHealthyStillRelays();
}

before(async () => {
  for (const behaviour of ['echo', 'silent', 'garbage-confirm', 'legacy-confirm', 'negotiation-failure', 'no-tls', 'garbage-after-tls', 'close-after-tls'] as const) {
    peers.set(behaviour, await startFaultyPeer(behaviour));
  }
  gateway = await startTestGateway({
    displays: ['healthy', 'room', 'signage'].map((id) => ({ id, token: TOKEN })).concat([
      { id: 'forbidden', token: TOKEN, autoProject: { host: '127.0.0.1', port: 80 } } as never,
    ]),
    certificates: { mode: 'insecure' },
    timeouts: { helloMs: 400, requestMs: 400, confirmMs: 400, connectMs: 1000, tlsMs: 1000 },
  });
  healthy = await session('healthy', 'echo');
  assert.equal((await healthy.queue.nextText('secured')).protocol, 'ssl');
  await healthy.queue.nextBinary(); // the Connection Confirm
  await assertHealthyStillRelays();
});

after(async () => {
  healthy.socket.close();
  await gateway.close();
  for (const peer of peers.values()) await peer.close();
});

test('control socket: wrong token, no hello, not a hello, unsupported protocol', async () => {
  const wrong = await connectControl(gateway.url, 'room', 'wrong-token-0000000000').catch((error: unknown) => error);
  assert.ok(wrong instanceof Error && /"code":"unauthorized"/.test(wrong.message), String(wrong));
  for (const [send, code, close] of [
    [undefined, 'timeout', 4408],
    ['{"type":"project"}', 'bad-message', 4400],
    ['not json', 'bad-message', 4400],
    [JSON.stringify({ type: 'hello', protocol: 2, token: TOKEN }), 'bad-message', 4400],
  ] as const) {
    const socket = new WebSocket(`${gateway.url}/v1/displays/room/control`, 'lanterna.v1');
    const { MessageQueue } = await import('@lanterna/testkit');
    const queue = new MessageQueue(socket);
    await new Promise((resolve) => socket.once('open', resolve));
    if (send) socket.send(send);
    await expectError(queue, code, close);
  }
});

test('data socket: data before open, bad and reused tokens, no connection request', async () => {
  const { sessionId, sessionToken } = await project('room', peers.get('echo')?.port ?? 0);
  const early = new WebSocket(`${gateway.url}/v1/sessions/${sessionId}/data`);
  const { MessageQueue } = await import('@lanterna/testkit');
  const earlyQueue = new MessageQueue(early);
  await new Promise((resolve) => early.once('open', resolve));
  early.send(connectionRequest);
  await expectError(earlyQueue, 'bad-message', 4400, 'open');

  const forged = await openData(gateway.url, sessionId, `${sessionToken.split('.')[0] ?? ''}.AAAA`);
  await expectError(forged.queue, 'unauthorized', 4401, 'open');

  const first = await openData(gateway.url, sessionId, sessionToken);
  await expectError(first.queue, 'timeout', 4408, 'request'); // sends no Connection Request
  const reused = await openData(gateway.url, sessionId, sessionToken);
  await expectError(reused.queue, 'unauthorized', 4401, 'open');

  const other = await project('room', peers.get('echo')?.port ?? 0);
  const text = await openData(gateway.url, other.sessionId, other.sessionToken);
  text.socket.send('{"type":"hello"}');
  await expectError(text.queue, 'bad-message', 4400, 'request');

  const polite = await project('room', peers.get('echo')?.port ?? 0);
  const politeData = await openData(gateway.url, polite.sessionId, polite.sessionToken);
  politeData.socket.send('{"type":"close"}');
  assert.deepEqual(await politeData.queue.nextText('ended'), { type: 'ended', reason: 'client-closed' });
  assert.equal((await politeData.queue.closed()).code, 1000);

  const malformed = await project('room', peers.get('echo')?.port ?? 0);
  const bad = await openData(gateway.url, malformed.sessionId, malformed.sessionToken);
  bad.socket.send(Buffer.from([0x03, 0x00, 0x00, 0x0b, 0x06, 0xe0, 0, 0, 0, 0, 0]).subarray(0, 8));
  await expectError(bad.queue, 'bad-message', 4400, 'request');

  const legacy = await project('room', peers.get('echo')?.port ?? 0);
  const legacyData = await openData(gateway.url, legacy.sessionId, legacy.sessionToken);
  legacyData.socket.send(buildConnectionRequest({ requestedProtocols: PROTOCOL.RDP }));
  await expectError(legacyData.queue, 'legacy-security', 4502, 'request');
});

test('targets: outside policy, refused, silent, not RDP, legacy, negotiation failure', async () => {
  const forbidden = await fetch(`${gateway.httpUrl}/v1/admin/sessions`, {
    method: 'POST', headers: { authorization: `Bearer ${gateway.adminToken}` },
    body: JSON.stringify({ displayId: 'room', target: { host: '8.8.8.8', port: 3389 } }),
  });
  assert.equal(forbidden.status, 403);
  assert.match(((await forbidden.json()) as { message: string }).message, /outside the allowed networks/);
  const noAdmin = await fetch(`${gateway.httpUrl}/v1/admin/sessions`, { method: 'POST', body: '{}' });
  assert.equal(noAdmin.status, 401);

  // A display whose configured target breaks policy: the gateway refuses at connect time.
  const control = await connectControl(gateway.url, 'forbidden', TOKEN);
  const projected = await control.next('project');
  const data = await openData(gateway.url, String(projected.sessionId), String(projected.sessionToken));
  data.socket.send(connectionRequest);
  const forbiddenEnd = await data.queue.closed();
  assert.deepEqual([forbiddenEnd.error?.code, forbiddenEnd.code], ['target-forbidden', 4403]);
  assert.doesNotMatch(JSON.stringify(forbiddenEnd.error), /127\.0\.0\.0\/8|allowed ports|1024-65535/, 'the display is not told the allow-list');
  await assertHealthyStillRelays();
  control.close();

  const closedPort = await startFaultyPeer('echo');
  const port = closedPort.port;
  await closedPort.close();
  await expectError((await session('room', port)).queue, 'target-refused', 4502, 'connect');
  await expectError((await session('room', 'silent')).queue, 'timeout', 4408, 'x224');
  const garbage = await (await session('room', 'garbage-confirm')).queue.closed();
  assert.deepEqual([garbage.error?.code, garbage.error?.phase], ['x224-invalid', 'x224']);
  assert.doesNotMatch(JSON.stringify(garbage.error), /HTTP|485454|first bytes/i, 'what a non-RDP server sent stays in the log');
  await assertHealthyStillRelays();
  await expectError((await session('room', 'legacy-confirm')).queue, 'legacy-security', 4502, 'x224');
  const failure = await session('room', 'negotiation-failure');
  const forwarded = await failure.queue.nextBinary();
  assert.equal(forwarded[11], 0x03, 'the server RDP_NEG_FAILURE is forwarded to the client');
  await expectError(failure.queue, 'negotiation-failed', 4502, 'x224');
});

test('tls and relay: no TLS, server garbage, server hang-up, client partial and malformed PDUs, oversized frame', async () => {
  await expectError((await session('room', 'no-tls')).queue, 'tls-failed', 4502, 'tls');

  const garbage = await session('room', 'garbage-after-tls');
  await garbage.queue.nextText('secured');
  await garbage.queue.nextBinary();
  await expectError(garbage.queue, 'server-error', 4502, 'relay');

  const hangup = await session('room', 'close-after-tls');
  const ended = await hangup.queue.closed();
  assert.ok(ended.code === 1000 || ended.code === 4502, `server hang-up closes the session (got ${ended.code})`);
  await assertHealthyStillRelays();

  for (const [frame, code, close] of [
    [tpkt([1, 2, 3]).subarray(0, 6), 'pdu-invalid', 4400], // ends inside a PDU
    [Buffer.from([0x03, 0x00, 0x00, 0x03]), 'pdu-invalid', 4400], // TPKT length below its header
    [Buffer.from([0x03, 0x07, 0x00, 0x08, 0, 0, 0, 0]), 'pdu-invalid', 4400], // reserved byte set
    [Buffer.from([0x00, 0x00]), 'pdu-invalid', 4400], // fast-path length 0
    [Buffer.from([0x00, 0x01]), 'pdu-invalid', 4400], // fast-path length 1 (below its own header)
    [Buffer.from([0x00, 0x81, 0x00, 1, 2, 3]), 'pdu-invalid', 4400], // a 256-byte fast-path PDU cut short
  ] as const) {
    const client = await session('room', 'echo');
    await client.queue.nextText('secured');
    await client.queue.nextBinary();
    client.socket.send(frame);
    const closed = await client.queue.closed();
    assert.equal(closed.error?.code, code, `frame ${frame.toString('hex')}: ${JSON.stringify(closed.error)}`);
    assert.equal(closed.code, close);
    await assertHealthyStillRelays();
  }

  const big = await session('room', 'echo');
  await big.queue.nextText('secured');
  await big.queue.nextBinary();
  big.socket.send(Buffer.alloc(300 * 1024, 0x03));
  assert.equal((await big.queue.closed()).code, 1009);
  await assertHealthyStillRelays();
});

test('relay: a ping is answered with its own number, a flood only once, a malformed one ends that session', async () => {
  healthy.socket.send(JSON.stringify({ type: 'ping', t: 1234.5 }));
  assert.deepEqual(await healthy.queue.nextText('pong'), { type: 'pong', t: 1234.5 });
  healthy.socket.send(JSON.stringify({ type: 'ping', t: 1 })); // within 200 ms of the last: no answer
  await assertHealthyStillRelays(); // the next message is the probe, not a pong

  for (const ping of [{ type: 'ping', t: 'now' }, { type: 'ping' }]) {
    const client = await session('room', 'echo');
    await client.queue.nextText('secured');
    await client.queue.nextBinary();
    client.socket.send(JSON.stringify(ping));
    await expectError(client.queue, 'bad-message', 4400, 'relay');
  }
});

/** Sends a WebSocket upgrade request and resets the connection at once (RST, not FIN). */
function upgradeThenReset(port: number, path: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = connectTcp(port, '127.0.0.1', () => {
      socket.write(`GET ${path} HTTP/1.1\r\nhost: 127.0.0.1\r\nupgrade: websocket\r\nconnection: Upgrade\r\n`
        + 'sec-websocket-key: dGhlIHNhbXBsZSBub25jZQ==\r\nsec-websocket-version: 13\r\n\r\n');
      socket.resetAndDestroy();
    });
    socket.once('close', () => resolve());
    socket.once('error', (error: NodeJS.ErrnoException) => { if (error.code !== 'ECONNRESET') reject(error); });
  });
}

test('upgrades reset by the client (unknown path, control, data) end only that connection', async () => {
  // Before the fix one of these ended the whole process with an uncaught ECONNRESET.
  for (let i = 0; i < 30; i += 1) {
    for (const path of ['/nowhere', '/v1/displays/room/control', '/v1/sessions/abc/data']) await upgradeThenReset(gateway.port, path);
  }
  await assertHealthyStillRelays();
});

test('metrics count the errors by phase and code', async () => {
  const text = await gateway.metricsText();
  assert.match(text, /lanterna_session_errors_total\{phase="x224",code="x224-invalid"\} [1-9]/);
  assert.match(text, /lanterna_sessions_active 1\b/);
  assert.match(text, /lanterna_relay_pdus_total\{direction="to-kiosk"\} [1-9]/);
});
