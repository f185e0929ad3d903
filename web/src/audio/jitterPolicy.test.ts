import { test } from 'node:test';
import assert from 'node:assert/strict';
import { JitterPolicy, type JitterDecision } from './jitterPolicy.js';

const RATE = 48_000;
const frames = (ms: number): number => Math.round((ms * RATE) / 1000);
const PLAIN: JitterDecision = { kind: 'play', speed: 1, drop: 0 };

/** A steady link's depth at `t` (a 20 ms wave every 20 ms, read every 2 ms): a sawtooth from `low` + 18 down to `low`. */
const depth = (t: number, low: number): number => frames(low + 18 - (t % 20));

/** Plays the sawtooth for `ms` from `from`; the decisions' speeds. */
function sawtooth(policy: JitterPolicy, from: number, ms: number, low: () => number): number[] {
  const speeds: number[] = [];
  for (let t = from; t < from + ms; t += 2) {
    const decision = policy.decide(depth(t, low()), RATE, t);
    assert.equal(decision.kind, 'play');
    speeds.push(decision.speed);
  }
  return speeds;
}

test('waits for the 30 ms start level (a 10 ms margin and a wave), plays on, 2 % fast above 60 ms, drops back to it past 140 ms', () => {
  const policy = new JitterPolicy();
  assert.equal(policy.targetMs, 30);
  assert.equal(policy.marginMs, 10);
  assert.deepEqual(policy.decide(frames(29), RATE, 0), { kind: 'wait' });
  assert.deepEqual(policy.decide(frames(30), RATE, 1), PLAIN);
  // once playing, a shallower queue plays on (a dry one is ranDry's business)
  assert.deepEqual(policy.decide(frames(5), RATE, 2), PLAIN);
  assert.deepEqual(policy.decide(frames(60), RATE, 3), PLAIN);
  // a burst is not left for the next window
  assert.deepEqual(policy.decide(frames(61), RATE, 4), { kind: 'play', speed: 1.02, drop: 0 });
  assert.deepEqual(policy.decide(frames(140), RATE, 5), { kind: 'play', speed: 1.02, drop: 0 });
  assert.deepEqual(policy.decide(frames(141), RATE, 6), { kind: 'play', speed: 1, drop: frames(141) - frames(30) });
});

test('a queue whose low-water mark stays above the margin is drained to it by playing 2 % fast; one at the margin is left alone', () => {
  const policy = new JitterPolicy();
  policy.decide(frames(53), RATE, 0);
  // a second of a sawtooth between 35 and 53 ms (under the fast mark, 60 ms): 25 ms above the margin were never needed
  let low = 35;
  const first = sawtooth(policy, 0, 1000, () => low);
  assert.ok(first.every((speed) => speed === 1), 'nothing stretched while the first window is watched');
  // it drains 25 ms at 2 %: 1.25 s of playing fast (the depth follows what it consumed)
  let t = 1000;
  let fast = 0;
  for (; t < 5000; t += 2) {
    const decision = policy.decide(depth(t, low), RATE, t);
    assert.equal(decision.kind, 'play');
    if (decision.speed === 1.02) {
      fast += 2;
      low -= 2 * 0.02;
    }
  }
  assert.ok(Math.abs(fast - 1250) <= 10, `1.25 s played fast (${fast} ms)`);
  assert.ok(Math.abs(low - 10) < 0.5, `the low-water mark ends at the margin (${low.toFixed(1)} ms)`);
  // at the margin: nothing more to drain, window after window
  const after = sawtooth(policy, t, 4000, () => low);
  assert.ok(after.every((speed) => speed === 1), 'a queue at its margin plays at speed 1');
});

test('a dry queue raises the margin by the gap it stayed empty plus 5 ms, once the next wave shows it, up to 130 ms; kept a minute, then each calm 10 s lowers it by 10 ms back to 10', () => {
  const policy = new JitterPolicy();
  policy.decide(frames(60), RATE, 0);
  policy.ranDry(2000);
  assert.equal(policy.marginMs, 10, 'not raised before the gap is known');
  assert.deepEqual(policy.decide(0, RATE, 2010), { kind: 'wait' }, 'still empty');
  assert.equal(policy.marginMs, 10);
  // the next wave 20 ms after the queue ran dry: 20 + 5 ms more margin
  assert.deepEqual(policy.decide(frames(10), RATE, 2020), { kind: 'wait' });
  assert.equal(policy.marginMs, 35);
  assert.equal(policy.targetMs, 55);
  assert.deepEqual(policy.decide(frames(54), RATE, 2030), { kind: 'wait' }, 'restarts only at the raised start level');
  assert.deepEqual(policy.decide(frames(55), RATE, 2040), PLAIN);
  // what the output left queued at the dry queue (a frame to interpolate towards) is no wave
  policy.ranDry(2060, 1);
  policy.decide(1, RATE, 2063);
  assert.equal(policy.marginMs, 35, 'the frame left behind is not the next wave');
  policy.decide(frames(10), RATE, 2080);
  assert.equal(policy.marginMs, 60, 'the next wave 20 ms later: 25 ms more');
  assert.deepEqual(policy.decide(frames(80), RATE, 2090), PLAIN);
  // a short hiccup costs little: 3 ms empty, 8 ms more
  policy.ranDry(2100);
  policy.decide(frames(10), RATE, 2103);
  assert.equal(policy.marginMs, 68);
  // a long stall raises it to what it needs at once, bounded
  policy.ranDry(2200);
  policy.decide(frames(10), RATE, 2400);
  assert.equal(policy.marginMs, 130, 'bounded');
  assert.deepEqual(policy.decide(frames(261), RATE, 2410), { kind: 'play', speed: 1, drop: frames(261) - frames(150) }, 'the bound moves with the start level: 150 + 110 ms');
  // kept for a minute after the dry queue that needed it, however calm
  for (let now = 12_409; now < 62_400; now += 10_000) policy.decide(frames(150), RATE, now);
  assert.equal(policy.marginMs, 130, 'what the last dry queue needed, for a minute');
  policy.decide(frames(150), RATE, 62_409);
  assert.equal(policy.marginMs, 120, 'then 10 ms off each calm 10 s');
  let now = 62_409;
  for (let i = 0; i < 20; i++) policy.decide(frames(150), RATE, (now += 10_000));
  assert.equal(policy.marginMs, 10);
});

test('start-up grace: a dry queue in the first second of playing waits for a raised start level but leaves the margin; one after it raises the margin', () => {
  const policy = new JitterPolicy();
  assert.deepEqual(policy.decide(frames(30), RATE, 100), PLAIN);
  policy.ranDry(400);
  // the next wave 20 ms later
  assert.deepEqual(policy.decide(frames(10), RATE, 420), { kind: 'wait' });
  assert.equal(policy.marginMs, 10, 'the session starting is not the link\'s jitter');
  assert.equal(policy.targetMs, 55, 'but the restart waits for more');
  assert.deepEqual(policy.decide(frames(54), RATE, 500), { kind: 'wait' });
  assert.deepEqual(policy.decide(frames(55), RATE, 600), PLAIN);
  // past the grace the start level is the margin's again
  policy.decide(frames(55), RATE, 1100);
  assert.equal(policy.targetMs, 30);
  policy.ranDry(1200);
  policy.decide(frames(10), RATE, 1220);
  assert.equal(policy.marginMs, 35, 'a dry queue after the start-up raises the margin');
  assert.equal(policy.targetMs, 55);
});
