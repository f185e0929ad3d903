import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RoundTripTimer } from './roundTripTimer.js';

void test('round trips pair responses with requests in order', () => {
  const timer = new RoundTripTimer();
  timer.markSent(100);
  timer.markSent(250);
  timer.markSent(400);
  assert.equal(timer.outstanding(), 3);
  assert.equal(timer.oldestOutstandingNs(1000), 900);
  const seen: number[] = [];
  timer.completed(2, 1000, (ns) => seen.push(ns));
  assert.deepEqual(seen, [900, 750]);
  assert.equal(timer.outstanding(), 1);
  assert.throws(() => timer.completed(2, 1100, (ns) => seen.push(ns)), /without an outstanding request/);
});

void test('the queue compacts without losing order over many requests', () => {
  const timer = new RoundTripTimer();
  let sum = 0;
  for (let i = 0; i < 5000; i += 1) {
    timer.markSent(i * 10);
    timer.completed(1, i * 10 + 7, (ns) => { sum += ns; });
  }
  assert.equal(sum, 5000 * 7);
  assert.equal(timer.outstanding(), 0);
  assert.equal(timer.oldestOutstandingNs(1), 0);
});
