import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DISPLAY_RECONNECT_CAP_MS, ReconnectBackoff } from './displayReconnect.js';

/** A fixed sequence of "random" draws. */
function draws(values: readonly number[]): () => number {
  let next = 0;
  return () => values[next++ % values.length] ?? 0;
}

void test('delays double from 0.5–1 s up to the 30 s cap, each drawn from the upper half of its ceiling', () => {
  const backoff = new ReconnectBackoff(undefined, undefined, draws([0, 1, 0.5, 0.25, 0.75, 0.1, 0.9, 0.33]));
  const delays = Array.from({ length: 8 }, () => backoff.nextDelayMs());
  // ceilings 1, 2, 4, 8, 16, 30, 30, 30 s
  assert.deepEqual(delays, [500, 2000, 3000, 5000, 14_000, 16_500, 28_500, 19_950]);
  assert.ok(delays.every((delay) => delay <= DISPLAY_RECONNECT_CAP_MS));
});

void test('reset starts the doubling over (the display got its welcome)', () => {
  const backoff = new ReconnectBackoff(undefined, undefined, () => 1);
  for (let i = 0; i < 5; i += 1) backoff.nextDelayMs();
  assert.equal(backoff.nextDelayMs(), 30_000);
  backoff.reset();
  assert.deepEqual([backoff.nextDelayMs(), backoff.nextDelayMs()], [1000, 2000]);
});

void test('a given base and cap replace the defaults, and many failures stay at the cap', () => {
  const backoff = new ReconnectBackoff(100, 1000, () => 0);
  assert.deepEqual([backoff.nextDelayMs(), backoff.nextDelayMs(), backoff.nextDelayMs()], [50, 100, 200]);
  for (let i = 0; i < 2000; i += 1) backoff.nextDelayMs();
  assert.equal(backoff.nextDelayMs(), 500);
});
