// The gateway's decisions for the native data plane, against a real broker,
// its admin API and /metrics: the test stands where the data plane stands
// (rpcDriver.ts) and writes RPC lines as it would; everything on the Node
// side is the product's (process, RPC, decisions, the Unix-socket HTTP).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { pino } from 'pino';
import { WebSocket } from 'ws';
import { configSchema, createGatewayMetrics, createGatewayServer, ensureGatewayIdentity, openBrokerBackend, type GatewayServer } from '@lanterna/gateway';
import { MessageQueue, waitFor } from '@lanterna/testkit';
import { startRpcDriver, overUnixSocket, type RpcDriver } from './rpcDriver.js';

const TOKEN = 'display-token-0123456789';
const FINGERPRINT_A = `sha256:${Array.from({ length: 32 }, () => 'AA').join(':')}`;
const FINGERPRINT_B = `sha256:${Array.from({ length: 32 }, () => 'BB').join(':')}`;
/** The address the data plane names as its client's, appended to X-Forwarded-For. */
const CLIENT = '192.0.2.7';

interface NativeGateway {
  gateway: GatewayServer;
  driver: RpcDriver;
  configure: Record<string, unknown>;
  upstream: string;
  adminToken: string;
  http(method: string, path: string, body?: unknown): Promise<{ status: number; text: string }>;
  metrics(): Promise<string>;
  /** Drains and closes the gateway; the drain is answered as the data plane would, unless the test answers it itself. */
  close(answerDrain?: boolean): Promise<void>;
}

async function startNativeGateway(options: { onDataPlaneExit?: (error: Error) => void; binary?: string } = {}): Promise<NativeGateway> {
  const driver = await startRpcDriver();
  const stateDir = mkdtempSync(join(tmpdir(), 'lanterna-gw-native-'));
  const config = {
    ...configSchema.parse({
      listen: { host: '127.0.0.1', port: 18443, tls: false },
      policy: { allowNetworks: ['127.0.0.0/8'], allowPorts: ['1024-65535'] },
      displays: [{ id: 'lab', token: TOKEN }],
      certificates: { mode: 'first-use' },
      relay: { engine: 'native' },
      logLevel: process.env.LANTERNA_TEST_LOG ?? 'silent',
    }),
    stateDir,
  };
  const identity = await ensureGatewayIdentity(config);
  const logger = pino({ level: config.logLevel });
  const backend = await openBrokerBackend(config, 'single', logger, identity.sessionSecret);
  const gateway = createGatewayServer({
    config, identity, metrics: createGatewayMetrics(), logger, bus: backend.bus, store: backend.store, pins: backend.pins,
    dataPlaneBinary: options.binary ?? driver.binary,
    onDataPlaneExit: options.onDataPlaneExit ?? ((error) => { throw error; }),
  });
  const listening = gateway.listen();
  let configure: Record<string, unknown>;
  try {
    // A gateway that cannot start rejects listen() instead of configuring anything.
    await Promise.race([driver.connected, listening.then(() => { throw new Error('listening without a data plane'); })]);
    configure = await driver.next('configure');
  } catch (error) {
    await gateway.close(0);
    await backend.close();
    driver.close();
    rmSync(stateDir, { recursive: true, force: true });
    throw error;
  }
  const upstream = String(configure.config && (configure.config as Record<string, unknown>).upstreamSocket);
  driver.send({ op: 'ready', port: 18443 });
  assert.equal(await listening, 18443, 'listen() resolves with the port the data plane said ready on');
  const authorization = `Bearer ${identity.adminToken}`;
  return {
    gateway, driver, configure, upstream, adminToken: identity.adminToken,
    http: (method, path, body) => overUnixSocket(upstream, method, path, { authorization, 'x-forwarded-for': `198.51.100.1, ${CLIENT}`, 'content-type': 'application/json' }, body === undefined ? undefined : JSON.stringify(body)),
    metrics: async () => (await overUnixSocket(upstream, 'GET', '/metrics', { authorization })).text,
    close: async (answerDrain = true) => {
      const before = driver.received.length;
      const closing = gateway.close(500);
      if (answerDrain) {
        const drain = await driver.next('drain', before);
        driver.send({ id: drain.id as number, ok: {} });
      }
      await closing;
      await backend.close();
      driver.close();
      rmSync(stateDir, { recursive: true, force: true });
    },
  };
}

/** A display online over the Unix socket (as the data plane passes control sockets on), and a projection to `port`. */
async function project(native: NativeGateway, port: number): Promise<{ sessionId: string; sessionToken: string; control: WebSocket; queue: MessageQueue }> {
  const control = new WebSocket(`ws+unix://${native.upstream}:/v1/displays/lab/control`, 'lanterna.v1', { headers: { host: '127.0.0.1:8443', 'x-forwarded-for': CLIENT } });
  await new Promise((resolve, reject) => { control.once('open', resolve); control.once('error', reject); });
  const queue = new MessageQueue(control);
  control.send(JSON.stringify({ type: 'hello', protocol: 1, token: TOKEN, client: 'lanterna-test/1' }));
  await queue.nextText('welcome');
  const projected = await native.http('POST', '/v1/admin/sessions', { displayId: 'lab', target: { host: '127.0.0.1', port } });
  assert.equal(projected.status, 202, projected.text);
  const message = await queue.nextText('project');
  return { sessionId: String(message.sessionId), sessionToken: String(message.sessionToken), control, queue };
}

async function sessionRecord(native: NativeGateway, sessionId: string): Promise<Record<string, unknown> | undefined> {
  const listed = JSON.parse((await native.http('GET', '/v1/admin/sessions')).text) as { sessions: Record<string, unknown>[] };
  return listed.sessions.find((session) => session.sessionId === sessionId);
}

void test('configure carries the gateway\'s settings and tables; our HTTP is on a private Unix socket; admit makes onUpgrade\'s checks', async (t) => {
  const native = await startNativeGateway();
  t.after(() => native.close());
  const config = native.configure.config as Record<string, Record<string, unknown>>;
  assert.deepEqual(config.listen, { host: '127.0.0.1', port: 18443, tls: false, reusePort: false });
  assert.equal(config.subprotocol, 'lanterna.v1');
  assert.deepEqual(config.errors?.internal, { message: 'an internal error in the gateway', close: 1011 });
  assert.deepEqual(config.relay, { highWaterBytes: 1024 * 1024, lowWaterBytes: 256 * 1024, maxFrameBytes: 256 * 1024, idleTimeoutMs: 30 * 60 * 1000, maxBacklogBytes: 4 * 1024 * 1024, presenterBytesPerSecond: 16 * 1024 * 1024 });
  assert.equal(config.limits?.maxSessions, 5000);
  assert.equal(config.limits.maxHeaderBytes, 16 * 1024, 'the one request-head limit, as Node\'s own server has it');
  assert.equal(config.timeouts?.tlsHandshakeMs, 10000);
  assert.equal(config.timeouts.writeMs, 10000);
  assert.equal(statSync(native.upstream).mode & 0o777, 0o600, 'the socket is the owner\'s only');
  assert.equal(statSync(dirname(native.upstream)).mode & 0o777, 0o700, 'in a directory only the owner enters');

  assert.deepEqual((await native.driver.request('admit', { host: '127.0.0.1:18443', clientAddress: CLIENT })).ok, { status: 0 });
  assert.deepEqual((await native.driver.request('admit', { host: 'elsewhere.example', clientAddress: CLIENT })).ok, { status: 421 });
  assert.deepEqual((await native.driver.request('admit', { host: '127.0.0.1:18443', origin: 'https://evil.example', clientAddress: CLIENT })).ok, { status: 403 });
  assert.deepEqual((await native.driver.request('admit', { host: '127.0.0.1:18443', origin: 'http://127.0.0.1:18443', clientAddress: CLIENT })).ok, { status: 0 });

  // Health, metrics, the OpenAPI document: through the front door's socket as before.
  assert.equal((await overUnixSocket(native.upstream, 'GET', '/healthz', {})).status, 200);
  assert.match(await native.metrics(), /lanterna_sessions_active 0/);
  assert.equal((await overUnixSocket(native.upstream, 'GET', '/metrics', {})).status, 401, 'metrics still need a token');
});

void test('a session\'s decisions: open, resolve, certificate, secured, samples, an admin\'s stop, ended — in the broker, the admin API and /metrics', async (t) => {
  const native = await startNativeGateway();
  t.after(() => native.close());
  const { driver } = native;
  const { sessionId, sessionToken, control } = await project(native, 33890);
  t.after(() => control.close());
  // The admin's address is the data plane's client, not what the client wrote before it.
  const audit = (await native.http('GET', '/v1/admin/audit')).text;
  assert.match(audit, new RegExp(`admin@${CLIENT.replaceAll('.', '\\.')}`));

  // A second socket with a wrong token is refused at open; its end does not end the session.
  const wrong = await driver.request('open', { sessionId, token: 'forged', clientAddress: CLIENT });
  assert.equal((wrong.error as Record<string, unknown>).phase, 'open');
  driver.send({ op: 'ended', sessionId, reason: 'error', seconds: 0, error: { ...(wrong.error as object), internal: {} } });

  const opened = await driver.request('open', { sessionId, token: sessionToken, clientAddress: CLIENT });
  assert.deepEqual(opened, { id: opened.id, ok: { displayId: 'lab' } });
  await waitFor('the booking sampled at once', async () => (await sessionRecord(native, sessionId))?.stats !== undefined);
  assert.notEqual((await sessionRecord(native, sessionId))?.state, 'ended', 'the refused socket did not end it');

  assert.deepEqual((await driver.request('resolve', { sessionId })).ok, { host: '127.0.0.1', port: 33890, address: '127.0.0.1' });
  const trusted = await driver.request('certificate', { sessionId, host: '127.0.0.1', port: 33890, address: '127.0.0.1', fingerprint: FINGERPRINT_A, caVerified: false, caError: 'self-signed' });
  assert.deepEqual(trusted.ok, { trust: 'first-use' });
  for (const phase of ['connect', 'x224', 'tls']) driver.send({ op: 'phase', phase, ms: 2.5 });
  driver.send({ op: 'secured', sessionId, address: '127.0.0.1', protocol: 'hybrid', tlsVersion: 'TLSv1.3', cipher: 'TLS_AES_128_GCM_SHA256', trust: 'first-use', fingerprint: FINGERPRINT_A });
  await waitFor('the session active in the broker', async () => (await sessionRecord(native, sessionId))?.state === 'active');

  const bounds = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.02, 0.04, 0.08, 0.16, 0.5];
  driver.send({
    op: 'sample',
    sessions: [{ sessionId, bytesToDisplay: 9000, bytesToServer: 1000, pdusToDisplay: 30, framesToDisplay: 20 }, { sessionId: 'not-ours', bytesToDisplay: 1, bytesToServer: 1, pdusToDisplay: 1, framesToDisplay: 1 }],
    tally: { bytesToKiosk: 9000, pdusToKiosk: 30, framesToKiosk: 20, bytesToServer: 1000, pdusToServer: 4, framesToServer: 4, copiedBytes: 12, pauses: 1 },
    latency: { bounds, counts: [0, 0, 5, 10, 5, 0, 0, 0, 0, 0, 0, 0, 0], sum: 0.02 },
  });
  await waitFor('the figures in the admin API', async () => ((await sessionRecord(native, sessionId))?.stats as Record<string, unknown> | undefined)?.bytesToDisplay === 9000);
  const metrics = await native.metrics();
  assert.match(metrics, /lanterna_sessions_active 1\n/);
  assert.match(metrics, /lanterna_sessions_total 1\n/);
  assert.match(metrics, /lanterna_relay_bytes_total\{direction="to-kiosk"\} 9000\n/);
  assert.match(metrics, /lanterna_relay_bytes_total\{direction="to-server"\} 1000\n/);
  assert.match(metrics, /lanterna_relay_copied_bytes_total 12\n/);
  assert.match(metrics, /lanterna_relay_latency_seconds_bucket\{le="0\.001"\} 15\n/);
  assert.match(metrics, /lanterna_relay_latency_seconds_count 20\n/);
  assert.match(metrics, /lanterna_handshake_phase_seconds_count\{phase="tls"\} 1\n/);
  assert.match(metrics, /lanterna_session_errors_total\{phase="open",code="unauthorized"\} 1\n|lanterna_session_errors_total\{phase="open",code="[a-z-]+"\} 1\n/);

  const received = driver.received.length;
  assert.equal((await native.http('DELETE', `/v1/admin/sessions/${sessionId}`)).status, 202);
  const stop = await driver.next('stop', received);
  assert.deepEqual(stop, { op: 'stop', sessionId, reason: 'stopped' });
  driver.send({ op: 'ended', sessionId, reason: 'stopped', seconds: 1.5 });
  await waitFor('the session ended in the broker', async () => (await sessionRecord(native, sessionId))?.state === 'ended');
  assert.equal((await sessionRecord(native, sessionId))?.endReason, 'stopped');
  assert.match(await native.metrics(), /lanterna_sessions_active 0\n/);
});

void test('a browser source\'s decisions: open says presenter, present judges the page\'s first message as the Node engine does, a stop reaches a waiting page, presenter-ended is counted', async (t) => {
  const native = await startNativeGateway();
  t.after(() => native.close());
  const { driver } = native;
  const control = new WebSocket(`ws+unix://${native.upstream}:/v1/displays/lab/control`, 'lanterna.v1', { headers: { host: '127.0.0.1:8443', 'x-forwarded-for': CLIENT } });
  t.after(() => control.close());
  await new Promise((resolve, reject) => { control.once('open', resolve); control.once('error', reject); });
  const queue = new MessageQueue(control);
  control.send(JSON.stringify({ type: 'hello', protocol: 1, token: TOKEN, client: 'lanterna-test/1', features: ['room'] }));
  await queue.nextText('welcome');
  // the room's PIN rotates after each use: its `room` messages come between the others
  let pin = '';
  const nextOf = async (type: string): Promise<Record<string, unknown>> => {
    for (;;) {
      const message = await queue.nextText();
      if (message.type === 'room') pin = String(message.pin);
      if (message.type === type) return message;
    }
  };
  await nextOf('room');
  const askBrowser = (): Promise<{ status: number; text: string }> => overUnixSocket(native.upstream, 'POST', '/v1/displays/lab/projection',
    { host: '127.0.0.1:8443', 'content-type': 'application/json', 'x-lanterna-presenter': '1', 'x-forwarded-for': CLIENT }, JSON.stringify({ pin, source: 'browser' }));
  const asked = await askBrowser();
  assert.equal(asked.status, 202, asked.text);
  const started = JSON.parse(asked.text) as { sessionId: string; presenter: { token: string } };
  const project = await nextOf('project');
  const sessionId = String(project.sessionId);

  // the page's first message, whole: refused as the Node engine refuses it
  const binary = await driver.request('present', { sessionId, clientAddress: CLIENT });
  assert.equal((binary.error as Record<string, unknown>).code, 'bad-message');
  assert.match(String((binary.error as Record<string, unknown>).message), /the first message must be present/);
  const wrongType = await driver.request('present', { sessionId, message: JSON.stringify({ type: 'open', token: started.presenter.token }), clientAddress: CLIENT });
  assert.equal((wrongType.error as Record<string, unknown>).code, 'bad-message');
  const displayToken = await driver.request('present', { sessionId, message: JSON.stringify({ type: 'present', token: String(project.sessionToken), publicKey: 'AAAA' }), clientAddress: CLIENT });
  assert.equal((displayToken.error as Record<string, unknown>).code, 'unauthorized');
  const certificate = Buffer.from('a certificate').toString('base64');
  const present = JSON.stringify({ type: 'present', token: started.presenter.token, publicKey: 'AAAA', certificate });
  const admitted = await driver.request('present', { sessionId, message: present, clientAddress: CLIENT });
  const answer = admitted.ok as Record<string, unknown>;
  assert.ok(typeof answer.waitMs === 'number' && answer.waitMs > 0, JSON.stringify(admitted));
  assert.deepEqual({ certificates: answer.certificates, publicKey: answer.publicKey }, { certificates: [certificate], publicKey: 'AAAA' });
  assert.match(String(answer.fingerprint), /^sha256:([0-9A-F]{2}:){31}[0-9A-F]{2}$/);
  const again = await driver.request('present', { sessionId, message: present, clientAddress: CLIENT });
  assert.equal((again.error as Record<string, unknown>).code, 'unauthorized', 'the presenter token is single-use');

  // a stop while the page waits reaches the data plane
  const received = driver.received.length;
  const stopped = await overUnixSocket(native.upstream, 'DELETE', '/v1/displays/lab/projection',
    { host: '127.0.0.1:8443', 'x-lanterna-presenter': '1', 'x-lanterna-stop-token': (JSON.parse(asked.text) as { stopToken: string }).stopToken, 'x-forwarded-for': CLIENT });
  assert.equal(stopped.status, 202, stopped.text);
  assert.deepEqual(await driver.next('stop', received), { op: 'stop', sessionId, reason: 'stopped' });
  driver.send({ op: 'presenter-ended', sessionId, reason: 'error', error: { phase: 'open', code: 'bad-message', message: 'the presenter page sent data before the display joined', detail: {}, internal: {} } });
  await waitFor('the page\'s error counted', async () => /lanterna_session_errors_total\{phase="open",code="bad-message"\} 1\n/.test(await native.metrics()));

  // the display's open of a browser source says so: no resolve, the data plane joins its page
  await nextOf('stop');
  const asked2 = await askBrowser();
  assert.equal(asked2.status, 202, asked2.text);
  const project2 = await nextOf('project');
  const opened = await driver.request('open', { sessionId: String(project2.sessionId), token: String(project2.sessionToken), clientAddress: CLIENT });
  assert.deepEqual(opened.ok, { displayId: 'lab', presenter: true });
  assert.equal(((await driver.request('resolve', { sessionId: String(project2.sessionId) })).error as Record<string, unknown>).code, 'target-forbidden');
  driver.send({ op: 'ended', sessionId: String(project2.sessionId), reason: 'client-closed', seconds: 0 });
});

void test('refusals: a changed certificate with what the display may see, a resolve for no session, garbage lines survived; drain asked of the data plane', async (t) => {
  const native = await startNativeGateway();
  const { driver } = native;
  let closed = false;
  t.after(async () => { if (!closed) await native.close(); });
  // The first session pins FINGERPRINT_A for 127.0.0.1:33891.
  const first = await project(native, 33891);
  t.after(() => first.control.close());
  await driver.request('open', { sessionId: first.sessionId, token: first.sessionToken, clientAddress: CLIENT });
  await driver.request('resolve', { sessionId: first.sessionId });
  assert.deepEqual((await driver.request('certificate', { sessionId: first.sessionId, host: '127.0.0.1', port: 33891, address: '127.0.0.1', fingerprint: FINGERPRINT_A, caVerified: false })).ok, { trust: 'first-use' });
  driver.send({ op: 'ended', sessionId: first.sessionId, reason: 'client-closed', seconds: 0.1 });
  await waitFor('the first session ended', async () => (await sessionRecord(native, first.sessionId))?.state === 'ended');

  const second = await project(native, 33891);
  await driver.request('open', { sessionId: second.sessionId, token: second.sessionToken, clientAddress: CLIENT });
  await driver.request('resolve', { sessionId: second.sessionId });
  const changed = await driver.request('certificate', { sessionId: second.sessionId, host: '127.0.0.1', port: 33891, address: '127.0.0.1', fingerprint: FINGERPRINT_B, caVerified: false });
  const refusal = changed.error as Record<string, unknown>;
  assert.equal(refusal.phase, 'tls');
  assert.equal(refusal.code, 'certificate-changed');
  assert.deepEqual(refusal.detail, { fingerprint: FINGERPRINT_B, expected: FINGERPRINT_A }, 'which keys were pinned stays in the log');
  driver.send({ op: 'ended', sessionId: second.sessionId, reason: 'error', seconds: 0.2, error: { ...refusal, internal: {} } });
  await waitFor('the second session ended with the code', async () => (await sessionRecord(native, second.sessionId))?.endReason === 'certificate-changed');
  assert.match(await native.metrics(), /lanterna_session_errors_total\{phase="tls",code="certificate-changed"\} 1\n/);

  const unknown = await driver.request('resolve', { sessionId: 'never-opened' });
  assert.deepEqual(unknown.error, { phase: 'connect', code: 'internal', message: 'an internal error in the gateway', detail: {} });
  // off the contract (the protocol package's dataPlaneContract.ts): a request without the field its op needs is an internal error, not a field read as undefined
  const offContract = await driver.request('resolve', { session: 'renamed' });
  assert.deepEqual(offContract.error, { phase: 'relay', code: 'internal', message: 'an internal error in the gateway', detail: {} });
  driver.send({ op: 'ended', sessionId: second.sessionId, reason: 'error' });
  driver.send('this is not json');
  driver.send(`{"op":"sample","pad":"${'x'.repeat(1024 * 1024)}"}`);
  assert.deepEqual((await driver.request('admit', { host: '127.0.0.1', clientAddress: CLIENT })).ok, { status: 0 }, 'the channel goes on after bad lines');

  // close(): draining (admit says 503), the drain asked of the data plane with its deadline, then the data plane ended.
  const received = driver.received.length;
  const closing = native.close(false);
  closed = true;
  const drain = await driver.next('drain', received);
  assert.equal(drain.deadlineMs, 500);
  assert.deepEqual((await driver.request('admit', { host: '127.0.0.1', clientAddress: CLIENT })).ok, { status: 503 });
  driver.send({ id: drain.id as number, ok: {} });
  await closing;
  await driver.ended;
});

void test('the data plane: missing, a start-up error naming it; exiting while the gateway runs, reported to the owner', async (t) => {
  await assert.rejects(
    startNativeGateway({ binary: join(tmpdir(), 'no-such-dir', 'lanterna-dataplane') }),
    /the native data plane \(.*no-such-dir.*\) cannot be run: ENOENT/,
  );
  let exited: Error | undefined;
  const native = await startNativeGateway({ onDataPlaneExit: (error) => { exited = error; } });
  // Nothing is left to answer the drain.
  t.after(() => native.close(false));
  native.driver.close();
  await waitFor('the exit reported', () => exited !== undefined);
  assert.match(String(exited), /the data plane exited/);
});
