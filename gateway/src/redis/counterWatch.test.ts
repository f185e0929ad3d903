import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CounterWatch } from './counterWatch.js';

test('a counter that comes back in a new window before its own ended lost its attempts; after the end it did not', () => {
  let now = 0;
  const watch = new CounterWatch(100, () => now);
  assert.equal(watch.observe('k', { window: 'w1', attempts: 1, givenBack: 0, ttlMs: 60_000 }), 0);
  assert.equal(watch.observe('k', { window: 'w1', attempts: 4, givenBack: 1, ttlMs: 59_000 }, 1), 0);
  now = 10_000;
  assert.equal(watch.observe('k', { window: 'w2', attempts: 1, givenBack: 0, ttlMs: 60_000 }), 3, 'deleted: 4 attempts less 1 given back vanished');
  now = 20_000;
  assert.equal(watch.observe('k', { window: 'w2', attempts: 5, givenBack: 0, ttlMs: 50_000 }, 1), 0, 'put back: seen as 4, one added, now 5');
  now = 70_000 - 500;
  assert.equal(watch.observe('k', { window: 'w3', attempts: 1, givenBack: 0, ttlMs: 60_000 }), 0, 'a window that ended (within the slack) starts again');
});

test('fewer attempts in the same window were rewritten; given back ones are not lost', () => {
  let now = 0;
  const watch = new CounterWatch(100, () => now);
  watch.observe('k', { window: 'w', attempts: 7, givenBack: 2, ttlMs: 60_000 });
  now = 1000;
  assert.equal(watch.observe('k', { window: 'w', attempts: 7, givenBack: 3, ttlMs: 59_000 }), 0);
  assert.equal(watch.observe('k', { window: 'w', attempts: 2, givenBack: 3, ttlMs: 59_000 }), 5);
  assert.equal(watch.observe('k', { window: 'w', attempts: 7, givenBack: 3, ttlMs: 59_000 }, 1), 1, 'one added, yet none more than seen: one lost');
});

test('memory is capped: ended windows go first, then the least recently seen', () => {
  let now = 0;
  const watch = new CounterWatch(3, () => now);
  watch.observe('short', { window: 'w', attempts: 1, givenBack: 0, ttlMs: 10 });
  watch.observe('a', { window: 'w', attempts: 1, givenBack: 0, ttlMs: 60_000 });
  watch.observe('b', { window: 'w', attempts: 1, givenBack: 0, ttlMs: 60_000 });
  now = 100;
  watch.observe('c', { window: 'w', attempts: 1, givenBack: 0, ttlMs: 60_000 });
  assert.equal(watch.size, 3);
  watch.observe('a', { window: 'w', attempts: 2, givenBack: 0, ttlMs: 60_000 });
  watch.observe('d', { window: 'w', attempts: 1, givenBack: 0, ttlMs: 60_000 });
  assert.equal(watch.size, 3);
  assert.equal(watch.observe('a', { window: 'other', attempts: 1, givenBack: 0, ttlMs: 60_000 }), 2, 'a was seen recently: still watched');
  assert.equal(watch.observe('b', { window: 'other', attempts: 1, givenBack: 0, ttlMs: 60_000 }), 0, 'b was the least recently seen: forgotten');
});
