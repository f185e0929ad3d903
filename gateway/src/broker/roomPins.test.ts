// Room PINs over a real store, without sockets: lazy timer rotation seen
// alike by every worker, the wrong-PIN limits (per source, per display, a
// parallel burst), the grace of a timed-out PIN, and one winner per PIN.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { MemoryBrokerStore } from './memoryBrokerStore.js';
import type { BrokerStore } from './brokerStore.js';
import type { BrokerEvent } from './brokerEvents.js';
import { RoomPins } from './roomPins.js';
import type { AttemptLimits } from './pinAttempts.js';
import type { RoomPinSettings } from './roomPin.js';
import { IpcBrokerStore, isStoreRequest, type IpcChannel } from '../cluster/ipcBrokerStore.js';
import { answerStoreRequest } from '../cluster/brokerStoreHost.js';

const settings: RoomPinSettings = { digits: 6, rotateMs: 60_000, graceMs: 5_000 };
const limits: AttemptLimits = { perDisplay: { max: 10, windowMs: 600_000 }, perSource: { max: 3, windowMs: 300_000 } };

function setup(options: { store?: BrokerStore; clock?: { now: number } } = {}) {
  const clock = options.clock ?? { now: 1_000_000 };
  const store = options.store ?? new MemoryBrokerStore(() => clock.now);
  const events: BrokerEvent[] = [];
  let next = 100_000;
  const pins = new RoomPins({ store, settings, limits, publish: (event) => events.push(event), clock: () => clock.now, random: () => next++ });
  return { pins, store, events, clock };
}

/** A PIN that is certainly not `pin`. */
const other = (pin: string): string => (pin === '999999' ? '999998' : '999999');

test('the first read makes a PIN and announces it; it stays until its timer runs out, then rotates once', async () => {
  const { pins, events, clock } = setup();
  const first = await pins.current('room');
  assert.match(first.pin, /^\d{6}$/);
  assert.deepEqual(events, [{ kind: 'room-changed', displayId: 'room' }]);
  clock.now += 59_999;
  assert.equal((await pins.current('room')).pin, first.pin);
  clock.now += 1;
  const second = await pins.current('room');
  assert.notEqual(second.pin, first.pin);
  assert.deepEqual(second.previous, { pin: first.pin, until: first.expiresAt + settings.graceMs });
  assert.equal(events.length, 2);
  assert.equal((await pins.current('room')).pin, second.pin, 'no second rotation for the same timer');
});

test('right after a timer rotation the old PIN still works for the grace time, then not', async () => {
  const { pins, clock } = setup();
  const first = await pins.current('room');
  clock.now = first.expiresAt + 1000;
  await pins.current('room');
  const grace = await pins.check('room', first.pin, 'a');
  assert.equal(grace.ok, true);
  clock.now = first.expiresAt + settings.graceMs;
  assert.deepEqual(await pins.check('room', first.pin, 'a'), { ok: false, code: 'pin-wrong', attemptsLeft: 2 });
});

test('no PIN is not a guess; wrong PINs count down per source, and the last one locks with a time to wait', async () => {
  const { pins, clock } = setup();
  const { pin } = await pins.current('room');
  assert.deepEqual(await pins.check('room', undefined, 'a'), { ok: false, code: 'pin-required' });
  assert.deepEqual(await pins.check('room', '  ', 'a'), { ok: false, code: 'pin-required' });
  assert.deepEqual(await pins.check('room', other(pin), 'a'), { ok: false, code: 'pin-wrong', attemptsLeft: 2 });
  assert.deepEqual(await pins.check('room', 'not a pin', 'a'), { ok: false, code: 'pin-wrong', attemptsLeft: 1 }, 'junk counts as a guess');
  clock.now += 1000;
  assert.deepEqual(await pins.check('room', other(pin), 'a'), { ok: false, code: 'pin-locked', scope: 'source', retryAfterMs: 299_000 });
  const locked = await pins.check('room', pin, 'a');
  assert.deepEqual(locked, { ok: false, code: 'pin-locked', scope: 'source', retryAfterMs: 299_000 }, 'even the right PIN waits out the lockout');
  assert.equal((await pins.check('room', pin, 'b')).ok, true, 'another source is not locked by a');
  clock.now += 299_000;
  assert.equal((await pins.check('room', (await pins.current('room')).pin, 'a')).ok, true, 'the window ended');
});

test('a right PIN gives its attempt back: a presenter who types it right is never locked out', async () => {
  const { pins } = setup();
  for (let i = 0; i < 20; i += 1) {
    const check = await pins.check('room', (await pins.current('room')).pin, 'a');
    assert.equal(check.ok, true, `attempt ${i}`);
  }
});

test('the per-display limit holds whatever the number of sources', async () => {
  const { pins } = setup();
  const { pin } = await pins.current('room');
  const outcomes = [];
  for (let i = 0; i < 12; i += 1) {
    const outcome = await pins.check('room', other(pin), `source-${i}`);
    outcomes.push(outcome.ok ? 'ok' : outcome.code);
  }
  assert.deepEqual(outcomes, [...Array<string>(9).fill('pin-wrong'), 'pin-locked', 'pin-locked', 'pin-locked']);
  const right = await pins.check('room', pin, 'fresh-source');
  assert.equal(right.ok ? 'ok' : right.code, 'pin-locked', 'the display is locked for everyone');
  assert.equal((await pins.check('other-room', (await pins.current('other-room')).pin, 'fresh-source')).ok, true, 'other displays are not');
});

test('a parallel burst of guesses: only the allowed number is compared at all', async () => {
  const { pins } = setup();
  const { pin } = await pins.current('room');
  const outcomes = await Promise.all(Array.from({ length: 50 }, () => pins.check('room', other(pin), 'a')));
  const compared = outcomes.filter((outcome) => !outcome.ok && outcome.code === 'pin-wrong').length;
  assert.equal(compared, limits.perSource.max - 1, 'the last allowed guess answers as the lockout');
  assert.equal(outcomes.filter((outcome) => !outcome.ok && outcome.code === 'pin-locked').length, 50 - compared);
});

test('two requests using one PIN at once: exactly one wins, and the PIN is new afterwards', async () => {
  const { pins, events } = setup();
  const record = await pins.current('room');
  const wins = await Promise.all([pins.use('room', record), pins.use('room', record)]);
  assert.deepEqual(wins.sort(), [false, true]);
  const after = await pins.current('room');
  assert.notEqual(after.pin, record.pin);
  assert.equal(after.previous, undefined);
  assert.equal(events.filter((event) => event.kind === 'room-changed').length, 2, 'first PIN, then its use');
  assert.equal((await pins.check('room', record.pin, 'a')).ok, false, 'a used PIN opens nothing');
});

/** A worker's store over an in-process channel to the primary's store (as cluster workers have). */
function workerStore(primary: MemoryBrokerStore): IpcBrokerStore {
  const toWorker = new EventEmitter();
  const channel: IpcChannel = {
    send: (message) => {
      const copy: unknown = JSON.parse(JSON.stringify(message));
      if (isStoreRequest(copy)) answerStoreRequest(primary, copy, (answer) => setImmediate(() => toWorker.emit('message', JSON.parse(JSON.stringify(answer)))));
    },
    onMessage: (handler) => toWorker.on('message', handler),
  };
  return new IpcBrokerStore(channel);
}

test('cluster workers agree through the primary: one PIN, one rotation, one count of wrong PINs', async () => {
  const clock = { now: 1_000_000 };
  const primary = new MemoryBrokerStore(() => clock.now);
  const a = setup({ store: workerStore(primary), clock });
  const b = setup({ store: workerStore(primary), clock });
  const [fromA, fromB] = await Promise.all([a.pins.current('room'), b.pins.current('room')]);
  assert.equal(fromA.pin, fromB.pin, 'both workers show the same PIN');
  assert.equal(a.events.length + b.events.length, 1, 'made once');
  clock.now += settings.rotateMs;
  const [rotatedA, rotatedB] = await Promise.all([a.pins.current('room'), b.pins.current('room')]);
  assert.equal(rotatedA.pin, rotatedB.pin, 'rotated once, whichever worker looked first');
  await a.pins.check('room', other(rotatedA.pin), 'x');
  await b.pins.check('room', other(rotatedA.pin), 'x');
  assert.deepEqual(await a.pins.check('room', other(rotatedA.pin), 'x'), { ok: false, code: 'pin-locked', scope: 'source', retryAfterMs: limits.perSource.windowMs },
    'wrong PINs on either worker count together');
  assert.equal(await b.pins.use('room', rotatedA), true);
  assert.notEqual((await a.pins.current('room')).pin, rotatedA.pin, 'a sees b\'s use at once');
});
