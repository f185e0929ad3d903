// The memory store stays bounded: claims live as long as their token,
// finished sessions for a retention time, and the table has a ceiling.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MemoryBrokerStore } from './memoryBrokerStore.js';
import type { SessionRecord } from './brokerStore.js';

function record(sessionId: string, now: number, lifetimeMs = 60_000): SessionRecord {
  return { sessionId, displayId: 'room', target: { host: '10.0.0.1', port: 3389 }, state: 'minted', mintedAt: now, expiresAt: now + lifetimeMs };
}

test('a claim is refused while its token lives and forgotten after', async () => {
  let now = 0;
  const store = new MemoryBrokerStore(() => now);
  assert.equal(await store.claimSession('a', 1000), true);
  assert.equal(await store.claimSession('a', 1000), false);
  assert.equal(await store.claimSession('b', 2000), true);
  now = 1500;
  assert.equal(await store.claimSession('c', 3000), true);
  assert.equal(store.claimCount, 2, 'the expired claim of a was swept');
  assert.equal(await store.claimSession('b', 2000), false);
});

test('sessions never claimed end as expired; ended ones leave after the retention; the table has a ceiling', async () => {
  let now = 0;
  const store = new MemoryBrokerStore(() => now, { maxSessions: 3, endedRetentionMs: 1000 });
  await store.putSession(record('minted', now, 500));
  await store.putSession(record('done', now));
  await store.updateSession('done', { state: 'ended', endedAt: 100, endReason: 'server-closed' });
  now = 600;
  assert.deepEqual((await store.listSessions()).map((s) => [s.sessionId, s.state, s.endReason]), [['minted', 'ended', 'expired'], ['done', 'ended', 'server-closed']]);
  now = 1200;
  assert.deepEqual((await store.listSessions()).map((s) => s.sessionId), ['minted'], 'done left 1000 ms after it ended');

  await store.putSession(record('live', now));
  await store.claimSession('live', now + 60_000);
  for (const id of ['x', 'y', 'z']) await store.putSession(record(id, now));
  const ids = (await store.listSessions()).map((s) => s.sessionId);
  assert.equal(ids.length, 3);
  assert.ok(ids.includes('live'), 'a claimed session is kept over the ceiling');
  assert.ok(!ids.includes('minted'), 'the oldest finished record went first');
});

test('presence is cleared only by its owner; reprojection state is kept per display', async () => {
  const store = new MemoryBrokerStore();
  await store.setPresence({ displayId: 'room', owner: 'a', since: 1 });
  await store.setPresence({ displayId: 'room', owner: 'b', since: 2 });
  assert.equal(await store.clearPresence('room', 'a'), false);
  assert.deepEqual(await store.listPresence(), [{ displayId: 'room', owner: 'b', since: 2 }]);
  assert.equal(await store.clearPresence('room', 'b'), true);
  await store.setReprojection('sign', { projectedAt: 5, failures: 2 });
  assert.deepEqual(await store.getReprojection('sign'), { projectedAt: 5, failures: 2 });
  await store.setReprojection('sign', undefined);
  assert.equal(await store.getReprojection('sign'), undefined);
});

test('room PINs: compare and set, so only the request that saw the current PIN replaces it', async () => {
  const store = new MemoryBrokerStore(() => 0);
  const first = { pin: '111111', issuedAt: 0, expiresAt: 1000 };
  assert.deepEqual(await store.swapRoomPin('room', null, first), { swapped: true, record: first });
  const late = { pin: '999999', issuedAt: 0, expiresAt: 1000 };
  assert.deepEqual(await store.swapRoomPin('room', null, late), { swapped: false, record: first }, 'a PIN exists already');
  const second = { pin: '222222', issuedAt: 1, expiresAt: 1001 };
  assert.deepEqual(await store.swapRoomPin('room', '111111', second), { swapped: true, record: second });
  assert.deepEqual(await store.swapRoomPin('room', '111111', late), { swapped: false, record: second }, 'someone else replaced it first');
  assert.deepEqual(await store.getRoomPin('room'), second);
  assert.equal(await store.getRoomPin('elsewhere'), undefined);
});

test('counters: a window starts with the first count, never goes below 0, ends on time; a full table fails closed', async () => {
  let now = 0;
  const store = new MemoryBrokerStore(() => now, { maxSessions: 10, endedRetentionMs: 1000, maxCounters: 2 });
  assert.deepEqual(await store.addToCounter('a', 1, 1000), { count: 1, resetAt: 1000 });
  now = 500;
  assert.deepEqual(await store.addToCounter('a', 1, 1000), { count: 2, resetAt: 1000 }, 'the window does not slide');
  assert.deepEqual(await store.addToCounter('a', -5, 1000), { count: 0, resetAt: 1000 });
  assert.deepEqual(await store.addToCounter('b', 1, 1000), { count: 1, resetAt: 1500 });
  assert.deepEqual(await store.addToCounter('read-only', 0, 1000), { count: 0, resetAt: 1500 }, 'adding 0 reads');
  const full = await store.addToCounter('c', 1, 1000);
  assert.equal(full.count, Number.MAX_SAFE_INTEGER, 'no room for a new counter: it reads as over any limit');
  assert.equal(store.counterCount, 2, 'and no live counter was evicted for it');
  now = 1000;
  assert.deepEqual(await store.addToCounter('c', 1, 1000), { count: 1, resetAt: 2000 }, 'an ended window makes room');
  now = 1500;
  assert.deepEqual(await store.addToCounter('a', 1, 1000), { count: 1, resetAt: 2500 }, 'a new window after the old one ended');
});

test('a display\'s report is kept only on its own live session, and survives the relay\'s samples', async () => {
  const store = new MemoryBrokerStore(() => 0);
  await store.putSession(record('s', 0));
  const figures = { intervalMs: 1000, presents: 24, messages: 130, bytes: 5000, reportedAt: 10 };
  assert.equal(await store.recordShown('s', 'another-room', figures), false, 'another display cannot report on it');
  assert.equal(await store.recordShown('nobody', 'room', figures), false);
  assert.equal(await store.recordShown('s', 'room', figures), true);
  await store.sampleSessions([{ sessionId: 's', displayId: 'room', bytesToDisplay: 1, bytesToServer: 1, pdusToDisplay: 1, framesToDisplay: 1, bytesPerSecond: 2, framesPerSecond: 1, sampledAt: 20 }], 1000);
  assert.deepEqual((await store.getSession('s'))?.shown, figures);
  await store.updateSession('s', { state: 'ended', endedAt: 30, endReason: 'stopped' });
  assert.equal(await store.recordShown('s', 'room', { ...figures, presents: 1 }), false, 'nothing after the end');
});
