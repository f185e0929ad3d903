import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MIN_RATE_INTERVAL_MS, SessionRates } from './sessionRates.js';

const figures = (bytesToDisplay: number, bytesToServer: number, framesToDisplay: number) => ({ bytesToDisplay, bytesToServer, pdusToDisplay: framesToDisplay, framesToDisplay });

void test('rates are the change in totals since the session\'s previous sample, per second; zeros at its first', () => {
  const rates = new SessionRates();
  assert.deepEqual(rates.next('a', figures(1000, 200, 10), 10_000), { bytesPerSecond: 0, framesPerSecond: 0 });
  assert.deepEqual(rates.next('a', figures(3000, 400, 30), 12_000), { bytesPerSecond: 1100, framesPerSecond: 10 });
  assert.deepEqual(rates.next('b', figures(50, 0, 1), 12_000), { bytesPerSecond: 0, framesPerSecond: 0 }, 'each session apart');
  // Queued samples read in one turn: the rate stays, and the baseline with it.
  assert.deepEqual(rates.next('a', figures(3010, 400, 31), 12_000), { bytesPerSecond: 1100, framesPerSecond: 10 }, 'no time passed: the rate as it was');
  assert.deepEqual(rates.next('a', figures(3200, 400, 35), 12_000 + MIN_RATE_INTERVAL_MS - 1), { bytesPerSecond: 1100, framesPerSecond: 10 }, 'too soon: the rate as it was');
  assert.deepEqual(rates.next('a', figures(3400, 400, 40), 12_500), { bytesPerSecond: 800, framesPerSecond: 20 }, 'measured from the older sample');
  rates.forget('a');
  assert.deepEqual(rates.next('a', figures(9000, 400, 90), 13_000), { bytesPerSecond: 0, framesPerSecond: 0 }, 'forgotten: a first sample again');
});
