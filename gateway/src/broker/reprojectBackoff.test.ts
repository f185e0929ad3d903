import { test } from 'node:test';
import assert from 'node:assert/strict';
import { afterSessionEnd, projectedAt, STABLE_SESSION_MS, type BackoffLimits, type ReprojectionState } from './reprojectBackoff.js';

/** Per-display states, as a store keeps them. */
function displays(limits: BackoffLimits) {
  const states = new Map<string, ReprojectionState>();
  return {
    projected(id: string, now: number): void { states.set(id, projectedAt(states.get(id), now)); },
    forget(id: string): void { states.delete(id); },
    delayAfterEnd(id: string, now: number): number {
      const { delayMs, state } = afterSessionEnd(states.get(id), now, limits);
      states.set(id, state);
      return delayMs;
    },
  };
}

test('sessions that fail at once double the pause up to the ceiling; a long session resets it', () => {
  let now = 0;
  const backoff = displays({ baseMs: 2000, maxMs: 60_000 });
  const delays: number[] = [];
  for (let i = 0; i < 7; i++) {
    backoff.projected('sign', now);
    now += 500; // fails half a second in
    const delay = backoff.delayAfterEnd('sign', now);
    delays.push(delay);
    now += delay;
  }
  assert.deepEqual(delays, [2000, 4000, 8000, 16_000, 32_000, 60_000, 60_000]);

  backoff.projected('sign', now);
  now += STABLE_SESSION_MS + 1; // a real presentation
  assert.equal(backoff.delayAfterEnd('sign', now), 0, 'after a real presentation the screen comes back at once');
  backoff.projected('sign', now);
  now += 100;
  assert.equal(backoff.delayAfterEnd('sign', now), 2000, 'the first failure after a good session waits the base pause');
  backoff.projected('sign', now);
  now += 100;
  assert.equal(backoff.delayAfterEnd('sign', now), 4000);
});

test('displays back off independently, and a reconnect starts again from the base', () => {
  let now = 0;
  const backoff = displays({ baseMs: 1000, maxMs: 10_000 });
  for (const id of ['a', 'a', 'a']) {
    backoff.projected(id, now);
    now += 10;
    backoff.delayAfterEnd(id, now);
  }
  backoff.projected('b', now);
  now += 10;
  assert.equal(backoff.delayAfterEnd('b', now), 1000);
  backoff.projected('a', now);
  now += 10;
  assert.equal(backoff.delayAfterEnd('a', now), 8000);
  backoff.forget('a');
  backoff.projected('a', now);
  now += 10;
  assert.equal(backoff.delayAfterEnd('a', now), 1000);
});

test('an end with no recorded projection counts as a stable session: projected again at once', () => {
  assert.deepEqual(afterSessionEnd(undefined, 5000, { baseMs: 1000, maxMs: 8000 }), { delayMs: 0, state: { projectedAt: 0, failures: 0 } });
});
