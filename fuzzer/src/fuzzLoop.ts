// The fuzz loop: replay the corpus, then mutate corpus entries (and freshly
// generated valid inputs) and keep whatever does something new: new coverage
// when the modules under test are instrumented, a new outcome label always.
// Synchronous and deterministic for a seed; the campaign runs it in a worker
// with a watchdog, the suite runs it in process for a few thousand inputs.
import { ByteMutator } from './byteMutator.js';
import type { CoverageFeedback } from './coverageFeedback.js';
import { dictionaryBytes, type FuzzTarget } from './fuzzTarget.js';
import { SeededRandom } from './seededRandom.js';

export interface Crash {
  readonly input: Uint8Array;
  /** The exception's stack (or what was thrown). */
  readonly error: string;
  /** Its name and message with numbers blanked: crashes with one key are one bug. */
  readonly key: string;
}

export interface Finding {
  readonly input: Uint8Array;
  readonly reason: 'new-coverage' | 'new-outcome';
  /** The outcome label, or how many probes were new. */
  readonly detail: string;
}

export interface LoopStats {
  readonly executions: number;
  readonly crashes: number;
  readonly distinctCrashes: number;
  readonly corpusEntries: number;
  /** Inputs kept in memory (corpus plus what the run found). */
  readonly poolSize: number;
  readonly outcomes: number;
  readonly probes: number;
  readonly probesHit: number;
  readonly findings: number;
  readonly slowestMs: number;
  readonly elapsedMs: number;
}

export interface FuzzLoopOptions {
  readonly target: FuzzTarget;
  readonly seed: number;
  /** Stop after this many executions, corpus replay included. */
  readonly executions: number;
  readonly timeLimitMs?: number;
  /** The corpus on disk: replayed first, then mutated. */
  readonly corpus: readonly Uint8Array[];
  /** Inputs an earlier run (before a restart) already found. */
  readonly found?: readonly Uint8Array[];
  readonly coverage?: CoverageFeedback;
  /** Shrink each finding before reporting it (costs executions, keeps the corpus small). */
  readonly trim?: boolean;
  /** Stop after this many distinct crashes. */
  readonly maxDistinctCrashes?: number;
  /** Executions already done by an earlier worker (counts towards `executions`). */
  readonly startAt?: number;
  readonly beforeRun?: (input: Uint8Array) => void;
  readonly afterRun?: (executions: number) => void;
  readonly onFinding?: (finding: Finding) => void;
  readonly onCrash?: (crash: Crash) => void;
  readonly onProgress?: (stats: LoopStats) => void;
  readonly progressEveryMs?: number;
}

const POOL_CAP = 20_000;
const RECENT = 64;
const TRIM_BUDGET = 256;

/** Numbers (decimal or hex) blanked, so `length 7` and `length 9` are one outcome. */
function normalize(text: string): string {
  return text.replace(/\b0x[0-9a-f]+\b|\b[0-9a-f]*[0-9][0-9a-f]*\b/gi, '#').slice(0, 160);
}

function crashKey(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${normalize(error.message)}` : `thrown ${typeof error}`;
}

/** The stack is formatted only for a crash not seen before: formatting costs more than most inputs. */
function crashText(error: unknown): string {
  return error instanceof Error ? (error.stack ?? `${error.name}: ${error.message}`) : String(error);
}

export function runFuzzLoop(options: FuzzLoopOptions): LoopStats {
  const { target, coverage } = options;
  const random = new SeededRandom(options.seed);
  const mutator = new ByteMutator(random, dictionaryBytes(target), target.maxInputBytes);
  const pool: Uint8Array[] = [];
  const outcomes = new Set<string>();
  const crashKeys = new Set<string>();
  const started = performance.now();
  let executions = options.startAt ?? 0;
  let crashes = 0;
  let findings = 0;
  let slowestMs = 0;
  let lastProgress = started;
  const progressEveryMs = options.progressEveryMs ?? 2000;
  const maxDistinctCrashes = options.maxDistinctCrashes ?? 20;

  const stats = (): LoopStats => ({
    executions,
    crashes,
    distinctCrashes: crashKeys.size,
    corpusEntries: options.corpus.length,
    poolSize: pool.length,
    outcomes: outcomes.size,
    probes: coverage?.probes ?? 0,
    probesHit: coverage?.probesHit ?? 0,
    findings,
    slowestMs: Math.round(slowestMs * 1000) / 1000,
    elapsedMs: Math.round(performance.now() - started),
  });

  /** The exception an input throws, run again with stack traces on (the loop runs with them off). */
  const rethrown = (input: Uint8Array, first: unknown): unknown => {
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = stackTraceLimit;
    try {
      target.execute(input);
      return first;
    } catch (error) {
      return error;
    } finally {
      Error.stackTraceLimit = limit;
    }
  };

  /** Runs one input; returns its outcome label, or undefined when it crashed. */
  const run = (input: Uint8Array): string | undefined => {
    options.beforeRun?.(input);
    const before = performance.now();
    let outcome: string | undefined;
    try {
      outcome = normalize(target.execute(input));
    } catch (error) {
      crashes++;
      const key = crashKey(error);
      if (!crashKeys.has(key)) {
        crashKeys.add(key);
        options.onCrash?.({ input: input.slice(), key, error: crashText(rethrown(input, error)) });
      }
    }
    const took = performance.now() - before;
    if (took > slowestMs) slowestMs = took;
    executions++;
    options.afterRun?.(executions);
    return outcome;
  };

  /** Shrinks `input` while it still does the new thing. */
  const trim = (input: Uint8Array, outcome: string, probes: readonly number[]): Uint8Array => {
    let best = input;
    let budget = TRIM_BUDGET;
    for (let size = 1 << Math.floor(Math.log2(Math.max(1, best.length))); size >= 1 && budget > 0; size >>= 1) {
      for (let at = 0; at + size <= best.length && budget > 0; ) {
        const candidate = new Uint8Array(best.length - size);
        candidate.set(best.subarray(0, at));
        candidate.set(best.subarray(at + size), at);
        budget--;
        const same = run(candidate) === outcome;
        const covered = coverage ? coverage.hitAll(probes) : true;
        if (same && covered) best = candidate;
        else at += size;
      }
    }
    return best;
  };

  const consider = (input: Uint8Array, keep: boolean): void => {
    const outcome = run(input);
    const novelty = coverage?.collect();
    if (outcome === undefined) return;
    const newOutcome = !outcomes.has(outcome);
    if (newOutcome) outcomes.add(outcome);
    if (!newOutcome && !novelty?.newBuckets) return;
    pool.push(input);
    if (pool.length > POOL_CAP) pool.splice(RECENT + random.below(pool.length - 2 * RECENT), 1);
    const newProbes = novelty?.newProbes ?? [];
    if (!keep || (!newOutcome && newProbes.length === 0)) return;
    findings++;
    const kept = options.trim ? trim(input, outcome, newProbes) : input;
    options.onFinding?.({
      input: kept,
      reason: newProbes.length > 0 ? 'new-coverage' : 'new-outcome',
      detail: newProbes.length > 0 ? `${newProbes.length} new probes` : outcome,
    });
  };

  // Most inputs end in the parser's typed error, and capturing a stack trace
  // costs more than parsing a small input: traces are off while the loop runs.
  const stackTraceLimit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return loop();
  } finally {
    Error.stackTraceLimit = stackTraceLimit;
  }

  function loop(): LoopStats {
    for (const entry of options.corpus) consider(entry.subarray(0, target.maxInputBytes), false);
    for (const entry of options.found ?? []) consider(entry, false);
    if (pool.length === 0) pool.push(...options.corpus.slice(0, 1));
    if (pool.length === 0) pool.push(new Uint8Array(0));
    const donor = (): Uint8Array => random.pick(pool);

    const deadline = options.timeLimitMs === undefined ? Infinity : started + options.timeLimitMs;
    for (let iteration = 1; executions < options.executions && crashKeys.size < maxDistinctCrashes; iteration++) {
      let input: Uint8Array;
      if (target.generate && random.chance(0.12)) {
        input = target.generate(random);
        if (random.chance(0.5)) input = mutator.mutate(input, donor);
      } else {
        const parent = random.chance(0.25) ? (pool[pool.length - 1 - random.below(Math.min(RECENT, pool.length))] ?? donor()) : donor();
        input = mutator.mutate(parent, donor);
      }
      consider(input, true);
      if ((iteration & 0x3ff) === 0) {
        const now = performance.now();
        if (now >= deadline) break;
        if (now - lastProgress >= progressEveryMs) {
          lastProgress = now;
          options.onProgress?.(stats());
        }
      }
    }
    return stats();
  }
}
