import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runSmoke } from './smokeRun.js';
import { GATEWAY_CLI } from './gatewayInstance.js';

void test('smoke: a few hundred connections through the gateway and websockify, reports written', { timeout: 240_000 }, async (t) => {
  assert.ok(existsSync(GATEWAY_CLI), `build the gateway first (npx tsc -b gateway): ${GATEWAY_CLI}`);
  const resultsDir = await mkdtemp(join(tmpdir(), 'lanterna-loadtest-smoke-'));
  t.after(() => rm(resultsDir, { recursive: true, force: true }));
  const { report, written } = await runSmoke({ connections: 200, resultsDir, showProgress: false });

  assert.deepEqual(report.capacity.map((result) => result.case.id), ['kw-v1/lanterna', 'kw-v1/websockify']);
  for (const result of report.capacity) {
    assert.equal(result.error, undefined, `${result.case.id}: ${result.error ?? ''}`);
    assert.deepEqual(result.steps.map((step) => step.connections), [100, 200], result.case.id);
    for (const step of result.steps) {
      assert.equal(step.established, step.connections, `${result.case.id} at ${step.connections}: ${step.firstConnectError ?? step.lastFailure ?? ''}`);
      // 2 s hold at one request per 100 ms per connection: most must come back
      assert.ok(step.latency.count > step.connections * 10, `${result.case.id} at ${step.connections}: ${step.latency.count} responses`);
      assert.ok(step.latency.p50Ms > 0 && step.latency.p50Ms <= step.latency.p99Ms && step.latency.p99Ms <= step.latency.maxMs);
      assert.ok(step.relayCpuCores > 0, `${result.case.id} at ${step.connections}: relay cpu measured (${step.relayCpuCores} cores, ${step.relayProcesses} processes, ${step.latency.count} responses)`);
      assert.ok(step.relayMemoryMb > 0, 'relay memory measured');
    }
  }

  const json = JSON.parse(await readFile(written.json, 'utf8')) as { capacity: unknown[]; derived: { perCore: Record<string, unknown> } };
  assert.equal(json.capacity.length, 2);
  assert.ok('kw-v1' in json.derived.perCore);
  const markdown = await readFile(written.markdown, 'utf8');
  assert.match(markdown, /## Capacity per core/);
  assert.match(markdown, /1230 on 4 cores/);
  assert.match(markdown, /### kw-v1\/lanterna/);
  assert.match(markdown, /### kw-v1\/websockify/);
  const html = await readFile(written.html, 'utf8');
  assert.match(html, /^<!doctype html>/);
  assert.ok((html.match(/<svg /g) ?? []).length >= 1, 'html has a plot');
  assert.match(html, /<\/html>$/);
});
