import { test } from 'node:test';
import assert from 'node:assert/strict';
import { capacityCases, findScenario, SCENARIOS } from './scenarios.js';

void test('kw presets carry the whitepaper traffic and both relays', () => {
  const v1 = capacityCases('kw-v1', {}, 2);
  assert.deepEqual(v1.map((item) => item.id), ['kw-v1/lanterna', 'kw-v1/websockify']);
  assert.deepEqual(v1[0]?.pattern, { upBytes: 90, downBytes: 90, intervalMs: 100 });
  assert.deepEqual(capacityCases('kw-v2.2', { relays: ['lanterna'] }, 2).map((item) => item.pattern), [{ upBytes: 25, downBytes: 1669, intervalMs: 200 }]);
});

void test('sweeps expand into one case per value and honour overrides', () => {
  assert.deepEqual(capacityCases('packet-size', {}, 2).map((item) => item.pattern.upBytes), [10, 90, 200, 500, 1000, 2000]);
  const frequency = capacityCases('frequency', { holdSeconds: 2 }, 2);
  assert.deepEqual(frequency.map((item) => item.pattern.intervalMs), [10, 100, 500, 1000]);
  assert.ok(frequency.every((item) => item.ramp.holdSeconds === 2 && item.ramp.step <= item.ramp.max));
  assert.deepEqual(capacityCases('processors', {}, 3).map((item) => item.workers), [1, 2, 3]);
  assert.deepEqual(capacityCases('farm', { farmSizes: [1, 3] }, 2).map((item) => item.instances), [1, 3]);
  assert.equal(capacityCases('kw-v1', { maxConnections: 99_999 }, 2)[0]?.ramp.max, 5000, 'capped under the fd limit');
});

void test('every named scenario is known and unknown names are refused', () => {
  for (const scenario of SCENARIOS) assert.equal(findScenario(scenario.name).name, scenario.name);
  assert.throws(() => findScenario('kw-v9'), /unknown scenario kw-v9/);
  assert.throws(() => capacityCases('throughput', {}, 2), /unknown capacity scenario/);
});
