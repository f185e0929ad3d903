import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { executePlan } from './runPlan.js';
import { GO_GENERATOR_BINARY, goGeneratorBuilt, toGoMessage } from './goGenerator.js';
import { deriveFigures } from './runReport.js';
import { markdownReport } from './markdownReport.js';

const BUILD_SCRIPT = fileURLToPath(new URL('../generator-go/build.sh', import.meta.url));
const goInstalled = spawnSync('go', ['version']).status === 0;

void test('the go generator gets the wire details from the protocol package, per display where they differ', () => {
  const target = { kind: 'lanterna', baseUrl: 'ws://127.0.0.1:1', distinctSourceAddresses: true } as const;
  const configure = toGoMessage({ type: 'configure', target, pattern: { upBytes: 90, downBytes: 90, intervalMs: 100 }, connectConcurrency: 4, connectTimeoutMs: 1000 }, target) as { wire: { requestPdu: string; subprotocol: string } };
  assert.equal(configure.wire.subprotocol, 'lanterna.v1');
  const pdu = Buffer.from(configure.wire.requestPdu, 'base64');
  assert.equal(pdu.length, 90);
  assert.equal(pdu.readUInt16BE(2), 90);
  const open = toGoMessage({ type: 'open', displays: [{ id: 'lt-abcdef-00001', token: 't', index: 251 }] }, target) as { displays: { connectionRequest: string; localAddress?: string }[] };
  assert.match(Buffer.from(open.displays[0]?.connectionRequest ?? '', 'base64').toString('latin1'), /Cookie: mstshash=lt-abcdef\r\n/);
  assert.equal(open.displays[0]?.localAddress, '127.1.1.2');
});

void test('the go generator completes a tiny run against the go echo host directly, through the gateway, the pipe and pipe-go, with correct reports', { timeout: 300_000, skip: goInstalled ? false : 'go is not installed' }, async () => {
  execFileSync('bash', [BUILD_SCRIPT], { stdio: 'pipe' });
  assert.ok(goGeneratorBuilt(), `build.sh left no binary at ${GO_GENERATOR_BINARY}`);
  const connections = 20;
  const report = await executePlan({
    scenarios: ['kw-v1'],
    overrides: { step: connections, maxConnections: connections, holdSeconds: 2, relays: ['direct', 'lanterna', 'lanterna-native', 'pipe', 'pipe-go'] },
    settings: {
      // the budget this test judges by is the reports' plumbing, not latency: one stall of a
      // loaded machine in a 2 s hold put a relay's p99 over 40 ms and its per-core figure out
      cpus: os.availableParallelism(), generators: 1, budgetMs: 10_000, stopP99Ms: Number.POSITIVE_INFINITY, settleSeconds: 1, caseDeadlineSeconds: 60,
      saturation: { cpuCores: 0.9, loopDelayMs: 15 }, connectConcurrency: 8, connectTimeoutMs: 15_000, confirmHolds: 0, generator: 'go', echoHost: 'go',
    },
    throughputSeconds: 1, lfnBufferBytes: [], lfnSeconds: 1, showProgress: false, command: 'go generator test',
  });
  assert.deepEqual(report.capacity.map((result) => result.case.id), ['kw-v1/direct', 'kw-v1/lanterna', 'kw-v1/lanterna-native', 'kw-v1/pipe', 'kw-v1/pipe-go']);
  for (const result of report.capacity) {
    assert.equal(result.error, undefined, `${result.case.id}: ${result.error ?? ''}`);
    assert.equal(result.generator, 'go');
    assert.equal(result.echoHost, 'go');
    const [step] = result.steps;
    assert.ok(step, `${result.case.id}: no step`);
    assert.equal(step.established, connections, `${result.case.id}: ${step.firstConnectError ?? step.lastFailure ?? ''}`);
    assert.equal(step.lostSessions, 0, `${result.case.id}: ${step.lastFailure ?? ''}`);
    // 2 s at one request per 100 ms per connection; the histogram (Go's encoding, merged here) holds every response
    assert.ok(step.received > connections * 10, `${result.case.id}: ${step.received} responses`);
    assert.equal(step.latency.count, step.received, `${result.case.id}: histogram count`);
    assert.ok(step.latency.p50Ms > 0 && step.latency.p50Ms <= step.latency.p99Ms && step.latency.p99Ms <= step.latency.maxMs);
    // answers to requests sent just before the window may land in it, and the last ones after it
    assert.ok(Math.abs(step.sent - step.received) <= connections * 2, `${result.case.id}: sent ${step.sent}, received ${step.received}`);
    assert.ok(step.generatorCpuCores > 0 && step.generatorCpuUsPerRoundTrip !== undefined);
    if (result.case.relay !== 'direct') assert.ok(step.relayCpuUsPerRoundTrip !== undefined && step.relayCpuUsPerRoundTrip > 0, `${result.case.id}: relay cpu per round trip`);
  }
  const derived = deriveFigures(report);
  const perCore = derived.perCore['kw-v1'];
  assert.ok(perCore, 'kw-v1 has per-core figures');
  assert.ok(perCore.pipe !== undefined, 'the pipe baseline is in the per-core figures');
  assert.ok(perCore.pipeGo !== undefined, 'the pipe-go baseline is in the per-core figures');
  assert.ok(perCore.native !== undefined, 'the native data plane is in the per-core figures');
  // its share of pipe-go needs pipe-go to have held a step: on a loaded machine its one step can miss
  // the saturation rule (a clean clone at load 17), and a share of nothing is left out, not infinite
  const pipeGoHeld = report.capacity.find((result) => result.case.id === 'kw-v1/pipe-go')?.capacity.byP99 ?? 0;
  assert.ok(pipeGoHeld === 0 || perCore.nativeToPipeGo !== undefined, `the native data plane's share of pipe-go (${pipeGoHeld} held by pipe-go) is in the per-core figures`);
  const cost = perCore.cpuPerRoundTrip;
  assert.equal(cost?.connections, connections);
  for (const relay of ['lanternaUs', 'nativeUs', 'pipeUs', 'pipeGoUs'] as const) assert.ok((cost[relay] ?? 0) > 0, `${relay} at the shared step`);
  assert.match(markdownReport(report), /go generator, go echo host/);
});

void test('--kiosk-tls: both generators speak wss:// to the gateway and both pipes, trusting only their certificate, and the reports say wss', { timeout: 420_000, skip: goInstalled ? false : 'go is not installed' }, async () => {
  execFileSync('bash', [BUILD_SCRIPT], { stdio: 'pipe' });
  const connections = 10;
  for (const generator of ['go', 'node'] as const) {
    const report = await executePlan({
      scenarios: ['kw-v1'],
      overrides: { step: connections, maxConnections: connections, holdSeconds: 2, relays: ['lanterna', 'lanterna-native', 'pipe', 'pipe-go'] },
      settings: {
        cpus: os.availableParallelism(), generators: 1, budgetMs: 40, stopP99Ms: Number.POSITIVE_INFINITY, settleSeconds: 1, caseDeadlineSeconds: 60,
        // each generator with the echo host of its language
        saturation: { cpuCores: 0.9, loopDelayMs: 15 }, connectConcurrency: 8, connectTimeoutMs: 15_000, confirmHolds: 0, generator, echoHost: generator, kioskTls: true,
      },
      throughputSeconds: 1, lfnBufferBytes: [], lfnSeconds: 1, showProgress: false, command: 'kiosk tls test',
    });
    assert.deepEqual(report.capacity.map((result) => result.case.id), ['kw-v1/lanterna', 'kw-v1/lanterna-native', 'kw-v1/pipe', 'kw-v1/pipe-go']);
    for (const result of report.capacity) {
      const label = `${generator}/${result.case.id}`;
      assert.equal(result.error, undefined, `${label}: ${result.error ?? ''}`);
      assert.equal(result.generator, generator);
      assert.equal(result.echoHost, generator);
      // read from the URL the generators were given: an ignored option leaves ws
      assert.equal(result.kioskScheme, 'wss', label);
      const [step] = result.steps;
      assert.ok(step, `${label}: no step`);
      assert.equal(step.established, connections, `${label}: ${step.firstConnectError ?? step.lastFailure ?? ''}`);
      assert.equal(step.lostSessions, 0, `${label}: ${step.lastFailure ?? ''}`);
      assert.ok(step.received > connections * 10, `${label}: ${step.received} responses`);
      assert.ok(step.relayCpuUsPerRoundTrip !== undefined && step.relayCpuUsPerRoundTrip > 0, `${label}: relay cpu per round trip`);
    }
    assert.deepEqual(deriveFigures(report).perCore['kw-v1']?.kioskSchemes, { lanterna: 'wss', websockify: undefined, pipe: 'wss', 'pipe-go': 'wss', 'lanterna-native': 'wss' });
    const markdown = markdownReport(report);
    assert.match(markdown, /kiosk leg wss:\/\//);
    assert.doesNotMatch(markdown, /kiosk leg ws:\/\//);
  }
});
