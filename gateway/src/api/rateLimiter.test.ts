// The token bucket: a burst up to its size, then one token per refill period,
// and a bounded table under a flood of addresses.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RateLimiter } from './rateLimiter.js';

test('a burst is served, then requests wait for the refill', () => {
  let now = 0;
  const limiter = new RateLimiter({ capacity: 3, refillPerSecond: 0.5 }, () => now);
  assert.deepEqual([1, 2, 3].map(() => limiter.take('a').ok), [true, true, true]);
  assert.deepEqual(limiter.take('a'), { ok: false, retryAfterSeconds: 2 });
  assert.equal(limiter.take('b').ok, true, 'another address has its own bucket');
  now = 1000;
  assert.equal(limiter.take('a').ok, false);
  now = 2000;
  assert.equal(limiter.has('a').ok, true);
  assert.equal(limiter.take('a').ok, true);
  assert.equal(limiter.take('a').ok, false);
});

test('the table stays bounded under many addresses', () => {
  const limiter = new RateLimiter({ capacity: 1, refillPerSecond: 0.001 }, () => 0, 100);
  for (let i = 0; i < 1000; i += 1) limiter.take(`10.0.${Math.floor(i / 256)}.${i % 256}`);
  assert.ok((limiter as unknown as { buckets: Map<string, unknown> }).buckets.size <= 100);
});
