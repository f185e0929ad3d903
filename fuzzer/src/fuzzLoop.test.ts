import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runFuzzLoop, type Crash } from './fuzzLoop.js';
import type { FuzzTarget } from './fuzzTarget.js';

/** Crashes on "ok!" at the start; its outcome labels say how much of that prefix matched. */
const prefixTarget: FuzzTarget = {
  name: 'prefix',
  checks: 'test target',
  maxInputBytes: 32,
  corpusExtension: '.bin',
  execute(input) {
    let matched = 0;
    while (matched < 3 && input[matched] === [0x6f, 0x6b, 0x21][matched]) matched++;
    if (matched === 3) throw new TypeError(`planted bug at length ${input.length}`);
    return `matched ${'x'.repeat(matched)}`;
  },
};

void test('the loop follows new outcomes to a bug, reports it once with its stack, and replays from its seed', () => {
  const run = (): { crashes: Crash[]; executions: number } => {
    const crashes: Crash[] = [];
    const stats = runFuzzLoop({ target: prefixTarget, seed: 3, executions: 200_000, corpus: [new Uint8Array(4)], onCrash: (crash) => crashes.push(crash), maxDistinctCrashes: 1 });
    return { crashes, executions: stats.executions };
  };
  const replayable = (result: { crashes: Crash[]; executions: number }): unknown =>
    ({ executions: result.executions, crashes: result.crashes.map((crash) => [crash.key, Buffer.from(crash.input).toString('hex')]) });
  const first = run();
  assert.equal(first.crashes.length, 1, 'the planted bug was not found');
  const crash = first.crashes[0];
  assert.ok(crash);
  assert.equal(crash.key, 'TypeError: planted bug at length #');
  assert.match(crash.error, /at Object\.execute/, 'the report has no stack');
  assert.deepEqual(Buffer.from(crash.input.subarray(0, 3)), Buffer.from('ok!'));
  assert.ok(first.executions < 200_000);
  assert.deepEqual(replayable(run()), replayable(first));
  assert.ok(Error.stackTraceLimit > 0, 'the loop left stack traces off');
});

void test('the corpus is replayed first, and its crashes are crashes too', () => {
  const crashes: Crash[] = [];
  const stats = runFuzzLoop({ target: prefixTarget, seed: 1, executions: 3, corpus: [Buffer.from('ok!'), Buffer.from('no')], onCrash: (crash) => crashes.push(crash) });
  assert.equal(stats.executions, 3);
  assert.equal(stats.crashes >= 1, true);
  assert.deepEqual(Buffer.from(crashes[0]?.input ?? []), Buffer.from('ok!'));
});
