// The suite's short fuzz run: every corpus entry, then a few thousand
// mutations, in process and without coverage probes (outcome labels steer).
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
