// Runs the fuzz targets under fast-check for a time budget. fast-check, not
// Jazzer.js: Jazzer.js 4's bundled native fuzzer needs glibc 2.38 (Debian 12
// has 2.36) and older releases download their native part from GitHub.
import fc from 'fast-check';
import { checkFramerCase } from './framerFuzzTarget.js';
import { framerFuzzCase, x224FuzzInput } from './fuzzInputs.js';
import { fuzzX224 } from './x224FuzzTarget.js';

export interface CampaignResult {
  readonly target: string;
  readonly runs: number;
  readonly seed: number;
  readonly milliseconds: number;
}

export class FuzzFailure extends Error {
  constructor(readonly target: string, readonly report: string) {
    super(`fuzz target ${target} failed\n${report}`);
    this.name = 'FuzzFailure';
  }
}

export type FuzzTargetName = 'pdu-framer' | 'x224';
export const FUZZ_TARGETS: readonly FuzzTargetName[] = ['pdu-framer', 'x224'];

interface Outcome {
  readonly numRuns: number;
  /** fast-check's report with the seed and path to replay, when it failed. */
  readonly failure?: string;
}

function outcome<Ts>(details: fc.RunDetails<Ts>): Outcome {
  return details.failed ? { numRuns: details.numRuns, failure: fc.defaultReportMessage(details) } : { numRuns: details.numRuns };
}

function checkTarget(target: FuzzTargetName, seed: number, maxRuns: number, timeLimitMs: number): Outcome {
  const stop = fc.interruptAfterTimeLimit(timeLimitMs);
  if (target === 'pdu-framer') {
    return outcome(fc.check(fc.property(framerFuzzCase, (input) => checkFramerCase(input)), { seed, numRuns: maxRuns, plugins: [stop] }));
  }
  return outcome(fc.check(fc.property(x224FuzzInput, (input) => fuzzX224(input)), { seed, numRuns: maxRuns, plugins: [stop] }));
}

/** Runs one target until `timeLimitMs` passes (or `maxRuns`); throws FuzzFailure with a replayable seed. */
export function runCampaign(target: FuzzTargetName, timeLimitMs: number, seed = Date.now() | 0, maxRuns = 10_000_000): CampaignResult {
  const started = performance.now();
  const details = checkTarget(target, seed, maxRuns, timeLimitMs);
  if (details.failure !== undefined) throw new FuzzFailure(target, details.failure);
  return { target, runs: details.numRuns, seed, milliseconds: Math.round(performance.now() - started) };
}
