// What a fuzz target is: one function from bytes to an outcome label, which
// throws only when the code under test is wrong. Adding a target means writing
// one of these (plus, optionally, a generator of valid inputs) and one line in
// the owning package's campaign list.
import type { SeededRandom } from './seededRandom.js';

export interface FuzzTarget {
  readonly name: string;
  /** One line: what a run checks, printed beside the figures. */
  readonly checks: string;
  /**
   * Runs one input. Returns a short label of what happened (`ok`, the typed
   * error's code, the error template...) without text taken from the input:
   * a new label counts as new behaviour. Throws only for a bug: an exception
   * other than the parser's typed error, or a broken invariant.
   */
  execute(input: Uint8Array): string;
  /** Builds a valid (or nearly valid) input from scratch, for the mutator to start from. */
  generate?(random: SeededRandom): Uint8Array;
  /** Tokens the mutator inserts and overwrites with (keywords, magic bytes). */
  readonly dictionary?: readonly (string | Uint8Array)[];
  /** Inputs are kept at most this long. */
  readonly maxInputBytes: number;
  /** File name extension of corpus entries (`.bin`, `.json`, `.xml`). */
  readonly corpusExtension: string;
}

/** Where a campaign finds a target: the module that exports it, and what to instrument for coverage. */
export interface CampaignTargetSpec {
  readonly name: string;
  /** URL of an ES module exporting the FuzzTarget as `fuzzTarget`. */
  readonly module: string;
  /** The corpus folder (kept in the repository). */
  readonly corpusDir: string;
  /**
   * URL prefixes of the modules under test: they are loaded with block
   * coverage probes. Anything under a `/fuzz/` folder or named `*.test.js`
   * is never instrumented.
   */
  readonly instrument: readonly string[];
}

/** Text tokens become UTF-8 bytes once, up front. */
export function dictionaryBytes(target: FuzzTarget): Uint8Array[] {
  const encoder = new TextEncoder();
  return (target.dictionary ?? []).map((token) => (typeof token === 'string' ? encoder.encode(token) : token));
}
