// A hostile client beside a healthy session: slow headers on HTTP, on a
// WebSocket upgrade and on TLS, floods of unauthenticated sockets (from one
// address, and from several holding every pending place while a display
// arrives), too many connections from one address, oversized and fragmented
// frames before authentication, resets at every phase, more sessions than
// allowed, token guessing across every place a token is checked, a
// WS-Discovery Disconnect naming someone else's session, TLS peers that ask
// for key updates and never read, displays that ping and never read (issue
// 31). Each case ends with the gateway answering and the healthy session's
// data intact.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { connect as connectTcp, type Socket } from 'node:net';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { WebSocket } from 'ws';
import { startTestGateway, startFaultyPeer, connectControl, openData, waitFor, helloOutcome, type HelloOutcome, type TestGateway, type FaultyPeer, type MessageQueue } from '@lanterna/testkit';
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
/** Displays behind one address (a NAT, a layer-4 balancer) that reconnect at once: twice the wrong-token budget, within the pending places. */
const STORM = Array.from({ length: 2 * WRONG_TOKENS }, (_, i) => `storm-${i}`);
const STORM_ADDRESS = '127.0.0.6';

let gateway: TestGateway;
let tlsGateway: TestGateway;
let echo: FaultyPeer;
let healthy: { socket: WebSocket; queue: MessageQueue; sessionId: string };
let probeNumber = 0;

/**
 * The session the display on `control` is told to project once `ask` (an
 * admin request, its HTTP status) asked for it; the control socket closes after.
 */
async function projectedVia(control: Awaited<ReturnType<typeof connectControl>>, ask: () => Promise<number>): Promise<{ sessionId: string; token: string }> {
  try {
    assert.equal(await ask(), 202);
    const project = await control.next('project');
    return { sessionId: String(project.sessionId), token: String(project.sessionToken) };
  } finally {
    control.close();
  }
}

/** The next numbered probe PDU, sent on a healthy session, comes back: it keeps relaying. */
async function assertRelays(session: { socket: WebSocket; queue: MessageQueue }, what: string): Promise<void> {
  probeNumber += 1;
  const probe = Buffer.from([0x03, 0x00, 0x00, 0x08, 0x02, 0xf0, 0x80, probeNumber & 0xff]);
  session.socket.send(probe);
  assert.deepEqual(await session.queue.nextBinary(), probe, what);
}

async function session(displayId: string): Promise<{ sessionId: string; token: string }> {
  const control = await connectControl(gateway.url, displayId, TOKEN);
  return projectedVia(control, async () => (await fetch(`${gateway.httpUrl}/v1/admin/sessions`, {
    method: 'POST', headers: { authorization: `Bearer ${gateway.adminToken}` },
    body: JSON.stringify({ displayId, target: { host: '127.0.0.1', port: echo.port } }),
  })).status);
}

async function assertHealthy(): Promise<void> {
  await assertRelays(healthy, 'the healthy session keeps relaying');
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
function helloFrom(from: string, token: string): Promise<HelloOutcome> {
  return helloOutcome(`${gateway.url}/v1/displays/room/control`, token, 'hostile', { localAddress: from });
}

before(async () => {
  echo = await startFaultyPeer('echo');
  const config = {
    displays: ['healthy', 'room', 'busy', 'busy-1', 'busy-2', ...STORM].map((id) => ({ id, token: TOKEN })),
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
  await startTransport();
});

after(async () => {
  healthy.socket.close();
  await gateway.close();
  await tlsGateway.close();
  transportHealthy.socket.close();
  await transport.close();
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

test('displays behind one address that reconnect at once all get their welcome: right tokens do not spend the wrong-token budget (issue 31)', async () => {
  assert.ok(STORM.length > WRONG_TOKENS && STORM.length <= LIMITS.perSourcePendingSockets);
  const outcomes = await Promise.all(STORM.map((id) => helloOutcome(`${gateway.url}/v1/displays/${id}/control`, TOKEN, 'storm', { localAddress: STORM_ADDRESS })));
  assert.deepEqual(outcomes.map((outcome) => outcome.code), STORM.map(() => 1005), `each welcomed, none refused: ${JSON.stringify(outcomes)}`);
  // and the address's budget for wrong tokens is whole
  for (let i = 0; i < WRONG_TOKENS; i += 1) {
    assert.deepEqual(await helloOutcome(`${gateway.url}/v1/displays/${STORM[0]}/control`, 'not-the-display-token', 'storm', { localAddress: STORM_ADDRESS }), { code: 4401, error: 'unauthorized' });
  }
  assert.deepEqual(await helloOutcome(`${gateway.url}/v1/displays/${STORM[0]}/control`, TOKEN, 'storm', { localAddress: STORM_ADDRESS }), { code: 4429, error: 'rate-limited' });
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

test('a request head is limited to limits.maxHeaderBytes, one number for both engines: 15 KiB is served, 17 KiB is 431 (issue 31)', async () => {
  // a data socket's upgrade: the data plane answers it itself, not through Node's server
  for (const [headerBytes, status] of [[15 * 1024, 101], [17 * 1024, 431]] as const) {
    const socket = await hostileTcp(gateway.port);
    const reply = new Promise<string>((resolve) => {
      let text = '';
      socket.on('data', (chunk: Buffer) => { text += chunk.toString('latin1'); });
      socket.on('error', () => undefined);
      socket.once('close', () => resolve(text));
    });
    // written, not ended: a client's half-close is its leaving to Go's server, and the answer would be lost
    socket.write(`GET /v1/sessions/abc/data HTTP/1.1\r\nhost: 127.0.0.1\r\nupgrade: websocket\r\nconnection: Upgrade\r\n`
      + `sec-websocket-key: dGhlIHNhbXBsZSBub25jZQ==\r\nsec-websocket-version: 13\r\nx-big: ${'a'.repeat(headerBytes)}\r\n\r\n`);
    if (status === 101) setTimeout(() => socket.destroy(), 300);
    assert.match(await reply, new RegExp(`^HTTP/1\\.1 ${status} `), `a head of ${headerBytes} bytes`);
  }
  await assertHealthy();
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

// Issue 31: transport limits, on a TLS gateway of their own with a healthy
// session of its own. The hostile TLS 1.3 peer is Go's (crypto/tls has the
// handshake; the peer seals the key updates itself): neither Node nor
// OpenSSL's command line can send a key update and then not read.
const HOSTILE_TLS_PEER = join(fileURLToPath(new URL('.', import.meta.url)), '..', '..', 'dataplane', 'bin', 'hostile-tls-peer');
const TRANSPORT = {
  // long read deadlines, so that a flood of key updates (a few seconds before the buffers on its way are full) meets them only after its stall
  timeouts: { helloMs: 10_000, requestMs: 10_000, httpHeadersMs: 10_000, httpRequestMs: 20_000, tlsHandshakeMs: 2000, writeMs: 500 },
  limits: { perAddressConnections: 40, maxPendingSockets: 3, maxSessions: 10 },
  relay: { highWaterBytes: 64 * 1024, lowWaterBytes: 16 * 1024, maxFrameBytes: 64 * 1024, maxBacklogBytes: 256 * 1024 },
};

interface HostilePeer { events: AsyncIterator<Record<string, unknown>>; next(event: string, timeoutMs: number): Promise<Record<string, unknown>>; close(): void }

/** Starts the hostile TLS peer; its JSON lines come as events. */
function hostilePeer(args: string[]): HostilePeer {
  assert.ok(existsSync(HOSTILE_TLS_PEER), `the hostile TLS peer is not built (${HOSTILE_TLS_PEER}): run bash gateway/dataplane/build.sh`);
  const child = spawn(HOSTILE_TLS_PEER, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const events: AsyncIterator<Record<string, unknown>> = {
    next: async () => {
      const line = await lines.next();
      return line.done ? { done: true, value: undefined } : { done: false, value: JSON.parse(line.value) as Record<string, unknown> };
    },
  };
  return {
    events,
    next: async (event, timeoutMs) => {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const left = deadline - Date.now();
        const line = await Promise.race([events.next(), new Promise<undefined>((resolve) => { setTimeout(() => resolve(undefined), Math.max(left, 0)).unref(); })]);
        if (line === undefined) throw new Error(`the hostile peer said no ${event} within ${timeoutMs} ms`);
        if (line.done) throw new Error(`the hostile peer ended before ${event}`);
        if (line.value.event === event) return line.value;
      }
    },
    close: () => { child.kill(); },
  };
}

let transport: TestGateway;
let transportCa: string;
let transportHealthy: { socket: WebSocket; queue: MessageQueue };

/** A session on the transport gateway to 127.0.0.1:port, through its admin API over TLS. */
async function transportSession(displayId: string, port: number): Promise<{ sessionId: string; token: string }> {
  const control = await connectControl(transport.url, displayId, TOKEN, transportCa);
  const body = JSON.stringify({ displayId, target: { host: '127.0.0.1', port } });
  return projectedVia(control, () => new Promise<number>((resolve, reject) => {
    httpsRequest({ host: '127.0.0.1', port: transport.port, path: '/v1/admin/sessions', method: 'POST', ca: transportCa, headers: { authorization: `Bearer ${transport.adminToken}`, 'content-type': 'application/json' } }, (response) => {
      response.resume();
      resolve(response.statusCode ?? 0);
    }).on('error', reject).end(body);
  }));
}

async function assertTransportHealthy(): Promise<void> {
  await assertRelays(transportHealthy, 'the healthy session on the transport gateway keeps relaying');
}

/** The transport gateway's count of sessions ended with this error code. */
async function transportErrors(code: string): Promise<number> {
  const text = await new Promise<string>((resolve, reject) => {
    httpsRequest({ host: '127.0.0.1', port: transport.port, path: '/metrics', ca: transportCa, headers: { authorization: `Bearer ${transport.adminToken}` } }, (response) => {
      let all = '';
      response.setEncoding('utf8').on('data', (chunk: string) => { all += chunk; }).on('end', () => resolve(all));
    }).on('error', reject).end();
  });
  const line = text.split('\n').find((row) => row.startsWith('lanterna_session_errors_total{') && row.includes(`code="${code}"`));
  return line === undefined ? 0 : Number(line.split(' ').at(-1));
}

async function startTransport(): Promise<void> {
  transport = await startTestGateway({
    displays: ['transport-healthy', 'transport-server', 'transport-pings'].map((id) => ({ id, token: TOKEN })),
    certificates: { mode: 'insecure' }, listen: { host: '127.0.0.1', port: 0, tls: true }, ...TRANSPORT,
  });
  transportCa = readFileSync(join(transport.stateDir, 'gateway-cert.pem'), 'utf8');
  const { sessionId, token } = await transportSession('transport-healthy', echo.port);
  transportHealthy = await openData(transport.url, sessionId, token, transportCa);
  transportHealthy.socket.send(buildConnectionRequest({ requestedProtocols: PROTOCOL.SSL }));
  await transportHealthy.queue.nextText('secured');
  await transportHealthy.queue.nextBinary();
}

test('TLS clients that ask for key updates and never read are cut: their connections and pending places are freed (issue 31)', async () => {
  const address = `127.0.0.1:${transport.port}`;
  const flags = ['-address', address, '-local', HOSTILE_ADDRESS, '-stall', '1s', '-flood', '15s', '-hold', '15s'];
  // every pending place, and two requests whose headers never end
  const data = hostilePeer(['client', ...flags, '-count', String(TRANSPORT.limits.maxPendingSockets), '-upgrade', '/v1/sessions/abc/data']);
  const headers = hostilePeer(['client', ...flags, '-count', '2']);
  try {
    const [dataDone, headersDone] = await Promise.all([data.next('done', 40_000), headers.next('done', 40_000)]);
    assert.equal(dataDone.upgraded, TRANSPORT.limits.maxPendingSockets, `the data sockets were upgraded: ${JSON.stringify(dataDone)}`);
    for (const done of [dataDone, headersDone]) {
      // a stalled connection (the gateway stuck answering) must have been cut within the hold (15 s): at the
      // write deadline (500 ms), or at the latest at the read deadline (10 s) and the closing handshake's (500 ms)
      assert.equal(done.held, 0, `connections still established after the hold: ${JSON.stringify(done)}`);
    }
  } finally {
    data.close();
    headers.close();
  }
  // the pending places are free: a display's data socket gets in
  await waitFor('a pending place is free again', async () => {
    const socket = new WebSocket(`${transport.url}/v1/sessions/abc/data`, 'lanterna.v1', { ca: transportCa });
    const opened = await new Promise<boolean>((resolve) => {
      socket.once('open', () => resolve(true));
      socket.once('unexpected-response', () => resolve(false));
      socket.once('error', () => resolve(false));
    });
    socket.terminate();
    return opened;
  }, 10_000, 200);
  await assertTransportHealthy();
  await assertHealthy();
});

test('an RDP server that asks for key updates and never reads: the gateway never holds more than its cap for it (issue 31)', async () => {
  const server = hostilePeer(['server', '-stall', '1s', '-flood', '10s', '-hold', '5s']);
  try {
    const port = Number((await server.next('listening', 5000)).port);
    const { sessionId, token } = await transportSession('transport-server', port);
    const display = await openData(transport.url, sessionId, token, transportCa);
    display.socket.send(buildConnectionRequest({ requestedProtocols: PROTOCOL.SSL }));
    await display.queue.nextText('secured');
    await display.queue.nextBinary(); // the Confirm
    const done = await server.next('done', 30_000);
    // The gateway cut the server with peer-not-reading: the data plane past
    // relay.maxBacklogBytes (Go's TLS answers each key update at once, into
    // the leg's backlog); the Node engine at the write deadline (OpenSSL's
    // answers queue on the TCP handle beneath the TLS socket, where no byte
    // cap sees them, once the kernel's buffers are full). Before either, the
    // gateway read on and kept the answers (the data plane: 255 MB in 90 s;
    // Node: 2 MB/s in OpenSSL's output buffer). A server the gateway stopped
    // reading (stalled) holds nothing more either.
    assert.ok(done.cut === true || done.stalled === true, `the gateway read on and kept the answers: ${JSON.stringify(done)}`);
    // what reached the display was whole PDUs, as the server sent them
    let received = 0;
    let told: unknown[] = [];
    for (;;) {
      const item = await display.queue.next(3000).catch(() => undefined);
      if (item === undefined || 'closed' in item) break;
      if ('text' in item) {
        told = [item.text.type, item.text.code, (item.text.detail as Record<string, unknown> | undefined)?.side];
        continue;
      }
      const data = item.binary;
      for (let at = 0; at < data.length; at += 4096) {
        assert.deepEqual([...data.subarray(at, at + 4)], [3, 0, 16, 0], 'a whole 4,096-byte PDU');
        for (let i = 7; i < 4096; i += 509) assert.equal(data[at + i], i & 0xff, 'the PDU intact');
      }
      received += data.length;
    }
    assert.ok(received > 0, 'PDUs reached the display');
    if (done.cut === true) {
      assert.deepEqual(told, ['error', 'peer-not-reading', 'server'], 'the display was told why');
      assert.equal(await transportErrors('peer-not-reading'), 1, 'the session ended with peer-not-reading');
    }
    // (otherwise the stalled server hung up after its hold: the session's end is its own)
    display.socket.close();
  } finally {
    server.close();
  }
  await assertTransportHealthy();
});

/** A relaying display that stops reading and pings: cut (true) or its pings refused at the source (false); throws when the gateway took them all. */
async function pingFlood(display: { socket: WebSocket; queue: MessageQueue }, cutCount: () => Promise<number>): Promise<boolean> {
  display.socket.send(buildConnectionRequest({ requestedProtocols: PROTOCOL.SSL }));
  await display.queue.nextText('secured');
  await display.queue.nextBinary();
  const before = await cutCount();
  const socket = (display.socket as unknown as { _socket: Socket })._socket;
  socket.pause();
  const ping = Buffer.alloc(125, 0x70);
  let sent = 0;
  let cut = false;
  let refused = false;
  let waiting = 0;
  let stuckSince = Date.now();
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline && !cut && !refused) {
    // 16 MB of pings at most: far past the kernel's buffers both ways and the cap
    for (let i = 0; i < 4000 && sent < 128_000; i += 1, sent += 1) display.socket.ping(ping);
    await new Promise((resolve) => { setTimeout(resolve, 50); });
    cut = await cutCount() > before;
    // the gateway takes no more pings (not merely slowly): megabytes wait on the display's side, for seconds
    const now = display.socket.bufferedAmount;
    if (now < waiting || now < 4 * 1024 * 1024) stuckSince = Date.now();
    waiting = now;
    refused = Date.now() - stuckSince > 3000;
  }
  // Cut with peer-not-reading past the cap (the data plane), or the pings
  // refused at the source (Node's ws takes no more once its pongs wait):
  // never read on while keeping the pongs, as the data plane did before.
  assert.ok(cut || refused, `the gateway took ${sent} pings and kept every pong`);
  socket.resume();
  display.socket.terminate();
  return cut;
}

test('a display that sends pings and never reads is cut at the backlog cap with peer-not-reading (issue 31)', async () => {
  // over plain TCP, at the default cap (4 MiB)
  const { sessionId, token } = await session('room');
  await pingFlood(await openData(gateway.url, sessionId, token), async () => {
    const line = (await gateway.metricsText()).split('\n').find((row) => row.startsWith('lanterna_session_errors_total{') && row.includes('code="peer-not-reading"'));
    return line === undefined ? 0 : Number(line.split(' ').at(-1));
  });
  await assertHealthy();
  // over TLS, at the transport gateway's cap (256 KiB)
  const tls = await transportSession('transport-pings', echo.port);
  await pingFlood(await openData(transport.url, tls.sessionId, tls.token, transportCa), () => transportErrors('peer-not-reading'));
  await assertTransportHealthy();
});
