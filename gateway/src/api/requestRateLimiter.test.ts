// The presenter API's per-address request limit: a fixed window per address,
// a bounded table.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RequestRateLimiter } from './requestRateLimiter.js';

test('an address gets its allowance per window, then waits for the window to end', () => {
  let now = 0;
  const limiter = new RequestRateLimiter(3, 60_000, 100, () => now);
  assert.deepEqual([1, 2, 3].map(() => limiter.take('a').allowed), [true, true, true]);
  now = 20_000;
  assert.deepEqual(limiter.take('a'), { allowed: false, retryAfterMs: 40_000 });
  assert.equal(limiter.take('b').allowed, true, 'other addresses are counted apart');
  now = 60_000;
  assert.equal(limiter.take('a').allowed, true);
});

test('the table stays bounded: ended windows go first, then the oldest', () => {
  let now = 0;
  const limiter = new RequestRateLimiter(1, 1000, 3, () => now);
  for (const key of ['a', 'b', 'c']) limiter.take(key);
  now = 500;
  limiter.take('d');
  assert.equal(limiter.size, 3, 'the oldest live window made room');
  assert.equal(limiter.take('a').allowed, true, 'a was dropped, so it starts again');
  now = 2000;
  limiter.take('e');
  assert.equal(limiter.size, 1, 'ended windows were swept');
});
