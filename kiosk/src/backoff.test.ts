import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Backoff } from './backoff.js';

test('doubles from the initial pause up to the maximum, and starts over after reset', () => {
  const backoff = new Backoff(1000, 5000);
  assert.deepEqual([backoff.next(), backoff.next(), backoff.next(), backoff.next(), backoff.next()], [1000, 2000, 4000, 5000, 5000]);
  assert.equal(backoff.attempts, 5);
  backoff.reset();
  assert.equal(backoff.next(), 1000);
});

test('many failures stay at the maximum (no overflow to Infinity or NaN)', () => {
  const backoff = new Backoff(1000, 60_000);
  for (let i = 0; i < 2000; i += 1) backoff.next();
  assert.equal(backoff.next(), 60_000);
});
