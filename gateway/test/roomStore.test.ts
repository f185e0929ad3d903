// The room's state (issue 29) in both stores, one specification: slot
// bookings decided once (the last free slot through two gateways goes to
// one), leases renewed per slot by the relay's sample, releases and intents
// per slot, a request's decision taken once, the queue's cap, and the room's
// settings. The memory store runs it in one process; the Redis store from two
// connections to a real redis-server (two gateways).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MemoryBrokerStore, type BrokerStore, type RoomRequest } from '@lanterna/gateway';
import { twoRedisStores } from './twoRedisStores.js';

const SECRET = Buffer.from('session-secret-of-the-room-tests-0123456789');

async function roomSpecification(a: BrokerStore, b: BrokerStore): Promise<void> {
  const now = Date.now();
  const until = now + 60_000;
  // Four requests for a display with four slots, through two gateways at once: slots 0..3, each once.
  const booked = await Promise.all(['s0', 's1', 's2', 's3', 's4'].map((sessionId, i) => (i % 2 ? a : b).bookFreeSlot({ displayId: 'room', sessionId, until }, 4)));
  const slots = booked.flatMap((result) => (result.ok ? [result.slot] : [])).sort();
  assert.deepEqual(slots, [0, 1, 2, 3], 'four slots, each to one session');
  assert.deepEqual(booked.flatMap((result) => (result.ok ? [] : [result.holders.length])), [4], 'the fifth is told every holder');
  assert.deepEqual((await b.listBookings('room')).map((booking) => booking.slot ?? 0), [0, 1, 2, 3]);
  // A page that shows one source: capacity 1 books only slot 0.
  assert.equal((await a.bookFreeSlot({ displayId: 'hall', sessionId: 'h1', until }, 1)).ok, true);
  assert.equal((await b.bookFreeSlot({ displayId: 'hall', sessionId: 'h2', until }, 1)).ok, false);
  assert.equal((await a.getBooking('hall'))?.sessionId, 'h1', 'slot 0 is the display booking of old');

  // Take-over is a compare-and-set on the holder seen.
  const holder2 = (await a.getBooking('room', 2))?.sessionId;
  assert.ok(holder2);
  const takeovers = await Promise.all([a, b].map((store, i) => store.bookDisplay({ displayId: 'room', sessionId: `t${String(i)}`, until, slot: 2 }, { replacing: holder2 })));
  assert.equal(takeovers.filter((result) => result.ok).length, 1, 'two take-overs of one slot: one wins');

  // Release frees the session's own slot only; a sample renews its own slot's lease.
  const holder1 = (await b.getBooking('room', 1))?.sessionId ?? '';
  await a.putSession({ sessionId: holder1, displayId: 'room', target: { host: '10.0.0.1', port: 3389 }, state: 'active', mintedAt: now, expiresAt: until, slot: 1 });
  await b.sampleSessions([{ sessionId: holder1, displayId: 'room', bytesToDisplay: 1, bytesToServer: 1, pdusToDisplay: 1, framesToDisplay: 1, bytesPerSecond: 1, framesPerSecond: 1, sampledAt: now }], now + 3000);
  assert.equal((await a.getBooking('room', 1))?.until, now + 3000, "the sample renewed slot 1's lease");
  assert.equal((await a.getBooking('room', 0))?.until, until, 'and left slot 0 alone');
  await a.releaseDisplay('room', holder1);
  assert.deepEqual((await b.listBookings('room')).map((booking) => booking.slot ?? 0), [0, 2, 3]);
  const again = await b.bookFreeSlot({ displayId: 'room', sessionId: 'late', until }, 4);
  assert.deepEqual(again, { ok: true, slot: 1 }, 'the freed slot is the free one');

  // Intents per slot: a resume finds each source's own; clearing one leaves the others.
  await a.setIntent({ displayId: 'room', sessionId: 'i0', target: { host: '10.0.0.1', port: 3389 }, sealed: 'x', since: now });
  await a.setIntent({ displayId: 'room', sessionId: 'i3', slot: 3, requestId: 'r3', target: { host: '10.0.0.2', port: 3389 }, sealed: 'y', since: now });
  assert.equal((await b.getIntent('room'))?.sessionId, 'i0');
  assert.deepEqual([(await b.getIntent('room', 3))?.sessionId, (await b.getIntent('room', 3))?.requestId], ['i3', 'r3']);
  await b.clearIntent('room', 'i3');
  assert.equal(await a.getIntent('room', 3), undefined);
  assert.equal((await a.getIntent('room'))?.sessionId, 'i0');

  // Settings.
  await a.putRoomSettings('room', { mode: 'moderated', layout: 'one-large', large: 2, hostRequestId: 'r1', updatedAt: now });
  assert.deepEqual(await b.getRoomSettings('room'), { mode: 'moderated', layout: 'one-large', large: 2, hostRequestId: 'r1', updatedAt: now });

  // Requests: the queue's cap, and one decision per request.
  const request = (id: string, at: number): RoomRequest => ({ requestId: id, displayId: 'room', state: 'waiting', at, label: id, target: '10.0.0.1:3389', sealed: 'sealed' });
  assert.equal(await a.createRoomRequest(request('q1', now), 2), true);
  assert.equal(await b.createRoomRequest(request('q2', now + 1), 2), true);
  assert.equal(await a.createRoomRequest(request('q3', now + 2), 2), false, 'the queue holds two');
  assert.equal(await a.createRoomRequest(request('q1', now), 5), false, 'an id is made once');
  const q1 = await b.getRoomRequest('q1');
  assert.ok(q1);
  const decisions = await Promise.all([
    a.updateRoomRequest('q1', ['waiting'], { ...q1, state: 'on-screen', decidedBy: 'admin@a' }),
    b.updateRoomRequest('q1', ['waiting'], { ...q1, state: 'declined', decidedBy: 'admin@b' }),
  ]);
  assert.equal(decisions.filter((decision) => decision !== undefined).length, 1, 'one moderator decides');
  assert.equal(await a.createRoomRequest(request('q3', now + 2), 2), true, 'a decided request leaves the queue');
  // An accept that found no slot puts its request back: it counts in the queue again.
  const q2 = await a.getRoomRequest('q2');
  assert.ok(q2);
  assert.ok(await a.updateRoomRequest('q2', ['waiting'], { ...q2, state: 'on-screen' }));
  assert.ok(await b.updateRoomRequest('q2', ['on-screen'], q2));
  assert.equal(await a.createRoomRequest(request('q4', now + 3), 2), false, 'the queue is full again');
  assert.deepEqual((await b.listRoomRequests('room')).map((entry) => entry.requestId).sort(), ['q1', 'q2', 'q3']);
  assert.equal((await a.getRoomRequest('q1'))?.state === 'waiting', false);

  // Deleting the display forgets its room.
  await a.putDisplay({ id: 'room', name: 'Room', tokenDigest: '0'.repeat(64), managedBy: 'api', createdAt: now, updatedAt: now }, 'create');
  await b.deleteDisplay('room');
  assert.equal(await a.getRoomSettings('room'), undefined);
  assert.equal(await a.getIntent('room'), undefined);
}

test('the memory store keeps slots, intents, settings and requests per the room specification', async () => {
  const store = new MemoryBrokerStore();
  await roomSpecification(store, store);
});

test('the Redis store keeps them the same way, decided once across two connections', { timeout: 30_000 }, async (t) => {
  const { a, b } = await twoRedisStores(t, { sessionSecret: SECRET, prefix: 'rooms:' });
  await roomSpecification(a, b);
});
