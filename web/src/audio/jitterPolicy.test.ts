import { test } from 'node:test';
import assert from 'node:assert/strict';
import { JitterPolicy } from './jitterPolicy.js';

const RATE = 48_000;
const frames = (ms: number): number => Math.round((ms * RATE) / 1000);

test('waits for the 50 ms target, then plays at speed 1 up to 80 ms, 2 % fast above, drops back to the target past 160 ms', () => {
  const policy = new JitterPolicy();
  assert.deepEqual(policy.decide(frames(49), RATE, 0), { kind: 'wait' });
  assert.deepEqual(policy.decide(frames(50), RATE, 1), { kind: 'play', speed: 1, drop: 0 });
  // once playing, a shallower queue plays on (a dry one is ranDry's business)
  assert.deepEqual(policy.decide(frames(10), RATE, 2), { kind: 'play', speed: 1, drop: 0 });
  assert.deepEqual(policy.decide(frames(80), RATE, 3), { kind: 'play', speed: 1, drop: 0 });
  assert.deepEqual(policy.decide(frames(81), RATE, 4), { kind: 'play', speed: 1.02, drop: 0 });
  assert.deepEqual(policy.decide(frames(161), RATE, 5), { kind: 'play', speed: 1, drop: frames(161) - frames(50) });
});

test('a dry queue raises the target by 25 ms up to 150 ms; each calm 10 s lowers it by 10 ms back to 50', () => {
  const policy = new JitterPolicy();
  policy.decide(frames(60), RATE, 0);
  policy.ranDry(100);
  assert.equal(policy.targetMs, 75);
  assert.deepEqual(policy.decide(frames(60), RATE, 200), { kind: 'wait' }, 'restarts only at the raised target');
  for (let i = 0; i < 10; i++) policy.ranDry(300 + i);
  assert.equal(policy.targetMs, 150, 'bounded');
  assert.deepEqual(policy.decide(frames(261), RATE, 400), { kind: 'play', speed: 1, drop: frames(261) - frames(150) }, 'the bound moves with the target: 150 + 110 ms');
  policy.decide(frames(150), RATE, 10_309);
  assert.equal(policy.targetMs, 140);
  let now = 10_309;
  for (let i = 0; i < 20; i++) policy.decide(frames(100), RATE, (now += 10_000));
  assert.equal(policy.targetMs, 50);
});
