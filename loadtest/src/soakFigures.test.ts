import { test } from 'node:test';
import assert from 'node:assert/strict';
import { blockMinutesFor, soakBlocks, soakFigures, type SoakMinute } from './soakRun.js';
import { LatencyRecorder } from './latencyHistogram.js';

function minute(index: number, rssMb: number, fds: number, timers: number, roundTripMs: number, losses = 0): SoakMinute {
  const recorder = new LatencyRecorder();
  for (let i = 0; i < 100; i += 1) recorder.recordNanoseconds((i >= 95 ? roundTripMs : 1) * 1e6);
  return {
    minute: index,
    gateway: { processes: 1, rssBytes: rssMb * 2 ** 20, openFds: fds, resources: { TCPSocketWrap: fds - 20 }, timers, heapUsedBytes: 50 * 2 ** 20, heapTotalBytes: 60 * 2 ** 20, heapSpaceTotalBytes: { new: 16 * 2 ** 20, old: 40 * 2 ** 20 }, externalBytes: 10 * 2 ** 20, sessionsActive: 500, displaysOnline: 500 },
    histograms: { 'kw-v1': recorder.encode() },
    latency: recorder.summary(),
    sent: 100, received: 100, failures: 0, losses, lastLoss: undefined, churned: 15, relaying: 500, fleetCpuCores: 0.2, fleetLoopDelayP99Ms: 1, loadAverage: 2,
  };
}

void test('warm-up and blocks: ten minutes of an hour, one of a five-minute run', () => {
  assert.equal(blockMinutesFor(60), 10);
  assert.equal(blockMinutesFor(5), 1);
  assert.equal(blockMinutesFor(120), 10);
});

void test('a steady gateway passes; growth is measured from the end of the warm-up, not from the start', () => {
  // memory climbs during warm-up (ended sessions are kept 10 minutes), then holds
  const minutes = Array.from({ length: 6 }, (_unused, index) => minute(index + 1, index < 2 ? 100 + index * 20 : 121, 1520 + (index % 2) * 6, 4, 10));
  const blocks = soakBlocks(minutes, 2);
  assert.deepEqual(blocks.map((block) => `${block.fromMinute}-${block.toMinute}`), ['1-2', '3-4', '5-6']);
  const figures = soakFigures(minutes, blocks, 2);
  assert.ok(figures);
  assert.equal(figures.rss.warmMb, 120);
  assert.equal(figures.rss.growthPercent, 0.8);
  assert.deepEqual(figures.verdict, { rssGrowthUnder5Percent: true, noFdGrowth: true, noTimerGrowth: true, p99Flat: true, noFailures: true });
});

void test('a leak fails its check: memory, descriptors, timers, p99 and losses each', () => {
  const minutes = Array.from({ length: 6 }, (_unused, index) => minute(index + 1, 100 + index * 4, 1500 + index * 40, 4 + index * 3, 10 + index * 10, index === 4 ? 1 : 0));
  const figures = soakFigures(minutes, soakBlocks(minutes, 2), 2);
  assert.ok(figures);
  assert.equal(figures.rss.growthPercent, 15.4);
  assert.equal(figures.fds.growth, 160);
  assert.equal(figures.timers.growth, 12);
  assert.deepEqual(figures.verdict, { rssGrowthUnder5Percent: false, noFdGrowth: false, noTimerGrowth: false, p99Flat: false, noFailures: false });
});
