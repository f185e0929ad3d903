import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SessionRates } from './sessionRates.js';

const figures = (bytesToDisplay: number, bytesToServer: number, framesToDisplay: number) => ({ bytesToDisplay, bytesToServer, pdusToDisplay: framesToDisplay, framesToDisplay });

void test('rates are the change in totals since the session\'s previous sample, per second; zeros at its first', () => {
  const rates = new SessionRates();
  assert.deepEqual(rates.next('a', figures(1000, 200, 10), 10_000), { bytesPerSecond: 0, framesPerSecond: 0 });
  assert.deepEqual(rates.next('a', figures(3000, 400, 30), 12_000), { bytesPerSecond: 1100, framesPerSecond: 10 });
  assert.deepEqual(rates.next('b', figures(50, 0, 1), 12_000), { bytesPerSecond: 0, framesPerSecond: 0 }, 'each session apart');
  assert.deepEqual(rates.next('a', figures(3000, 400, 30), 12_000), { bytesPerSecond: 0, framesPerSecond: 0 }, 'no time passed: no rate');
  rates.forget('a');
  assert.deepEqual(rates.next('a', figures(9000, 400, 90), 13_000), { bytesPerSecond: 0, framesPerSecond: 0 }, 'forgotten: a first sample again');
});
