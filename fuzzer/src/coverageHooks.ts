// Module loader hooks (node:module register) that hand out instrumented
// source for the modules under test, so targets import them as usual and the
// campaign still sees their block coverage. Runs on Node's loader thread;
// probe ids are numbered densely across modules in load order, and the count
// so far is published in a shared Int32Array for the fuzz loop to scan.
import type { InitializeHook, LoadHook } from 'node:module';
import type { MessagePort } from 'node:worker_threads';
import { instrumentModule } from './coverageInstrumenter.js';

export interface CoverageHookData {
  /** URL prefixes of the modules to instrument. */
  readonly prefixes: readonly string[];
  /** [0]: probes handed out so far; [1]: probe capacity of the counters. */
  readonly state: Int32Array;
  /** Where each instrumented module's probes are told (ProbeMap messages). */
  readonly port: MessagePort;
}

/** Which probes a module got, and the source line of each. */
export interface ProbeMap {
  readonly url: string;
  readonly first: number;
  readonly lines: readonly number[];
}

let prefixes: readonly string[] = [];
let state: Int32Array | undefined;
let port: MessagePort | undefined;

export const initialize: InitializeHook<CoverageHookData> = (data) => {
  prefixes = data.prefixes;
  state = data.state;
  port = data.port;
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
  const map: ProbeMap = { url, first, lines: instrumented.lines };
  port?.postMessage(map);
  return { format: 'module', source: instrumented.code, shortCircuit: true };
};
