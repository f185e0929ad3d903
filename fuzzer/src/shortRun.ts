// The suite's short fuzz run: every corpus entry, then a few thousand
// mutations, in process and without coverage probes (outcome labels steer).
import assert from 'node:assert/strict';
import { readCorpus } from './corpusStore.js';
import { runFuzzLoop, type Crash, type LoopStats } from './fuzzLoop.js';
import type { FuzzTarget } from './fuzzTarget.js';

export interface ShortRunResult {
  readonly stats: LoopStats;
  readonly crashes: readonly Crash[];
}

export function runShortFuzz(target: FuzzTarget, options: { corpusDir: string; mutations: number; seed?: number }): ShortRunResult {
  const corpus = readCorpus(options.corpusDir).map((entry) => entry.bytes);
  const crashes: Crash[] = [];
  const stats = runFuzzLoop({
    target,
    seed: options.seed ?? (Date.now() | 0),
    executions: corpus.length + options.mutations,
    corpus,
    onCrash: (crash) => crashes.push(crash),
  });
  return { stats, crashes };
}

/** A crash as a readable assertion message: the key, the input in hex (first 256 bytes), the stack. */
export function describeCrashes(crashes: readonly Crash[]): string {
  return crashes
    .map((crash) => `${crash.key}\ninput (${crash.input.length} bytes): ${Buffer.from(crash.input.subarray(0, 256)).toString('hex')}\n${crash.error}`)
    .join('\n\n');
}

/**
 * A short run as the suite checks it: the corpus holds at least
 * `minimumCorpus` inputs, nothing crashed, every input ran, and the target
 * told more than one outcome apart (one outcome means it never got past its
 * first check).
 */
export function assertShortFuzz(target: FuzzTarget, options: { corpusDir: string; minimumCorpus: number; mutations: number }): ShortRunResult {
  const { corpusDir, minimumCorpus, mutations } = options;
  assert.ok(readCorpus(corpusDir).length >= minimumCorpus, `${corpusDir} holds fewer than ${minimumCorpus} inputs`);
  const result = runShortFuzz(target, { corpusDir, mutations });
  assert.equal(result.crashes.length, 0, describeCrashes(result.crashes));
  assert.equal(result.stats.executions, result.stats.corpusEntries + mutations);
  assert.ok(result.stats.outcomes > 1, `only ${result.stats.outcomes} distinct outcome`);
  return result;
}
