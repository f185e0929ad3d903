// Module loader hooks (node:module register) that hand out instrumented
// source for the modules under test, so targets import them as usual and the
// campaign still sees their block coverage. Runs on Node's loader thread;
// probe ids are numbered densely across modules in load order, and the count
// so far is published in a shared Int32Array for the fuzz loop to scan.
import type { InitializeHook, LoadHook } from 'node:module';
import { instrumentModule } from './coverageInstrumenter.js';

export interface CoverageHookData {
  /** URL prefixes of the modules to instrument. */
  readonly prefixes: readonly string[];
  /** [0]: probes handed out so far; [1]: probe capacity of the counters. */
  readonly state: Int32Array;
}

let prefixes: readonly string[] = [];
let state: Int32Array | undefined;

export const initialize: InitializeHook<CoverageHookData> = (data) => {
  prefixes = data.prefixes;
  state = data.state;
};

/** Test code and the targets themselves (a `fuzz/` folder below the prefix) are never instrumented. */
export function isInstrumented(url: string, under: readonly string[]): boolean {
  return under.some((prefix) => {
    if (!url.startsWith(prefix)) return false;
    const rest = url.slice(prefix.length);
    return !rest.startsWith('fuzz/') && !rest.includes('/fuzz/') && !rest.endsWith('.test.js');
  });
}

export const load: LoadHook = async (url, context, nextLoad) => {
  const loaded = await nextLoad(url, context);
  if (state === undefined || loaded.format !== 'module' || loaded.source === undefined || !isInstrumented(url, prefixes)) return loaded;
  const source = typeof loaded.source === 'string' ? loaded.source : new TextDecoder().decode(loaded.source);
  const first = Atomics.load(state, 0);
  const instrumented = instrumentModule(source, url, first);
  if (first + instrumented.probes > Atomics.load(state, 1)) throw new RangeError(`more coverage probes than the ${Atomics.load(state, 1)} counters (at ${url})`);
  Atomics.store(state, 0, first + instrumented.probes);
  return { format: 'module', source: instrumented.code, shortCircuit: true };
};
