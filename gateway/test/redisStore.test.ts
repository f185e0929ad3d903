// The Redis store's atomic checks against a real redis-server, from two
// connections (two gateways): one claim per session, one booking per display,
// no way back from ended, owner-checked presence, paged audit, first-use pins
// decided once. What a reader of that Redis sees: room PINs sealed and
// digested, never in clear; a deleted or rewritten wrong-PIN counter counted
// again; a gateway on a Redis that wants no password says so at start; one
// reaches a Redis over TLS (rediss://) with a private CA and a password file.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { Redis } from 'ioredis';
import { startRedis, waitFor } from '@lanterna/testkit';
import { RedisBrokerStore, RedisConnection, RedisPinStore, configSchema, openBrokerBackend } from '@lanterna/gateway';
import { twoRedisStores } from './twoRedisStores.js';

const SECRET = Buffer.from('session-secret-of-the-redis-tests-0123456789');

/** A logger whose JSON lines land in `lines`. */
function capturingLogger(): { logger: pino.Logger; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n')) if (line) lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  return { logger: pino({ level: 'debug' }, stream), lines };
}

test('two gateways on one Redis: claims, bookings, state moves, presence, audit and pins decided once', { timeout: 30_000 }, async (t) => {
  const { a, b, connections, redis } = await twoRedisStores(t, { sessionSecret: SECRET, prefix: 'test:' });
  const now = Date.now();

  await a.putSession({ sessionId: 's1', displayId: 'room', target: { host: '10.0.0.1', port: 3389, name: 'Desk' }, state: 'minted', mintedAt: now, expiresAt: now + 60_000, requestedBy: { kind: 'admin', address: '10.0.0.9' } });
  const claims = await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 ? a : b).claimSession('s1', now + 60_000)));
  assert.equal(claims.filter(Boolean).length, 1, 'one claim wins');
  const claimed = await b.getSession('s1');
  assert.equal(claimed?.state, 'claimed');
  assert.deepEqual(claimed.target, { host: '10.0.0.1', port: 3389, name: 'Desk' });
  assert.deepEqual(claimed.requestedBy, { kind: 'admin', address: '10.0.0.9' });
  await a.updateSession('s1', { state: 'ended', endedAt: now + 5, endReason: 'stopped' });
  assert.equal((await b.updateSession('s1', { state: 'active', securedAt: now + 9 }))?.state, 'ended', 'never back from ended');
  assert.deepEqual((await b.listSessions()).map((s) => [s.sessionId, s.state, s.endReason]), [['s1', 'ended', 'stopped']]);
  const shown = { intervalMs: 1000, presents: 24, messages: 130, bytes: 5000, reportedAt: now };
  assert.equal(await a.recordShown('s1', 'room', shown), false, 'no report on an ended session');
  await a.putSession({ sessionId: 's2', displayId: 'room', target: { host: '10.0.0.1', port: 3389 }, state: 'minted', mintedAt: now, expiresAt: now + 60_000 });
  assert.equal(await b.recordShown('s2', 'hall', shown), false, 'another display cannot report on it');
  assert.equal(await b.recordShown('s2', 'room', shown), true);
  assert.deepEqual((await a.getSession('s2'))?.shown, shown);
  // the presenter's touch permission (issue 30): one gateway sets it, the other reads it; an ended session takes none
  assert.equal((await a.getSession('s2'))?.touch, undefined, 'off by default');
  assert.equal((await a.setTouch('s2', true))?.touch, true);
  assert.equal((await b.getSession('s2'))?.touch, true);
  assert.equal((await b.setTouch('s2', false))?.touch, false);
  assert.equal((await a.getSession('s2'))?.touch, false);
  assert.equal(await a.setTouch('s1', true), undefined, 'an ended session takes none');
  assert.equal(await a.setTouch('nobody', true), undefined);
  await a.updateSession('s2', { state: 'ended', endedAt: now + 5, endReason: 'stopped' });

  const bookings = await Promise.all(['x1', 'x2', 'x3', 'x4'].map((sessionId, i) => (i % 2 ? a : b).bookDisplay({ displayId: 'room', sessionId, until: now + 60_000 })));
  assert.equal(bookings.filter((booking) => booking.ok).length, 1, 'one booking wins');
  const holder = (await a.getBooking('room'))?.sessionId ?? '';
  assert.equal((await b.bookDisplay({ displayId: 'room', sessionId: 'y', until: now + 60_000 }, { replacing: holder })).ok, true, 'a resume replaces the lost session');
  await a.releaseDisplay('room', 'not-the-holder');
  assert.equal((await b.getBooking('room'))?.sessionId, 'y');
  await a.releaseDisplay('room', 'y');
  assert.equal(await b.getBooking('room'), undefined);

  await a.setPresence({ displayId: 'room', owner: 'o1', since: now });
  await b.setPresence({ displayId: 'room', owner: 'o2', since: now + 1 });
  assert.equal(await a.clearPresence('room', 'o1'), false, 'a stale owner cannot mark it offline');
  assert.deepEqual(await a.listPresence(), [{ displayId: 'room', owner: 'o2', since: now + 1 }]);

  for (let i = 0; i < 5; i += 1) await (i % 2 ? a : b).appendAudit({ at: now + i, actor: 'gateway', action: 'pin-cleared', detail: { i } });
  const page = await a.listAudit({ limit: 3 });
  assert.deepEqual(page.entries.map((entry) => entry.detail?.i), [4, 3, 2]);
  assert.deepEqual((await b.listAudit({ before: page.next, limit: 3 })).entries.map((entry) => entry.detail?.i), [1, 0]);

  const [pinsA, pinsB] = connections.map((connection) => new RedisPinStore(connection, 'test:'));
  assert.ok(pinsA && pinsB);
  const fingerprints = ['sha256:AA', 'sha256:BB'];
  const known = await Promise.all([pinsA.recordMissing(['rdp:3389'], fingerprints[0] ?? ''), pinsB.recordMissing(['rdp:3389'], fingerprints[1] ?? '')]);
  assert.equal(known[0].get('rdp:3389'), known[1].get('rdp:3389'), 'both judge against the one pin that won');
  await pinsA.markUsed(['rdp:3389', 'not-pinned:1'], now);
  assert.deepEqual(await pinsB.lastUsed(), new Map([['rdp:3389', now]]), 'noted for pinned keys only');
  assert.equal(await pinsB.clear(['rdp:3389']), 1);
  assert.equal((await pinsA.list()).size, 0);
  assert.equal((await pinsA.lastUsed()).size, 0, 'cleared with its pin');

  await redis.stop();
  await assert.rejects(a.getSession('s1'), { name: 'StoreUnavailableError' });
  await assert.rejects(pinsA.get(['rdp:3389']), { name: 'PinStoreError' });
});

test('two gateways on one Redis: a room PIN swaps once, counters add up atomically and start a new window', { timeout: 30_000 }, async (t) => {
  const { a, b } = await twoRedisStores(t, { sessionSecret: SECRET, prefix: 'pins:' });
  const now = Date.now();
  const record = (pin: string) => ({ pin, issuedAt: now, expiresAt: now + 60_000 });

  assert.equal(await a.getRoomPin('room'), undefined);
  const first = await Promise.all([a.swapRoomPin('room', null, record('111111')), b.swapRoomPin('room', null, record('222222'))]);
  assert.equal(first.filter((result) => result.swapped).length, 1, 'one first PIN wins');
  const winner = (await b.getRoomPin('room'))?.pin ?? '';
  assert.ok(first.every((result) => result.record.pin === winner), 'the loser is told the PIN that won');
  const stale = await a.swapRoomPin('room', 'not-the-pin', record('333333'));
  assert.deepEqual([stale.swapped, stale.record.pin], [false, winner]);
  assert.equal((await b.swapRoomPin('room', winner, record('444444'))).swapped, true);
  assert.equal((await a.getRoomPin('room'))?.pin, '444444');

  const counts = await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 ? a : b).addToCounter('wrong:room', 1, 60_000)));
  assert.deepEqual(counts.map((state) => state.count).sort((x, y) => x - y), [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  assert.ok(counts.every((state) => state.resetAt > now && state.resetAt <= Date.now() + 60_000), 'one window for all');
  assert.equal((await a.addToCounter('wrong:room', -50, 60_000)).count, 0, 'never below 0');
  assert.equal((await a.addToCounter('read-only', 0, 50)).count, 0, 'adding 0 reads');
  assert.ok((await b.addToCounter('read-only', 1, 60_000)).resetAt > Date.now() + 30_000, 'and makes no counter: the first add starts the window');
  await a.addToCounter('short', 3, 50);
  await new Promise<void>((resolve) => { const poll = (): void => { void b.addToCounter('short', 0, 50).then((state) => (state.count === 0 ? resolve() : setTimeout(poll, 20))); }; poll(); });
  assert.equal((await b.addToCounter('short', 1, 60_000)).count, 1, 'a window that passed starts again');
});

test('room PINs in Redis: sealed and digested, never in clear; unreadable with another secret, or moved to another display', { timeout: 30_000 }, async (t) => {
  const redis = await startRedis();
  t.after(() => redis.close());
  const connection = new RedisConnection({ url: redis.url });
  const reader = new Redis(redis.url);
  t.after(async () => { reader.disconnect(); await connection.close(); });
  await connection.waitReady(5000);
  const { logger, lines } = capturingLogger();
  const store = new RedisBrokerStore(connection, { sessionSecret: SECRET, prefix: 'sealed:', logger });
  const stranger = new RedisBrokerStore(connection, { sessionSecret: Buffer.from('another-deployment-secret-0123456789abcdef'), prefix: 'sealed:', logger });
  const now = Date.now();

  await store.swapRoomPin('room', null, { pin: '314159', issuedAt: now, expiresAt: now + 60_000, previous: { pin: '271828', until: now + 5000 } });
  const raw = await reader.hgetall('sealed:room-pins');
  assert.deepEqual(Object.keys(raw), ['room']);
  assert.doesNotMatch(JSON.stringify(raw), /314159|271828/, 'neither the PIN nor the previous one in clear');
  assert.deepEqual(await store.getRoomPin('room'), { pin: '314159', issuedAt: now, expiresAt: now + 60_000, previous: { pin: '271828', until: now + 5000 } });
  assert.equal((await store.swapRoomPin('room', '000000', { pin: '999999', issuedAt: now, expiresAt: now + 60_000 })).swapped, false, 'compared by digest: a wrong expected PIN does not swap');

  // Copied to another display: the seal names its display, so the copy opens nothing (a new PIN is drawn there).
  await reader.hset('sealed:room-pins', 'hall', raw.room ?? '');
  assert.equal(await store.getRoomPin('hall'), undefined);
  assert.equal(await reader.hget('sealed:room-pins', 'hall'), null, 'the copy is dropped');
  // Another deployment's secret opens nothing either.
  assert.equal(await stranger.getRoomPin('room'), undefined);
  assert.ok(lines.some((line) => line.event === 'room-pin-unreadable' && line.displayId === 'room'));
  assert.equal((await stranger.swapRoomPin('room', null, { pin: '123123', issuedAt: now, expiresAt: now + 60_000 })).swapped, true, 'and draws its own');
  // A PIN an older gateway kept in clear is replaced, not shown.
  await reader.hset('sealed:room-pins', 'old', JSON.stringify({ pin: '424242', issuedAt: now, expiresAt: now + 60_000 }));
  assert.equal(await store.getRoomPin('old'), undefined);
  assert.equal((await store.swapRoomPin('old', null, { pin: '565656', issuedAt: now, expiresAt: now + 60_000 })).swapped, true);
});

test('a wrong-PIN counter deleted or rewritten in Redis before its window ended is noticed and counted again, for every gateway', { timeout: 30_000 }, async (t) => {
  const { logger, lines } = capturingLogger();
  const { a, b, redis } = await twoRedisStores(t, { sessionSecret: SECRET, prefix: 'count:', logger });
  const reader = new Redis(redis.url);
  t.after(() => reader.disconnect());
  const key = 'pin-wrong:display:room';
  for (let i = 0; i < 3; i += 1) await a.addToCounter(key, 1, 60_000);
  await a.addToCounter(key, 1, 60_000);
  await a.addToCounter(key, -1, 60_000);

  const [stored] = await reader.keys('count:*');
  assert.ok(stored, 'the counter is in redis');
  await reader.del(stored);
  assert.equal((await a.addToCounter(key, 1, 60_000)).count, 4, 'the 3 attempts counted before the delete, and this one');
  assert.ok(lines.some((line) => line.event === 'pin-counter-tampered' && line.counter === key && line.lost === 3));
  assert.equal((await b.addToCounter(key, 0, 60_000)).count, 4, 'put back in redis: another gateway sees them');

  await reader.hset(stored, 'a', 1);
  assert.equal((await a.addToCounter(key, 1, 60_000)).count, 5, 'rewritten to fewer attempts: counted again');
  assert.equal(lines.filter((line) => line.event === 'pin-counter-tampered').length, 2);
});

test('a gateway on a Redis that serves clients without a password warns at start; with requirepass it does not', { timeout: 30_000 }, async (t) => {
  const stateDir = mkdtempSync(join(tmpdir(), 'lanterna-redis-auth-'));
  t.after(() => rmSync(stateDir, { recursive: true, force: true }));
  const open = await startRedis();
  t.after(() => open.close());
  const guarded = await startRedis({ password: 'redis-password-0123456789' });
  t.after(() => guarded.close());
  const start = async (redisUrl: string): Promise<{ lines: Record<string, unknown>[]; close: () => Promise<void> }> => {
    const { logger, lines } = capturingLogger();
    const config = { ...configSchema.parse({ broker: { store: 'redis', redisUrl } }), stateDir };
    const backend = await openBrokerBackend(config, 'single', logger, SECRET);
    return { lines, close: backend.close };
  };

  const warned = await start(open.url);
  t.after(() => warned.close());
  await waitFor('the warning', () => warned.lines.some((line) => line.event === 'redis-unauthenticated'), 5_000);
  const warning = warned.lines.find((line) => line.event === 'redis-unauthenticated');
  assert.ok(warning);
  assert.equal(warning.level, 40);
  assert.match(String(warning.msg), /requirepass/);

  const quiet = await start(guarded.url);
  t.after(() => quiet.close());
  await waitFor('redis reached with its password', () => quiet.lines.some((line) => line.event === 'redis-up'), 5_000);
  await new Promise((resolve) => setTimeout(resolve, 500));
  assert.deepEqual(quiet.lines.filter((line) => line.event === 'redis-unauthenticated'), []);
});

test('rediss:// with a private CA and a password file: the gateway reaches Redis over TLS; without the CA it refuses the certificate', { timeout: 30_000 }, async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'lanterna-rediss-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const made = spawnSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=lanterna-test-redis',
    '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'ca.pem')], { encoding: 'utf8' });
  assert.equal(made.status, 0, made.stderr);
  const password = 'redis-tls-password-0123456789';
  writeFileSync(join(dir, 'password'), `${password}\n`, { mode: 0o600 });
  const redis = await startRedis({ password, tls: { cert: readFileSync(join(dir, 'ca.pem'), 'utf8'), key: readFileSync(join(dir, 'key.pem'), 'utf8') } });
  t.after(() => redis.close());
  assert.match(redis.bareUrl, /^rediss:\/\//);

  const open = async (broker: Record<string, unknown>): Promise<{ lines: Record<string, unknown>[]; backend: Awaited<ReturnType<typeof openBrokerBackend>> }> => {
    const { logger, lines } = capturingLogger();
    const config = { ...configSchema.parse({ broker: { store: 'redis', redisUrl: redis.bareUrl, redisPasswordFile: join(dir, 'password'), ...broker } }), stateDir: dir };
    return { lines, backend: await openBrokerBackend(config, 'single', logger, SECRET) };
  };
  const trusted = await open({ redisCaFile: join(dir, 'ca.pem') });
  t.after(() => trusted.backend.close());
  // The store's connection is up when the backend opens; the bus's own connection (TLS too) follows.
  await waitFor('store and bus connected over TLS', () => trusted.backend.problem() === undefined, 5_000);
  const now = Date.now();
  await trusted.backend.store.putDisplay({ id: 'tls', name: 'Over TLS', tokenDigest: 'ab', managedBy: 'api', createdAt: now, updatedAt: now }, 'create');
  assert.equal((await trusted.backend.store.getDisplay('tls'))?.name, 'Over TLS');
  await new Promise((resolve) => setTimeout(resolve, 500));
  assert.deepEqual(trusted.lines.filter((line) => line.event === 'redis-unauthenticated'), [], 'the probe over TLS was refused without the password');

  const untrusted = await open({});
  t.after(() => untrusted.backend.close());
  assert.notEqual(untrusted.backend.problem(), undefined, 'not ready');
  // The reason comes with the TLS handshake's error (between tries the state is said instead).
  await waitFor('the certificate named as the problem', () => /certificate/.test(untrusted.backend.problem() ?? ''), 5_000);
  assert.equal(untrusted.lines.some((line) => line.event === 'redis-up'), false, 'the system\'s roots do not know the private CA');

  // The start-up question is asked over TLS too: a TLS Redis without a password is warned about.
  const tlsOnly = await startRedis({ tls: { cert: readFileSync(join(dir, 'ca.pem'), 'utf8'), key: readFileSync(join(dir, 'key.pem'), 'utf8') } });
  t.after(() => tlsOnly.close());
  const { logger, lines } = capturingLogger();
  const config = { ...configSchema.parse({ broker: { store: 'redis', redisUrl: tlsOnly.url, redisCaFile: join(dir, 'ca.pem') } }), stateDir: dir };
  const warned = await openBrokerBackend(config, 'single', logger, SECRET);
  t.after(() => warned.close());
  await waitFor('the warning over TLS', () => lines.some((line) => line.event === 'redis-unauthenticated'), 5_000);
});
