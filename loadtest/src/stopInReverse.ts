// A run starts its parts one after another and stops them last-first; one
// that fails to stop must not keep the others running.
import { oneMinuteLoad } from './machineInfo.js';

/** Runs the cleanups newest first, each whatever the previous one did. */
export async function stopInReverse(cleanups: readonly (() => unknown)[]): Promise<void> {
  for (const cleanup of [...cleanups].reverse()) {
    try { await cleanup(); } catch { /* keep stopping the rest */ }
  }
}

/** What every long run's result records about itself. */
export interface RunStamp {
  loadAverage: { start: number; end: number };
  durationSeconds: number;
}

/**
 * The end of a long run (chaos, soak): its parts stopped last-first, then
 * the load at the end and how long it took (from `startedMs`, a
 * performance.now()) stamped on its result.
 */
export async function endRun<Result extends RunStamp>(result: Result, cleanups: readonly (() => unknown)[], startedMs: number, note: (text: string) => void): Promise<Result> {
  note('stopping');
  await stopInReverse(cleanups);
  result.loadAverage.end = oneMinuteLoad();
  result.durationSeconds = Math.round((performance.now() - startedMs) / 100) / 10;
  return result;
}
