import { test } from 'node:test';
import assert from 'node:assert/strict';
import { bystanderFigures, reconnectFigures } from './chaosRun.js';
import type { DisplayWindow } from './pageLikeDisplay.js';

const KILL_NS = 1e12;

function window(id: string, fields: Partial<DisplayWindow>): DisplayWindow {
  return {
    id, losses: 0, lastLoss: undefined, firstLossNs: undefined, firstLoss: undefined, attempts: 0, welcomeNs: undefined, projectNs: undefined, backNs: undefined, responses: 50, maxRoundTripNs: 5e6, maxGapNs: 110e6, relaying: true, ...fields };
}

void test('reconnect times run from the kill to the first response on a new session; stragglers are counted, not timed', () => {
  const windows = [
    ...[800, 1200, 2100, 6000].map((ms, index) => window(`v${index}`, {
      losses: 1, lastLoss: 'control socket closed', firstLoss: 'control socket closed', firstLossNs: KILL_NS + 5e6, attempts: index + 1,
      welcomeNs: KILL_NS + (ms - 300) * 1e6, projectNs: KILL_NS + (ms - 200) * 1e6, backNs: KILL_NS + ms * 1e6,
    })),
    window('v-never', { losses: 2, firstLoss: 'session ended', firstLossNs: KILL_NS + 5e6 }),
    window('v-unaware', {}),
    window('b0', {}),
  ];
  const figures = reconnectFigures(windows, new Set(['v0', 'v1', 'v2', 'v3', 'v-never', 'v-unaware']), KILL_NS, 5000);
  const { recovery, ...times } = figures;
  assert.deepEqual(times, { displays: 6, back: 4, backWithinBudget: 3, notBack: 2, p50Ms: 1200, p95Ms: 6000, maxMs: 6000, noticedNothing: 1 });
  assert.deepEqual(recovery, {
    firstLosses: { 'control socket closed': 4, 'session ended': 1 },
    attemptsP50: 2, attemptsMax: 4,
    welcome: { displays: 4, p50Ms: 900, p95Ms: 5700 },
    project: { displays: 4, p50Ms: 1000, p95Ms: 5800 },
  }, 'each step timed from the kill, over the displays that reached it');
});

void test('bystanders: any loss counts, and a stall is the longest gap less the request interval', () => {
  const onVictim = new Set(['v0']);
  const windows = [
    window('v0', { losses: 1, maxRoundTripNs: 900e6 }),
    window('b0', { maxRoundTripNs: 12e6, maxGapNs: 180e6 }),
    window('b1', { losses: 1, lastLoss: 'session ended: data socket closed with 1006', maxRoundTripNs: 30e6 }),
  ];
  const figures = bystanderFigures(windows, onVictim, 100);
  assert.equal(figures.displays, 2);
  assert.equal(figures.disturbed, 1);
  assert.equal(figures.errors, 1);
  assert.equal(figures.firstError, 'session ended: data socket closed with 1006');
  assert.equal(figures.maxRoundTripMs, 30, 'the victim\'s displays are not bystanders');
  assert.equal(figures.maxStallMs, 80);
});
