import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ReprojectBackoff, STABLE_SESSION_MS } from './reprojectBackoff.js';

test('sessions that fail at once double the pause up to the ceiling; a long session resets it', () => {
  let now = 0;
  const backoff = new ReprojectBackoff(2000, 60_000, () => now);
  const delays: number[] = [];
  for (let i = 0; i < 7; i++) {
    backoff.projected('sign');
    now += 500; // fails half a second in
    const delay = backoff.delayAfterEnd('sign');
    delays.push(delay);
    now += delay;
  }
  assert.deepEqual(delays, [2000, 4000, 8000, 16_000, 32_000, 60_000, 60_000]);

  backoff.projected('sign');
  now += STABLE_SESSION_MS + 1; // a real presentation
  assert.equal(backoff.delayAfterEnd('sign'), 2000);
  backoff.projected('sign');
  now += 100;
  assert.equal(backoff.delayAfterEnd('sign'), 2000, 'the first failure after a good session waits the base pause');
  backoff.projected('sign');
  now += 100;
  assert.equal(backoff.delayAfterEnd('sign'), 4000);
});

test('displays back off independently, and a reconnect starts again from the base', () => {
  let now = 0;
  const backoff = new ReprojectBackoff(1000, 10_000, () => now);
  for (const id of ['a', 'a', 'a']) {
    backoff.projected(id);
    now += 10;
    backoff.delayAfterEnd(id);
  }
  backoff.projected('b');
  now += 10;
  assert.equal(backoff.delayAfterEnd('b'), 1000);
  backoff.projected('a');
  now += 10;
  assert.equal(backoff.delayAfterEnd('a'), 8000);
  backoff.forget('a');
  backoff.projected('a');
  now += 10;
  assert.equal(backoff.delayAfterEnd('a'), 1000);
});
