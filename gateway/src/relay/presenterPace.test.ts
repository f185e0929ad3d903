import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PresenterPace } from './presenterPace.js';

void test('a second in which the gateway held the page back is reported once: held ms, the stretch, bytes per second', () => {
  const pace = new PresenterPace(0);
  pace.read(48_000);
  pace.held(300);
  assert.equal(pace.report(600), null, 'not before a second');
  pace.read(48_000);
  pace.held(350);
  assert.deepEqual(pace.report(1200), { type: 'pace', heldMs: 650, ofMs: 1200, bytesPerSecond: 80_000 });
  assert.equal(pace.report(1300), null, 'the next stretch starts at the report');
});

void test('a second without holding back says nothing, and starts the next stretch', () => {
  const pace = new PresenterPace(0);
  pace.read(1_000_000);
  assert.equal(pace.report(1000), null);
  pace.held(100);
  assert.equal(pace.report(1500), null, 'under a second since the last stretch began');
  assert.deepEqual(pace.report(2000), { type: 'pace', heldMs: 100, ofMs: 1000, bytesPerSecond: 0 });
});

void test('a planned wait longer than the stretch is reported as the whole stretch, never more', () => {
  const pace = new PresenterPace(0);
  pace.held(5000);
  assert.deepEqual(pace.report(1000), { type: 'pace', heldMs: 1000, ofMs: 1000, bytesPerSecond: 0 });
});
