import { test } from 'node:test';
import assert from 'node:assert/strict';
import { judgeCapacity, type StepVerdictInput } from './capacityVerdict.js';
import { rampTargets } from './capacityRamp.js';

const step = (connections: number, p99Ms: number, meanMs: number, extra: Partial<StepVerdictInput> = {}): StepVerdictInput =>
  ({ connections, established: connections, p99Ms, meanMs, generatorSaturated: false, lostSessions: 0, ...extra });

void test('capacity is the last step before p99 crosses the budget', () => {
  const capacity = judgeCapacity([step(100, 5, 2), step(200, 12, 4), step(300, 45, 9), step(400, 30, 38), step(500, 90, 60)], 40);
  assert.equal(capacity.byP99, 200);
  assert.equal(capacity.byMean, 400);
  assert.equal(capacity.lowerBoundOnly, false);
  assert.equal(capacity.note, undefined);
});

void test('a saturated generator or an untested limit gives only a lower bound', () => {
  const saturated = judgeCapacity([step(100, 5, 2), step(200, 10, 3, { generatorSaturated: true }), step(300, 80, 50)], 40);
  assert.equal(saturated.byP99, 100);
  assert.equal(saturated.lowerBoundOnly, true);
  assert.match(saturated.note ?? '', /generator saturated/);
  const limited = judgeCapacity([step(100, 5, 2), step(200, 6, 2)], 40);
  assert.equal(limited.byP99, 200);
  assert.equal(limited.lowerBoundOnly, true);
  assert.match(limited.note ?? '', /ramp ended/);
});

void test('lost sessions or unopened connections end the capacity', () => {
  assert.equal(judgeCapacity([step(100, 5, 2), step(200, 6, 2, { lostSessions: 3 })], 40).byP99, 100);
  assert.equal(judgeCapacity([step(100, 5, 2), step(200, 6, 2, { established: 150 })], 40).byP99, 100);
  assert.equal(judgeCapacity([step(100, 50, 45)], 40).byP99, 0);
});

void test('ramp targets step up and end exactly at the limit', () => {
  assert.deepEqual(rampTargets(250, 1000), [250, 500, 750, 1000]);
  assert.deepEqual(rampTargets(400, 1000), [400, 800, 1000]);
  assert.deepEqual(rampTargets(4000, 2500), [2500]);
  assert.deepEqual(rampTargets(0, 100), []);
});
