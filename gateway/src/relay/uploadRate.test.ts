import { test } from 'node:test';
import assert from 'node:assert/strict';
import { UploadRate } from './uploadRate.js';

void test('one second of bytes passes at once; past it the wait is what the excess takes at the rate', () => {
  let now = 0;
  const rate = new UploadRate(1000, () => now);
  assert.equal(rate.take(600), 0);
  assert.equal(rate.take(400), 0);
  assert.equal(rate.take(250), 250);
  now += 250; // the wait is over: the bucket is back at zero
  assert.equal(rate.take(0), 0);
  assert.equal(rate.take(500), 500);
});

void test('an idle page saves up one second at most', () => {
  let now = 0;
  const rate = new UploadRate(1000, () => now);
  now += 60_000;
  assert.equal(rate.take(1000), 0);
  assert.equal(rate.take(1), 1);
});
