import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LatencyRecorder, mergeEncoded, summarizeEncoded } from './latencyHistogram.js';

void test('summary percentiles follow the recorded distribution', () => {
  const recorder = new LatencyRecorder();
  for (let ms = 1; ms <= 100; ms += 1) recorder.recordNanoseconds(ms * 1_000_000);
  const summary = recorder.summary();
  assert.equal(summary.count, 100);
  assert.ok(Math.abs(summary.p50Ms - 50) < 0.1, `p50 ${summary.p50Ms}`);
  assert.ok(Math.abs(summary.p99Ms - 99) < 0.1, `p99 ${summary.p99Ms}`);
  assert.ok(Math.abs(summary.maxMs - 100) < 0.1, `max ${summary.maxMs}`);
  assert.ok(Math.abs(summary.meanMs - 50.5) < 0.1, `mean ${summary.meanMs}`);
});

void test('encoded histograms from several generators merge exactly', () => {
  const fast = new LatencyRecorder();
  const slow = new LatencyRecorder();
  for (let i = 0; i < 900; i += 1) fast.recordNanoseconds(2_000_000);
  for (let i = 0; i < 100; i += 1) slow.recordNanoseconds(80_000_000);
  const merged = summarizeEncoded([fast.encode(), slow.encode()]);
  assert.equal(merged.count, 1000);
  assert.ok(Math.abs(merged.p50Ms - 2) < 0.01);
  assert.ok(Math.abs(merged.p95Ms - 80) < 0.1);
  assert.ok(Math.abs(merged.meanMs - 9.8) < 0.05, `mean ${merged.meanMs}`);
  fast.reset();
  assert.equal(fast.summary().count, 0);
  assert.equal(summarizeEncoded([]).count, 0);
});

void test('merged and re-encoded histograms keep every count (minutes merged into blocks)', () => {
  const minutes = [1, 2, 3].map((ms) => {
    const recorder = new LatencyRecorder();
    for (let i = 0; i < 10; i += 1) recorder.recordNanoseconds(ms * 1_000_000);
    return recorder.encode();
  });
  const block = summarizeEncoded([mergeEncoded(minutes.slice(0, 2)), minutes[2] ?? '']);
  assert.equal(block.count, 30);
  assert.ok(Math.abs(block.maxMs - 3) < 0.01);
  assert.ok(Math.abs(block.meanMs - 2) < 0.01);
});
