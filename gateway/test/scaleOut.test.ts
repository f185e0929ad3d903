// Several gateways behind Debian's HAProxy sharing one Redis (real processes:
// the gateway CLI, haproxy, redis-server): any gateway serves any display's
// sockets and any request; a display is booked once and a session token opens
// once across all of them; a kiosk whose gateway is killed comes back through
// another and its projection resumes; Redis away is said, refused and survived.
// HAProxy runs as an HTTP proxy that names the client in X-Forwarded-For and
// the gateways trust it (listen.trustedProxies): clients behind it keep their
// own wrong-PIN budgets, and a client's own X-Forwarded-For is ignored.
// Whoever can read that Redis (SUBSCRIBE, KEYS, GET) finds no credentials,
// session token or room PIN, and deleting a wrong-PIN counter does not lift
// a lockout.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import {
  startRedis, startGatewayProcess, startHaproxyProcess, startFaultyPeer, startReconnectingKiosk, connectControl, openControlInbox, openData, waitFor,
  type GatewayProcess, type RedisServer,
} from '@lanterna/testkit';
import { buildConnectionRequest, PROTOCOL } from '@lanterna/protocol';

const ADMIN = 'admin-token-farm-0123456789';
const SECRET = 'session-secret-shared-by-the-farm-0123456789';
const TOKEN = 'display-token-farm-0123456789';
const admin = { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' };

/** `broker(i)`: how gateway i reaches Redis (its URL by default). */
async function farm(t: TestContext, count: number, redis: RedisServer, broker: (i: number) => Record<string, unknown> = () => ({ redisUrl: redis.url })): Promise<GatewayProcess[]> {
  const gateways: GatewayProcess[] = [];
  for (let i = 0; i < count; i += 1) {
    const gateway = await startGatewayProcess({
      broker: { store: 'redis', resumeGraceMs: 30_000, ...broker(i) },
      adminToken: ADMIN, sessionSecret: SECRET,
      // HAProxy (on this host) says who the client is; nobody else may.
      listen: { trustedProxies: ['127.0.0.1'] },
      roomPin: { perSource: { max: 2, windowMs: 60_000 } },
      displays: [{ id: 'room', token: TOKEN, name: 'Room 1' }, { id: 'hall', token: TOKEN, name: 'Hall' }],
      certificates: { mode: 'insecure' },
      logLevel: process.env.LANTERNA_TEST_LOG ?? 'info',
    });
    t.after(() => gateway.close());
    gateways.push(gateway);
  }
  return gateways;
}

function project(gateway: GatewayProcess, displayId: string, port: number): Promise<Response> {
  return fetch(`${gateway.httpUrl}/v1/admin/sessions`, { method: 'POST', headers: admin, body: JSON.stringify({ displayId, target: { host: '127.0.0.1', port } }) });
}

const ws = (gateway: GatewayProcess): string => `ws://127.0.0.1:${gateway.port}`;

/** Redis, an echo server, gateways A and B on that Redis, and the display `room` online on A; all closed after the test. */
async function roomOnA(t: TestContext, redisOptions: Parameters<typeof startRedis>[0] = {}): Promise<{ redis: RedisServer; peer: Awaited<ReturnType<typeof startFaultyPeer>>; a: GatewayProcess; b: GatewayProcess; control: Awaited<ReturnType<typeof connectControl>> }> {
  const redis = await startRedis(redisOptions);
  t.after(() => redis.close());
  const peer = await startFaultyPeer('echo');
  t.after(() => peer.close());
  const [a, b] = await farm(t, 2, redis);
  assert.ok(a && b);
  const control = await connectControl(ws(a), 'room', TOKEN);
  t.after(() => control.close());
  return { redis, peer, a, b, control };
}

test('two gateways, one Redis: a display online on A is projected through B, booked once, its token opens once, its figures and its stop cross over', { timeout: 90_000 }, async (t) => {
  const { peer, a, b, control } = await roomOnA(t);

  const created = await project(b, 'room', peer.port);
  assert.equal(created.status, 202, await created.clone().text());
  const { sessionId } = await created.json() as { sessionId: string };
  const message = await control.next('project');
  assert.equal(message.sessionId, sessionId, 'the request through B reached the display on A');

  const twice = await project(a, 'room', peer.port);
  assert.equal(twice.status, 409);
  assert.equal((await twice.json() as { code: string }).code, 'display-busy');

  const data = await openData(ws(b), sessionId, String(message.sessionToken));
  data.socket.send(buildConnectionRequest({ requestedProtocols: PROTOCOL.SSL }));
  await data.queue.nextText('secured');
  await data.queue.nextBinary();
  const replay = await openData(ws(a), sessionId, String(message.sessionToken));
  const refused = await replay.queue.closed();
  assert.equal(refused.error?.code, 'unauthorized', 'the token was already used on B');

  const probe = Buffer.from([0x03, 0x00, 0x00, 0x0c, 0x02, 0xf0, 0x80, 1, 2, 3, 4, 5]);
  data.socket.send(probe);
  assert.deepEqual(await data.queue.nextBinary(), probe);
  await waitFor('the session\'s figures seen through A', async () => {
    const { sessions } = await (await fetch(`${a.httpUrl}/v1/admin/sessions?state=live`, { headers: admin })).json() as { sessions: { sessionId: string; stats?: { bytesToDisplay: number }; live: boolean }[] };
    const live = sessions.find((session) => session.sessionId === sessionId);
    return (live?.stats?.bytesToDisplay ?? 0) >= probe.length;
  }, 10_000, 250);

  const stop = await fetch(`${a.httpUrl}/v1/admin/sessions/${sessionId}`, { method: 'DELETE', headers: admin });
  assert.equal(stop.status, 202);
  const ended = await data.queue.nextText('ended');
  assert.equal(ended.reason, 'stopped', 'the stop asked of A ended the relay on B');
  await waitFor('the display is free again', async () => (await project(a, 'room', peer.port)).status === 202, 10_000, 250);
});

test('two gateways, one Redis: the volume and mute an admin sets through B reach the display on A at once, both list them, and a display that connects later is sent them', { timeout: 90_000 }, async (t) => {
  const redis = await startRedis();
  t.after(() => redis.close());
  const [a, b] = await farm(t, 2, redis);
  assert.ok(a && b);
  const control = await connectControl(ws(a), 'room', TOKEN, undefined, { features: ['sound'] });
  t.after(() => control.close());
  assert.deepEqual(await control.next('sound'), { type: 'sound', volume: 100, muted: false }, 'full volume until an admin says otherwise');

  const set = async (gateway: GatewayProcess, body: unknown): Promise<Response> => fetch(`${gateway.httpUrl}/v1/admin/displays/room/sound`, { method: 'PATCH', headers: admin, body: JSON.stringify(body) });
  const changed = await set(b, { volume: 35 });
  assert.equal(changed.status, 200, await changed.clone().text());
  assert.deepEqual(await changed.json(), { sound: { volume: 35, muted: false } });
  assert.deepEqual(await control.next('sound'), { type: 'sound', volume: 35, muted: false }, 'the change asked of B reached the page on A');
  assert.deepEqual(await (await set(a, { muted: true })).json(), { sound: { volume: 35, muted: true } }, 'the volume set through B stays when A mutes');
  assert.deepEqual(await control.next('sound'), { type: 'sound', volume: 35, muted: true });
  for (const gateway of [a, b]) {
    const { displays } = await (await fetch(`${gateway.httpUrl}/v1/admin/displays`, { headers: admin })).json() as { displays: { id: string; sound: unknown }[] };
    assert.deepEqual(displays.find((display) => display.id === 'room')?.sound, { volume: 35, muted: true });
  }
  assert.equal((await set(b, { volume: 101 })).status, 400);
  assert.equal((await set(b, {})).status, 400);
  assert.equal((await fetch(`${b.httpUrl}/v1/admin/displays/nowhere/sound`, { method: 'PATCH', headers: admin, body: JSON.stringify({ muted: false }) })).status, 404);

  control.close();
  const later = await connectControl(ws(b), 'room', TOKEN, undefined, { features: ['sound'] });
  assert.deepEqual(await later.next('sound'), { type: 'sound', volume: 35, muted: true }, 'a display that comes back through B is sent what was set');
  later.close();
  const old = await connectControl(ws(a), 'room', TOKEN);
  t.after(() => old.close());
  await set(a, { volume: 10 });
  await assert.rejects(old.next('sound', 500), 'a display that did not announce sound is not sent it');
});

test('kill -9 of the gateway holding a kiosk: the kiosk comes back through HAProxy on the other and its projection resumes within 5 s', { timeout: 90_000 }, async (t) => {
  const redis = await startRedis();
  t.after(() => redis.close());
  const peer = await startFaultyPeer('echo');
  t.after(() => peer.close());
  const gateways = await farm(t, 2, redis);
  // `balance source`: a kiosk's two sockets land on one gateway, as on a LAN; a dead one is skipped.
  const haproxy = await startHaproxyProcess({ backendPorts: gateways.map((gateway) => gateway.port), balance: 'source', checkInterval: '500ms', forwardFor: true });
  t.after(() => haproxy.close());
  const kiosk = startReconnectingKiosk(`ws://127.0.0.1:${haproxy.port}`, 'room', TOKEN);
  t.after(() => kiosk.close());
  await waitFor('the kiosk online', () => kiosk.connections === 1, 10_000);
  // Its gateway's log line comes through a stdout pipe, possibly after the kiosk heard its hello.
  const online = (gateway: (typeof gateways)[number]): boolean => gateway.logs.some((entry) => entry.msg === 'display online');
  await waitFor('a gateway logs the display online', () => gateways.some(online), 5_000);
  const holder = gateways.find(online);
  const other = gateways.find((gateway) => gateway !== holder);
  assert.ok(holder && other);

  assert.equal((await project(other, 'room', peer.port)).status, 202);
  const first = await kiosk.securedSession(0);
  // The holder's log line comes through its stdout pipe, possibly after the kiosk already saw `secured`.
  await waitFor('the session relays on the gateway holding the kiosk', () => holder.logs.some((entry) => entry.sessionId === first.sessionId && entry.event === 'secured'), 5_000);

  const killedAt = performance.now();
  await holder.kill();
  const resumed = await kiosk.securedSession(1, 15_000).catch((error: unknown) => {
    t.diagnostic(JSON.stringify(other.logs.slice(-15)));
    t.diagnostic(JSON.stringify(kiosk.sessions.map((session) => [session.sessionId, session.securedAt, session.error])));
    throw error;
  });
  const seconds = ((resumed.securedAt ?? 0) - killedAt) / 1000;
  t.diagnostic(`projection back ${seconds.toFixed(2)} s after kill -9 (kiosk reconnects: ${kiosk.connections})`);
  assert.ok(seconds < 5, `resumed within 5 s (${seconds.toFixed(2)} s)`);
  assert.notEqual(resumed.sessionId, first.sessionId);
  assert.ok(other.logs.some((entry) => entry.event === 'projection-resumed'));
  const probe = Buffer.from([0x03, 0x00, 0x00, 0x08, 0x02, 0xf0, 0x80, 9]);
  await resumed.queue.nextBinary(); // the Connection Confirm
  resumed.socket.send(probe);
  assert.deepEqual(await resumed.queue.nextBinary(), probe, 'the resumed session relays');
  const sessions = await (await fetch(`${other.httpUrl}/v1/admin/sessions`, { headers: admin })).json() as { sessions: { sessionId: string; endReason?: string }[] };
  assert.equal(sessions.sessions.find((session) => session.sessionId === first.sessionId)?.endReason, 'gateway-lost');
});

test('Redis stopped: /readyz and the logs say so, new projections are refused clearly, running sessions relay on; all recovers when it returns', { timeout: 90_000 }, async (t) => {
  const { redis, peer, a, b, control } = await roomOnA(t, { persistent: true });
  assert.equal((await project(b, 'room', peer.port)).status, 202);
  const message = await control.next('project');
  const data = await openData(ws(a), String(message.sessionId), String(message.sessionToken));
  data.socket.send(buildConnectionRequest({ requestedProtocols: PROTOCOL.SSL }));
  await data.queue.nextText('secured');
  await data.queue.nextBinary();

  await redis.stop();
  for (const gateway of [a, b]) {
    await waitFor('readyz says redis is down', async () => {
      const ready = await fetch(`${gateway.httpUrl}/readyz`);
      return ready.status === 503 && /redis at redis:\/\/127\.0\.0\.1:\d+\/? is unreachable/.test(await ready.text());
    }, 10_000, 100);
    await gateway.waitForLog('a redis-down log line', (entry) => entry.event === 'redis-down' && entry.level === 50, 10_000);
  }
  const refused = await project(b, 'hall', peer.port);
  assert.equal(refused.status, 503);
  const body = await refused.json() as { code: string; message: string };
  assert.equal(body.code, 'store-unavailable');
  assert.match(body.message, /broker store is unreachable.*redis/);
  for (let i = 0; i < 3; i += 1) {
    const probe = Buffer.from([0x03, 0x00, 0x00, 0x08, 0x02, 0xf0, 0x80, i]);
    data.socket.send(probe);
    assert.deepEqual(await data.queue.nextBinary(), probe, 'the running session relays without redis');
  }

  await redis.start();
  for (const gateway of [a, b]) {
    await waitFor('readyz ready again', async () => (await fetch(`${gateway.httpUrl}/readyz`)).status === 200, 15_000, 100);
    await gateway.waitForLog('a redis-up log line after the outage', (entry) => entry.event === 'redis-up' && gateway.logs.indexOf(entry) > gateway.logs.findIndex((e) => e.event === 'redis-down'), 10_000);
  }
  await waitFor('the running session booked its display again', async () => (await project(b, 'room', peer.port)).status === 409, 10_000, 250);
  const again = await project(b, 'hall', peer.port);
  assert.equal(again.status, 202, await again.clone().text());
  const probe = Buffer.from([0x03, 0x00, 0x00, 0x08, 0x02, 0xf0, 0x80, 7]);
  data.socket.send(probe);
  assert.deepEqual(await data.queue.nextBinary(), probe);
});

/** A presenter's POST from a chosen local address (loopback has all of 127/8), with extra headers. */
function presenterPost(port: number, localAddress: string, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: { code?: string; attemptsLeft?: number; sessionId?: string } }> {
  return new Promise((resolve, reject) => {
    const request = httpRequest({
      host: '127.0.0.1', port, localAddress, method: 'POST', path: '/v1/displays/room/projection',
      headers: { 'content-type': 'application/json', 'x-lanterna-presenter': '1', ...headers },
    }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => { text += chunk; });
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body: JSON.parse(text) as { code?: string; attemptsLeft?: number } }));
    });
    request.once('error', reject);
    request.end(JSON.stringify(body));
  });
}

test('behind HAProxy (X-Forwarded-For, trusted): two clients get separate wrong-PIN budgets across both gateways; a client\'s own X-Forwarded-For is ignored', { timeout: 90_000 }, async (t) => {
  const redis = await startRedis();
  t.after(() => redis.close());
  const gateways = await farm(t, 2, redis);
  const [a] = gateways;
  assert.ok(a);
  const haproxy = await startHaproxyProcess({ backendPorts: gateways.map((gateway) => gateway.port), balance: 'roundrobin', forwardFor: true });
  t.after(() => haproxy.close());
  const control = await connectControl(ws(a), 'room', TOKEN, undefined, { features: ['room'] });
  t.after(() => control.close());
  const { pin } = await control.next('room') as { pin: string };
  const wrong = { target: { host: '127.0.0.1', port: 3389 }, pin: pin === '000000' ? '000001' : '000000' };

  // Round robin: the two tries of one client land on different gateways; the budget is the farm's (Redis).
  const first = await presenterPost(haproxy.port, '127.0.0.2', wrong);
  assert.deepEqual([first.status, first.body.code, first.body.attemptsLeft], [403, 'pin-wrong', 1]);
  const second = await presenterPost(haproxy.port, '127.0.0.2', wrong);
  assert.deepEqual([second.status, second.body.code], [429, 'pin-locked'], 'the second wrong PIN from 127.0.0.2 spends its budget');
  const other = await presenterPost(haproxy.port, '127.0.0.3', wrong);
  assert.deepEqual([other.status, other.body.code, other.body.attemptsLeft], [403, 'pin-wrong', 1], 'another client behind the same proxy has its own budget');

  // Straight to a gateway from an address it does not trust: its X-Forwarded-For changes nothing.
  const forged = await presenterPost(a.port, '127.0.0.2', wrong, { 'x-forwarded-for': '192.0.2.77' });
  assert.deepEqual([forged.status, forged.body.code], [429, 'pin-locked'], 'still counted as 127.0.0.2');
  // And a forged hop sent through the proxy is not reached: HAProxy appends the real client, which is read first.
  const prepended = await presenterPost(haproxy.port, '127.0.0.2', wrong, { 'x-forwarded-for': '192.0.2.78' });
  assert.deepEqual([prepended.status, prepended.body.code], [429, 'pin-locked']);

  const { entries } = await (await fetch(`${a.httpUrl}/v1/admin/audit`, { headers: admin })).json() as { entries: { actor: string; action: string; detail?: { code?: string } }[] };
  const actors = new Set(entries.filter((entry) => entry.action === 'projection-refused').map((entry) => entry.actor));
  assert.deepEqual([...actors].sort(), ['presenter@127.0.0.2', 'presenter@127.0.0.3'], 'the audit log names the clients, not the proxy');
});

/** Every key under `prefix` and what it holds, as text: what anyone holding Redis's password reads. */
async function readAllOfRedis(reader: Redis, prefix: string): Promise<Map<string, string>> {
  const contents = new Map<string, string>();
  for (const key of await reader.keys(`${prefix}*`)) {
    const type = await reader.type(key);
    const value = type === 'string' ? await reader.get(key)
      : type === 'hash' ? JSON.stringify(await reader.hgetall(key))
        : type === 'zset' ? JSON.stringify(await reader.zrange(key, 0, -1, 'WITHSCORES'))
          : type === 'set' ? JSON.stringify(await reader.smembers(key))
            : type === 'list' ? JSON.stringify(await reader.lrange(key, 0, -1)) : `(${type})`;
    contents.set(key, value ?? '');
  }
  return contents;
}

test('a reader of the farm\'s Redis finds no credentials, session token or room PIN on the event channel or in any key; a deleted wrong-PIN counter keeps its lockout', { timeout: 90_000 }, async (t) => {
  const password = 'redis-password-of-the-farm-5d1c';
  const redis = await startRedis({ password });
  t.after(() => redis.close());
  const dir = mkdtempSync(join(tmpdir(), 'lanterna-redis-secret-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const passwordFile = join(dir, 'redis-password');
  writeFileSync(passwordFile, `${password}\n`, { mode: 0o600 });
  const peer = await startFaultyPeer('echo');
  t.after(() => peer.close());
  // A reads the password from a file (a Docker secret), B from its URL.
  const [a, b] = await farm(t, 2, redis, (i) => (i === 0 ? { redisUrl: redis.bareUrl, redisPasswordFile: passwordFile } : { redisUrl: redis.url }));
  assert.ok(a && b);
  const reader = new Redis(redis.url);
  const listener = new Redis(redis.url);
  for (const client of [reader, listener]) client.on('error', () => { /* Redis stops first at the end */ });
  t.after(() => { reader.disconnect(); listener.disconnect(); });
  const heard: string[] = [];
  listener.on('message', (_channel: string, text: string) => heard.push(text));
  await listener.subscribe('lanterna:events');
  const anonymous = new Redis(redis.bareUrl, { lazyConnect: true, enableReadyCheck: false, maxRetriesPerRequest: 0, retryStrategy: () => null });
  anonymous.on('error', () => { /* the rejection below */ });
  await assert.rejects(anonymous.ping(), /NOAUTH/, 'no answer without the password');
  anonymous.disconnect();

  // The new PIN and the `project` it let in may come in either order: read them by type.
  const control = await openControlInbox(a.httpUrl, 'room', TOKEN, { features: ['room'] });
  t.after(() => control.close());
  const { pin } = await control.take('room') as { pin: string };
  const wrong = { target: { host: '127.0.0.1', port: peer.port }, pin: pin === '000000' ? '000001' : '000000' };

  // Two wrong PINs lock 127.0.0.2 out (perSource max 2); deleting the counters in Redis must not let it try again.
  assert.equal((await presenterPost(a.port, '127.0.0.2', wrong)).body.code, 'pin-wrong');
  assert.equal((await presenterPost(a.port, '127.0.0.2', wrong)).body.code, 'pin-locked');
  const counters = (await reader.keys('lanterna:*')).filter((key) => key.includes('pin-wrong'));
  assert.ok(counters.length >= 2, `the wrong-PIN counters are in redis (${counters.join(', ')})`);
  assert.equal(await reader.del(...counters), counters.length);
  const afterDelete = await presenterPost(a.port, '127.0.0.2', wrong);
  assert.deepEqual([afterDelete.status, afterDelete.body.code], [429, 'pin-locked'], 'the lockout outlives its deleted counter');
  await a.waitForLog('the deleted counter noticed', (entry) => entry.event === 'pin-counter-tampered', 5_000);
  const throughB = await presenterPost(b.port, '127.0.0.2', wrong);
  assert.deepEqual([throughB.status, throughB.body.code], [429, 'pin-locked'], 'the count was put back in redis for every gateway');

  // A presenter with the right PIN and credentials, through B, to the display on A.
  const before = heard.length;
  const credentials = { username: 'presenter-user-7f3a', password: 'presenter-password-9c1e' };
  const started = await presenterPost(b.port, '127.0.0.4', { ...wrong, pin, credentials });
  assert.equal(started.status, 202, JSON.stringify(started.body));
  const message = await control.take('project');
  assert.equal(message.sessionId, started.body.sessionId, 'the projection through B reached the display on A');
  assert.deepEqual(message.credentials, credentials, 'the display still gets the credentials');
  const token = String(message.sessionToken);
  const { pin: next } = await control.take('room') as { pin: string };
  assert.notEqual(next, pin, 'the used PIN rotated');
  await waitFor('the project event heard on the channel', () => heard.length > before, 5_000);
  await new Promise((resolve) => setTimeout(resolve, 250));

  const contents = await readAllOfRedis(reader, 'lanterna:');
  assert.ok(contents.get('lanterna:room-pins')?.includes('"room"'), 'the room PIN is kept in redis');
  assert.ok([...contents.keys()].some((key) => key.startsWith('lanterna:intent')), 'so is the projection to resume');
  const readable = [...heard, ...contents.keys(), ...contents.values()].join('\n');
  for (const secret of [credentials.password, credentials.username, token, token.split('.').at(-1) ?? token]) {
    assert.ok(!readable.includes(secret), `"${secret.slice(0, 12)}…" is not readable in redis`);
  }
  for (const shown of [pin, next]) assert.doesNotMatch(readable, new RegExp(`(?<![0-9])${shown}(?![0-9])`), `the room PIN ${shown} is not readable in redis`);
  for (const gateway of [a, b]) assert.ok(!gateway.logs.some((entry) => entry.event === 'redis-unauthenticated'), 'no warning: redis wants a password');
});

/** A GET from `localAddress` with a bearer token: its status. */
function getFrom(gateway: GatewayProcess, localAddress: string, path: string, token: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const request = httpRequest({ host: '127.0.0.1', port: gateway.port, localAddress, path, headers: { authorization: `Bearer ${token}` } }, (response) => {
      response.resume();
      resolve(response.statusCode ?? 0);
    });
    request.once('error', reject);
    request.end();
  });
}

test('wrong tokens count once across the farm: five on A\'s /metrics and five on B\'s admin API spend one address\'s budget on both', { timeout: 90_000 }, async (t) => {
  const redis = await startRedis();
  t.after(() => redis.close());
  const [a, b] = await farm(t, 2, redis);
  assert.ok(a && b);
  const guesser = '127.0.0.6';
  const wrong = 'wrong-token-farm-0123456789';
  for (let i = 0; i < 5; i += 1) assert.equal(await getFrom(a, guesser, '/metrics', wrong), 401);
  for (let i = 0; i < 5; i += 1) assert.equal(await getFrom(b, guesser, '/v1/admin/displays', wrong), 401);
  assert.equal(await getFrom(a, guesser, '/v1/admin/displays', ADMIN), 429, 'the eleventh check, on A, with the right token');
  assert.equal(await getFrom(b, guesser, '/metrics', ADMIN), 429);
  assert.equal(await getFrom(b, '127.0.0.1', '/metrics', ADMIN), 200, 'another address is not affected');
});
