// A hostile client beside a healthy session: slow headers on HTTP, on a
// WebSocket upgrade and on TLS, floods of unauthenticated sockets (from one
// address, and from several holding every pending place while a display
// arrives), too many connections from one address, oversized and fragmented
// frames before authentication, resets at every phase, more sessions than
// allowed, token guessing across every place a token is checked, a
// WS-Discovery Disconnect naming someone else's session. Each case ends with
// the gateway answering and the healthy session's data intact.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { connect as connectTcp, type Socket } from 'node:net';
import { request as httpRequest } from 'node:http';
import { WebSocket } from 'ws';
import { startTestGateway, startFaultyPeer, connectControl, openData, waitFor, type TestGateway, type FaultyPeer, type MessageQueue } from '@lanterna/testkit';
import { buildConnectionRequest, PROTOCOL } from '@lanterna/protocol';
import { ANONYMOUS, writeWsdMessage } from '@lanterna/protocol/wsd';

const TOKEN = 'display-token-0123456789';
const LIMITS = { perAddressConnections: 40, maxPendingSockets: 20, perSourcePendingSockets: 8, maxSessions: 3 };
/** Wrong tokens one address may show in a window (tokenGuesses.perAddress). */
const WRONG_TOKENS = 4;
const TIMEOUTS = { helloMs: 1500, requestMs: 1500, httpHeadersMs: 800, httpRequestMs: 1600, tlsHandshakeMs: 800 };
/** Hostile traffic comes from another loopback address, so the per-address budget it exhausts is not the healthy session's. */
const HOSTILE_ADDRESS = '127.0.0.2';
/** Strangers who together hold every pending place (with HOSTILE_ADDRESS). */
const STRANGER_ADDRESSES = ['127.0.0.3', '127.0.0.5'];
/** The token guesser: its budget is its own. */
const GUESSER_ADDRESS = '127.0.0.4';

let gateway: TestGateway;
let tlsGateway: TestGateway;
let echo: FaultyPeer;
let healthy: { socket: WebSocket; queue: MessageQueue; sessionId: string };
let probeNumber = 0;

async function session(displayId: string): Promise<{ sessionId: string; token: string }> {
  const control = await connectControl(gateway.url, displayId, TOKEN);
  try {
    const response = await fetch(`${gateway.httpUrl}/v1/admin/sessions`, {
      method: 'POST', headers: { authorization: `Bearer ${gateway.adminToken}` },
      body: JSON.stringify({ displayId, target: { host: '127.0.0.1', port: echo.port } }),
    });
    assert.equal(response.status, 202);
    const project = await control.next('project');
    return { sessionId: String(project.sessionId), token: String(project.sessionToken) };
  } finally {
    control.close();
  }
}

async function assertHealthy(): Promise<void> {
  probeNumber += 1;
  const probe = Buffer.from([0x03, 0x00, 0x00, 0x08, 0x02, 0xf0, 0x80, probeNumber & 0xff]);
  healthy.socket.send(probe);
  assert.deepEqual(await healthy.queue.nextBinary(), probe, 'the healthy session keeps relaying');
  assert.equal((await fetch(`${gateway.httpUrl}/healthz`)).status, 200, 'the gateway answers');
}

/** A TCP connection from the hostile address; resolves with the socket once connected. */
function hostileTcp(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connectTcp({ port, host: '127.0.0.1', localAddress: HOSTILE_ADDRESS }, () => resolve(socket));
    socket.once('error', reject);
  });
}

/** Resolves with how long the gateway took to close this socket on its own. */
function closedByGateway(socket: Socket): Promise<number> {
  const started = performance.now();
  return new Promise((resolve) => {
    socket.on('error', () => undefined);
    socket.once('close', () => resolve(performance.now() - started));
    socket.resume();
  });
}

interface HostileSocket {
  socket: WebSocket;
  /** 'open', or the HTTP status the upgrade was refused with. */
  status: 'open' | number;
  /** The close code, once the socket closes. */
  closed: Promise<number>;
}

/** A WebSocket from `from` (the hostile address by default). */
function hostileSocket(path: string, from = HOSTILE_ADDRESS): Promise<HostileSocket> {
  return new Promise((resolve) => {
    const socket = new WebSocket(`${gateway.url}${path}`, 'lanterna.v1', { localAddress: from });
    const closed = new Promise<number>((done) => socket.once('close', done));
    socket.once('open', () => resolve({ socket, status: 'open', closed }));
    socket.once('unexpected-response', (_request, response) => resolve({ socket, status: response.statusCode ?? 0, closed }));
    socket.once('error', () => resolve({ socket, status: 0, closed }));
  });
}

/** An HTTP request from `from` on the plain gateway. */
function requestFrom(from: string, path: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<{ status: number; retryAfter: string | undefined; body: string }> {
  return new Promise((resolve, reject) => {
    const request = httpRequest({ host: '127.0.0.1', port: gateway.port, path, method: init.method ?? 'GET', headers: init.headers, localAddress: from, agent: false }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, retryAfter: response.headers['retry-after'], body: Buffer.concat(chunks).toString('utf8') }));
    });
    request.on('error', reject);
    request.end(init.body);
  });
}

/** A display's hello on the control socket from `from`: how the gateway closed it, and the error it gave. */
function helloFrom(from: string, token: string): Promise<{ code: number; error?: string }> {
  return new Promise((resolve) => {
    const socket = new WebSocket(`${gateway.url}/v1/displays/room/control`, 'lanterna.v1', { localAddress: from });
    let error: string | undefined;
    socket.once('open', () => socket.send(JSON.stringify({ type: 'hello', protocol: 1, token, client: 'hostile' })));
    socket.on('message', (data) => {
      const message = JSON.parse((data as Buffer).toString('utf8')) as { type: string; code?: string };
      if (message.type === 'error') error = message.code;
      if (message.type === 'welcome') socket.close();
    });
    socket.once('error', () => undefined);
    socket.once('close', (code) => resolve({ code, ...(error === undefined ? {} : { error }) }));
  });
}

before(async () => {
  echo = await startFaultyPeer('echo');
  const config = {
    displays: ['healthy', 'room', 'busy', 'busy-1', 'busy-2'].map((id) => ({ id, token: TOKEN })),
    certificates: { mode: 'insecure' },
    limits: LIMITS,
    timeouts: TIMEOUTS,
    tokenGuesses: { perAddress: { max: WRONG_TOKENS, windowMs: 60_000 } },
    wsd: { enabled: true },
  };
  gateway = await startTestGateway(config);
  tlsGateway = await startTestGateway({ ...config, listen: { host: '127.0.0.1', port: 0, tls: true } });
  const { sessionId, token } = await session('healthy');
  healthy = { ...await openData(gateway.url, sessionId, token), sessionId };
  healthy.socket.send(buildConnectionRequest({ requestedProtocols: PROTOCOL.SSL }));
  await healthy.queue.nextText('secured');
  await healthy.queue.nextBinary();
});

after(async () => {
  healthy.socket.close();
  await gateway.close();
  await tlsGateway.close();
  await echo.close();
});

test('slowloris: headers that never end are cut at the deadline, on HTTP, on an upgrade and on TLS', async () => {
  const http = await hostileTcp(gateway.port);
  http.write('GET /healthz HTTP/1.1\r\nhost: 127.0.0.1\r\nx-slow: ');
  const upgrade = await hostileTcp(gateway.port);
  upgrade.write('GET /v1/displays/room/control HTTP/1.1\r\nhost: 127.0.0.1\r\nupgrade: websocket\r\nconnection: Upgrade\r\n');
  const tls = await hostileTcp(tlsGateway.port); // says nothing: no ClientHello
  const closes = await Promise.all([closedByGateway(http), closedByGateway(upgrade), closedByGateway(tls)]);
  for (const ms of closes) assert.ok(ms < 5000, `closed after ${ms.toFixed(0)} ms, within a few deadlines`);
  await assertHealthy();
});

test('a flood of unauthenticated websockets from one address holds only its share: each upgrade past it takes that address\'s oldest place (1013)', async () => {
  const flood = await Promise.all(Array.from({ length: LIMITS.maxPendingSockets + 5 }, () => hostileSocket('/v1/displays/room/control')));
  assert.deepEqual(flood.filter((attempt) => attempt.status !== 'open').map((attempt) => attempt.status), [], 'no upgrade is refused');
  await assertHealthy();
  // The share's newest wait for their hello until helloMs (4408); every older one gave its place up at once (1013).
  const closes = await Promise.all(flood.map((attempt) => attempt.closed));
  assert.equal(closes.filter((code) => code === 1013).length, flood.length - LIMITS.perSourcePendingSockets, `closes ${closes.join(' ')}`);
  assert.equal(closes.filter((code) => code === 4408).length, LIMITS.perSourcePendingSockets);
  assert.match(await gateway.metricsText(), new RegExp(`lanterna_pending_sockets_evicted_total ${flood.length - LIMITS.perSourcePendingSockets}\\b`));
});

test('strangers at three addresses hold every pending place, control and data: a display with its token still gets in and relays', async () => {
  const paths = ['/v1/displays/room/control', '/v1/sessions/abc/data'];
  const strangers = await Promise.all([HOSTILE_ADDRESS, ...STRANGER_ADDRESSES].flatMap((from) => paths.flatMap((path) =>
    Array.from({ length: LIMITS.perSourcePendingSockets }, () => hostileSocket(path, from)))));
  assert.ok(3 * LIMITS.perSourcePendingSockets > LIMITS.maxPendingSockets, 'together they fill each pool');
  // Before the strangers' hello deadline: every place is a stranger's.
  const { sessionId, token } = await session('room');
  const data = await openData(gateway.url, sessionId, token);
  data.socket.send(buildConnectionRequest({ requestedProtocols: PROTOCOL.SSL }));
  await data.queue.nextText('secured');
  await data.queue.nextBinary();
  const probe = Buffer.from([0x03, 0x00, 0x00, 0x08, 0x02, 0xf0, 0x80, 0x42]);
  data.socket.send(probe);
  assert.deepEqual(await data.queue.nextBinary(), probe, 'the display\'s session relays');
  data.socket.close();
  await assertHealthy();
  const closes = await Promise.all(strangers.map((attempt) => attempt.closed));
  assert.ok(closes.filter((code) => code === 1013).length >= 2, `strangers made room for the display's two sockets (closes ${closes.join(' ')})`);
  await waitFor('the display\'s session ended', async () => /lanterna_sessions_active 1\b/.test(await gateway.metricsText()), 5000);
});

test('token guessing: wrong admin, metrics, presenter-shortcut and display tokens share one budget per address; past it all are refused, the right ones too, and nobody else is', async () => {
  const wrong = { authorization: 'Bearer wrong-token-0123456789abcdef' };
  const right = { authorization: `Bearer ${gateway.adminToken}` };
  const shortcut = (headers: Record<string, string>): Promise<{ status: number; retryAfter: string | undefined }> => requestFrom(GUESSER_ADDRESS, '/v1/displays/room/projection', {
    method: 'POST', headers: { ...headers, 'content-type': 'application/json', 'x-lanterna-presenter': '1' }, body: JSON.stringify({ target: { host: '127.0.0.1', port: echo.port } }),
  });
  assert.equal((await requestFrom(GUESSER_ADDRESS, '/metrics', { headers: wrong })).status, 401);
  assert.equal((await requestFrom(GUESSER_ADDRESS, '/v1/admin/displays', { headers: wrong })).status, 401);
  assert.notEqual((await shortcut(wrong)).status, 429);
  assert.deepEqual(await helloFrom(GUESSER_ADDRESS, 'not-the-display-token'), { code: 4401, error: 'unauthorized' });
  assert.equal(WRONG_TOKENS, 4, 'those were the address\'s wrong tokens');

  const metrics = await requestFrom(GUESSER_ADDRESS, '/metrics', { headers: right });
  assert.equal(metrics.status, 429, '/metrics is no oracle: the right token is refused too');
  assert.ok(Number(metrics.retryAfter) >= 1, `Retry-After ${metrics.retryAfter}`);
  assert.equal((await requestFrom(GUESSER_ADDRESS, '/v1/admin/displays', { headers: right })).status, 429);
  const refusedShortcut = await shortcut(right);
  assert.equal(refusedShortcut.status, 429);
  assert.ok(Number(refusedShortcut.retryAfter) >= 1);
  assert.deepEqual(await helloFrom(GUESSER_ADDRESS, TOKEN), { code: 4429, error: 'rate-limited' }, 'a display token from there is refused with a clear close code');

  const metrics200 = await requestFrom('127.0.0.1', '/metrics', { headers: right });
  assert.equal(metrics200.status, 200, 'another address is not affected');
  for (const check of ['admin', 'metrics', 'presenter', 'display']) assert.match(metrics200.body, new RegExp(`lanterna_token_checks_refused_total\\{check="${check}"\\} 1\\b`), check);
  assert.equal((await helloFrom('127.0.0.1', TOKEN)).code, 1005, 'a display elsewhere gets its welcome');
  await assertHealthy();
});

test('a WS-Discovery Disconnect naming the healthy session, without its stop token or the room PIN, ends nothing', async () => {
  const disconnect = (request: { sessionId: string; stopToken?: string; pin?: string }): Promise<{ status: number; body: string }> => requestFrom(HOSTILE_ADDRESS, '/wsd/healthy/projector', {
    method: 'POST', headers: { 'content-type': 'application/soap+xml' },
    body: writeWsdMessage({ kind: 'disconnect', header: { messageId: `urn:uuid:${crypto.randomUUID()}`, replyTo: ANONYMOUS }, request }),
  });
  const { sessionId } = healthy;
  for (const request of [{ sessionId }, { sessionId, stopToken: `${sessionId}.forged` }]) {
    const answer = await disconnect(request);
    assert.equal(answer.status, 400);
    assert.match(answer.body, /StopTokenWrong/);
  }
  assert.match((await disconnect({ sessionId, pin: '000000' })).body, /Pin(Wrong|Locked)/);
  await assertHealthy();
});

test('one address may hold only so many connections; others are not affected', async () => {
  const sockets: Socket[] = [];
  let dropped = 0;
  for (let i = 0; i < LIMITS.perAddressConnections + 5; i += 1) {
    const socket = await hostileTcp(gateway.port);
    sockets.push(socket);
    // A dropped connection is closed by the gateway at once; a kept one stays open.
    const verdict = await Promise.race([closedByGateway(socket).then(() => 'dropped'), new Promise((resolve) => { setImmediate(() => setImmediate(() => resolve('kept'))); })]);
    if (verdict === 'dropped') dropped += 1;
  }
  await waitFor('the extra connections were dropped', () => sockets.filter((socket) => socket.destroyed).length >= 5, 5000);
  assert.ok(dropped <= 5 + 1, `dropped ${dropped}`);
  assert.equal(sockets.filter((socket) => socket.destroyed).length, 5, 'exactly the connections over the limit were dropped');
  await assertHealthy(); // from 127.0.0.1, which has its own budget
  for (const socket of sockets) socket.destroy();
  await waitFor('the hostile address has room again', hostileAddressServed, 5000);
});

/** Whether an HTTP request from the hostile address is answered now. */
function hostileAddressServed(): Promise<boolean> {
  return new Promise((resolve) => {
    httpRequest({ host: '127.0.0.1', port: gateway.port, path: '/healthz', localAddress: HOSTILE_ADDRESS, agent: false }, (response) => {
      response.resume();
      resolve(response.statusCode === 200);
    }).on('error', () => resolve(false)).end();
  });
}

test('frames before authentication: over 16 KiB whole or in fragments is 1009', async () => {
  const whole = await hostileSocket('/v1/sessions/abc/data');
  assert.equal(whole.status, 'open');
  const wholeClosed = new Promise<number>((resolve) => whole.socket.once('close', resolve));
  whole.socket.send(Buffer.alloc(20 * 1024, 0x03));
  assert.equal(await wholeClosed, 1009);

  const fragments = await hostileSocket('/v1/sessions/abc/data');
  const fragmentsClosed = new Promise<number>((resolve) => fragments.socket.once('close', resolve));
  for (let i = 0; i < 3; i += 1) fragments.socket.send(Buffer.alloc(8 * 1024, 0x7b), { binary: false, fin: i === 2 });
  assert.equal(await fragmentsClosed, 1009);
  await assertHealthy();
});

test('resets at every phase end only their own connection', async () => {
  const reset = (socket: WebSocket): void => { (socket as unknown as { _socket: Socket })._socket.resetAndDestroy(); };
  // After the upgrade, before the hello.
  reset((await hostileSocket('/v1/displays/room/control')).socket);
  // After the hello.
  const control = await connectControl(gateway.url, 'room', TOKEN);
  reset(control.socket);
  // After open, before the Connection Request; after the Connection Request; during the relay.
  for (const phase of ['open', 'request', 'relay'] as const) {
    const { sessionId, token } = await session('room');
    const data = await openData(gateway.url, sessionId, token);
    if (phase !== 'open') data.socket.send(buildConnectionRequest({ requestedProtocols: PROTOCOL.SSL }));
    if (phase === 'relay') { await data.queue.nextText('secured'); await data.queue.nextBinary(); }
    reset(data.socket);
  }
  await assertHealthy();
  const text = await gateway.metricsText();
  assert.match(text, /lanterna_sessions_active 1\b/, 'only the healthy session is left');
});

test('more sessions than limits.maxSessions: the next one is refused gateway-busy (1013)', async () => {
  const running: { socket: WebSocket; queue: MessageQueue }[] = [];
  // The healthy session holds one of the three places.
  for (let i = 0; i < LIMITS.maxSessions - 1; i += 1) {
    // One session per display (the broker books it): each on its own.
    const { sessionId, token } = await session(`busy-${i + 1}`);
    const data = await openData(gateway.url, sessionId, token);
    data.socket.send(buildConnectionRequest({ requestedProtocols: PROTOCOL.SSL }));
    await data.queue.nextText('secured');
    running.push(data);
  }
  const { sessionId, token } = await session('busy');
  const refused = await openData(gateway.url, sessionId, token);
  const closed = await refused.queue.closed();
  assert.deepEqual([closed.code, closed.error?.code], [1013, 'gateway-busy']);
  for (const data of running) data.socket.close();
  await waitFor('the extra sessions ended', async () => /lanterna_sessions_active 1\b/.test(await gateway.metricsText()), 5000);
  await assertHealthy();
});
