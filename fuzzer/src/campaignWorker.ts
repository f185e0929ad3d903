// One target's fuzz loop in a worker thread: registers the coverage hooks
// before the target is imported (so the modules under test load
// instrumented), runs the loop and reports to the campaign on the main
// thread. Before each input it copies the input into shared memory and after
// it bumps a shared counter: when the counter stops, the main thread knows
// which input hangs even though this thread can no longer speak.
import { register } from 'node:module';
import { MessageChannel, parentPort, receiveMessageOnPort, workerData, type MessagePort } from 'node:worker_threads';
import { CoverageFeedback } from './coverageFeedback.js';
import type { CoverageHookData, ProbeMap } from './coverageHooks.js';
import type { CampaignTargetSpec, FuzzTarget } from './fuzzTarget.js';
import { runFuzzLoop, type Crash, type Finding, type LoopStats } from './fuzzLoop.js';

export interface WorkerInput {
  readonly spec: CampaignTargetSpec;
  readonly seed: number;
  readonly executions: number;
  readonly timeLimitMs: number | undefined;
  readonly startAt: number;
  readonly coverage: boolean;
  readonly trim: boolean;
  readonly corpus: readonly Uint8Array[];
  readonly found: readonly Uint8Array[];
  /** [0] executions, [1] length of the input in `input`, [2] 1 once the loop runs. */
  readonly control: Int32Array;
  readonly input: Uint8Array;
}

export type WorkerMessage =
  | { readonly kind: 'ready'; readonly checks: string; readonly extension: string; readonly probes: number }
  | { readonly kind: 'progress'; readonly stats: LoopStats }
  | { readonly kind: 'finding'; readonly finding: Finding }
  | { readonly kind: 'crash'; readonly crash: Crash }
  | { readonly kind: 'done'; readonly stats: LoopStats; readonly uncovered: readonly string[] };

const COVERAGE_CAPACITY = 1 << 16;

/** `file.js:line` of every block no input reached, from the probe maps the loader hooks sent. */
function uncoveredBlocks(coverage: CoverageFeedback, maps: MessagePort): string[] {
  const where = new Map<number, string>();
  for (let message = receiveMessageOnPort(maps); message; message = receiveMessageOnPort(maps)) {
    const map = message.message as ProbeMap;
    const file = map.url.slice(map.url.lastIndexOf('/') + 1);
    map.lines.forEach((line, i) => where.set(map.first + i, `${file}:${line}`));
  }
  return [...new Set(coverage.unhit().map((id) => where.get(id) ?? `probe ${id}`))];
}

function isFuzzTarget(value: unknown): value is FuzzTarget {
  return typeof value === 'object' && value !== null && typeof (value as { execute?: unknown }).execute === 'function';
}

async function main(): Promise<void> {
  const input = workerData as WorkerInput;
  const port = parentPort;
  if (port === null) throw new Error('the campaign worker runs only as a worker thread');
  const post = (message: WorkerMessage): void => port.postMessage(message);
  let coverage: CoverageFeedback | undefined;
  const maps = new MessageChannel();
  if (input.coverage) {
    coverage = new CoverageFeedback(COVERAGE_CAPACITY);
    coverage.install();
    const data: CoverageHookData = { prefixes: input.spec.instrument, state: coverage.state, port: maps.port2 };
    register(new URL('./coverageHooks.js', import.meta.url), { data, transferList: [maps.port2] });
  }
  const loaded: unknown = ((await import(input.spec.module)) as { fuzzTarget?: unknown }).fuzzTarget;
  if (!isFuzzTarget(loaded)) throw new TypeError(`${input.spec.module} exports no fuzzTarget`);
  const target = loaded;
  post({ kind: 'ready', checks: target.checks, extension: target.corpusExtension, probes: coverage?.probes ?? 0 });
  const { control, input: slot } = input;
  Atomics.store(control, 2, 1);
  const stats = runFuzzLoop({
    target,
    seed: input.seed,
    executions: input.executions,
    timeLimitMs: input.timeLimitMs,
    startAt: input.startAt,
    corpus: input.corpus,
    found: input.found,
    ...(coverage ? { coverage } : {}),
    trim: input.trim,
    beforeRun: (bytes) => {
      const length = Math.min(bytes.length, slot.length);
      slot.set(bytes.subarray(0, length));
      Atomics.store(control, 1, length);
    },
    afterRun: (executions) => Atomics.store(control, 0, executions),
    onFinding: (finding) => post({ kind: 'finding', finding }),
    onCrash: (crash) => post({ kind: 'crash', crash }),
    onProgress: (progress) => post({ kind: 'progress', stats: progress }),
  });
  post({ kind: 'done', stats, uncovered: coverage ? uncoveredBlocks(coverage, maps.port1) : [] });
  maps.port1.close();
}

await main();
