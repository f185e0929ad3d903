// The Redis store's atomic checks against a real redis-server, from two
// connections (two gateways): one claim per session, one booking per display,
// no way back from ended, owner-checked presence, paged audit, first-use pins
// decided once.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startRedis } from '@lanterna/testkit';
import { RedisBrokerStore, RedisConnection, RedisPinStore } from '@lanterna/gateway';

test('two gateways on one Redis: claims, bookings, state moves, presence, audit and pins decided once', { timeout: 30_000 }, async (t) => {
  const redis = await startRedis();
  t.after(() => redis.close());
  const connections = [new RedisConnection({ url: redis.url }), new RedisConnection({ url: redis.url })];
  t.after(() => Promise.all(connections.map((connection) => connection.close())));
  await Promise.all(connections.map((connection) => connection.waitReady(5000)));
  const [a, b] = connections.map((connection) => new RedisBrokerStore(connection, 'test:'));
  assert.ok(a && b);
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
  assert.equal(await pinsB.clear(['rdp:3389']), 1);
  assert.equal((await pinsA.list()).size, 0);

  await redis.stop();
  await assert.rejects(a.getSession('s1'), { name: 'StoreUnavailableError' });
  await assert.rejects(pinsA.get(['rdp:3389']), { name: 'PinStoreError' });
});

test('two gateways on one Redis: a room PIN swaps once, counters add up atomically and start a new window', { timeout: 30_000 }, async (t) => {
  const redis = await startRedis();
  t.after(() => redis.close());
  const connections = [new RedisConnection({ url: redis.url }), new RedisConnection({ url: redis.url })];
  t.after(() => Promise.all(connections.map((connection) => connection.close())));
  await Promise.all(connections.map((connection) => connection.waitReady(5000)));
  const [a, b] = connections.map((connection) => new RedisBrokerStore(connection, 'pins:'));
  assert.ok(a && b);
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
