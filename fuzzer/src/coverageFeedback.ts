// Reads the probe counters after each input and says whether it did
// something new: a probe never hit before, or a probe hit a number of times
// in a bucket not seen before (1, 2, 3, 4-7, 8-15, 16-31, 32-127, 128+), as
// AFL counts loop iterations. Then clears the counters for the next input.
import { COVERAGE_GLOBAL } from './coverageInstrumenter.js';

export interface Novelty {
  /** Probes hit for the first time. */
  readonly newProbes: readonly number[];
  /** Whether any probe reached a new hit-count bucket (new probes included). */
  readonly newBuckets: boolean;
}

const NOTHING_NEW: Novelty = { newProbes: [], newBuckets: false };

function bucket(hits: number): number {
  if (hits <= 3) return 1 << (hits - 1);
  if (hits < 8) return 8;
  if (hits < 16) return 16;
  if (hits < 32) return 32;
  if (hits < 128) return 64;
  return 128;
}

export class CoverageFeedback {
  readonly counters: Uint32Array;
  readonly #seen: Uint8Array;
  /** [0]: probes in use (written by the loader hooks). */
  readonly #state: Int32Array;
  #hit = 0;

  constructor(capacity: number) {
    this.#state = new Int32Array(new SharedArrayBuffer(8));
    this.#state[1] = capacity;
    this.counters = new Uint32Array(capacity);
    this.#seen = new Uint8Array(capacity);
  }

  /** Makes the counters the global the instrumented modules write to. */
  install(): void {
    (globalThis as Record<string, unknown>)[COVERAGE_GLOBAL] = this.counters;
  }

  /** Shared with the loader hooks. */
  get state(): Int32Array {
    return this.#state;
  }

  get probes(): number {
    return Atomics.load(this.#state, 0);
  }

  /** Probes hit at least once so far. */
  get probesHit(): number {
    return this.#hit;
  }

  /** What the last input did that is new; clears the counters. */
  collect(): Novelty {
    const counters = this.counters;
    const seen = this.#seen;
    const used = this.probes;
    let newProbes: number[] | undefined;
    let newBuckets = false;
    for (let i = 0; i < used; i++) {
      const hits = counters[i] ?? 0;
      if (hits === 0) continue;
      counters[i] = 0;
      const bit = bucket(hits);
      const before = seen[i] ?? 0;
      if ((before & bit) !== 0) continue;
      seen[i] = before | bit;
      newBuckets = true;
      if (before === 0) {
        this.#hit++;
        (newProbes ??= []).push(i);
      }
    }
    return newBuckets ? { newProbes: newProbes ?? [], newBuckets } : NOTHING_NEW;
  }

  /** Ids of the probes no input has hit yet. */
  unhit(): number[] {
    const ids: number[] = [];
    for (let i = 0; i < this.probes; i++) if (this.#seen[i] === 0) ids.push(i);
    return ids;
  }

  /** Whether every probe in `probes` was hit by the last input (for trimming); clears the counters. */
  hitAll(probes: readonly number[]): boolean {
    const all = probes.every((probe) => (this.counters[probe] ?? 0) > 0);
    this.counters.fill(0, 0, this.probes);
    return all;
  }
}
