// What a fuzz target is: one function from bytes to an outcome label, which
// throws only when the code under test is wrong. Adding a target means writing
// one of these (plus, optionally, a generator of valid inputs) and one line in
// the owning package's campaign list.
import { AssertionError } from 'node:assert';
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

/**
 * What a target over text (JSON, XML, an invitation) declares: its run on the
 * input read as UTF-8 and a generator of text; `textFuzzTarget` makes the
 * FuzzTarget that reads and writes the bytes.
 */
export interface TextFuzzTargetSpec extends Omit<FuzzTarget, 'execute' | 'generate'> {
  readonly executeText: (text: string) => string;
  readonly generateText?: (random: SeededRandom) => string;
}

/**
 * A FuzzTarget whose bytes are text: decoded as UTF-8 with malformed
 * sequences replaced (U+FFFD), as a body reaches the code under test;
 * generated text encoded as UTF-8.
 */
export function textFuzzTarget({ executeText, generateText, ...target }: TextFuzzTargetSpec): FuzzTarget {
  const decoder = new TextDecoder();
  const encoder = new TextEncoder();
  return {
    ...target,
    execute: (input) => executeText(decoder.decode(input)),
    ...(generateText ? { generate: (random: SeededRandom) => encoder.encode(generateText(random)) } : {}),
  };
}

/**
 * A fuzz target's invariant: when it does not hold the code under test is
 * wrong, so it throws an AssertionError (a crash the campaign keeps), never
 * the parser's own typed error.
 */
export function invariant(condition: boolean, message: string): asserts condition {
  if (!condition) throw new AssertionError({ message });
}
