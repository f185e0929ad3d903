// The chaos scenario in small: 100 page-like displays through a gateway of
// two workers, one worker killed with SIGKILL. Every display that had a
// socket in it relays again within 5 s; no other display notices anything.
// (The full run, 1,000 displays and a whole instance behind HAProxy too, is
// `./loadtest/run-loadtest.sh run --scenario chaos`.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { runChaosPhase } from './chaosRun.js';
import { GATEWAY_CLI } from './gatewayInstance.js';
import { KW_V1_SHAPE } from './trafficShapes.js';

void test('chaos, small: kill -9 of one gateway worker under 100 displays — all back within 5 s, bystanders undisturbed', { timeout: 120_000 }, async () => {
  assert.ok(existsSync(GATEWAY_CLI), `build the gateway first (npx tsc -b gateway): ${GATEWAY_CLI}`);
  const result = await runChaosPhase('worker', {
    sessions: 100, phases: ['worker'], shape: KW_V1_SHAPE, workers: 2, fleets: 1,
    reconnectBudgetMs: 5000, latencyBudgetMs: 40, recoveryDeadlineMs: 15_000,
    startSpreadMs: 2000, startDeadlineMs: 60_000, sessionAgeMs: 0, baselineMs: 1000, afterMs: 1000, probeDisplays: 10, bystanderStallBudgetMs: 100, loadSideNiceness: 10, realtimeInstruments: ['probe', 'balancer'],
  });
  assert.equal(result.error, undefined, result.error);
  assert.equal(result.unplaced, 0, 'every display\'s sockets were found in a worker before the kill');
  // round-robin accepts put both sockets of most displays on different workers: the killed worker held many
  assert.ok(result.reconnect.displays >= 25, `displays on the killed worker: ${result.reconnect.displays}`);
  assert.equal(result.reconnect.noticedNothing, 0);
  assert.equal(result.reconnect.notBack, 0, 'every display on the killed worker relays again');
  assert.equal(result.reconnect.backWithinBudget, result.reconnect.displays, `reconnect max ${result.reconnect.maxMs ?? '-'} ms`);
  assert.equal(result.bystanders.displays + result.reconnect.displays, 100);
  assert.equal(result.bystanders.errors, 0, `a bystander was disturbed: ${result.bystanders.firstError ?? ''}`);
  // the probe fleet ran its share of the displays, and its bystanders were measured apart
  assert.ok(result.probe, 'the probe fleet\'s figures');
  assert.equal(result.probe.displays, 10);
  assert.equal(result.probe.bystanders.errors, 0);
  assert.notEqual(result.verdict.probeStallWithinBystanderBudget, undefined);
  // the worker phase has no balancer: the probe fleet and its echo host alone ran under SCHED_RR
  assert.deepEqual(result.realtime, ['the probe fleet', 'its echo host']);
  assert.ok(result.replacementSeconds !== undefined && result.replacementSeconds < 10, 'the primary replaced the worker');
});
