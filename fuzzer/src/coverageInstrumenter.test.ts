import { test } from 'node:test';
import assert from 'node:assert/strict';
import { COVERAGE_GLOBAL, instrumentModule } from './coverageInstrumenter.js';

const SOURCE = `
export function classify(values, flag) {
  let out = [];
  for (const value of values) {
    if (value > 10) out.push('big');
    else if (value < 0) out.push('negative');
    switch (value) {
      case 3: out.push('three'); break;
      default: break;
    }
  }
  const pick = flag ? (() => 'yes')() : 'no';
  try { if (flag === 'throw') throw new Error('x'); } catch { out.push('caught'); }
  return [...out, pick, flag && 'and', flag || 'or', flag ?? 'nullish'].join(',');
}
export class Box { #v; constructor(v) { this.#v = v; } get value() { return this.#v ?? 'none'; } }
`;

async function load(code: string): Promise<Record<string, unknown>> {
  return (await import(`data:text/javascript,${encodeURIComponent(code)}`)) as Record<string, unknown>;
}

void test('instrumented code computes what the original does and counts the blocks it ran', async () => {
  const instrumented = instrumentModule(SOURCE, 'classify.js', 5);
  assert.ok(instrumented.probes >= 20, `only ${instrumented.probes} probes`);
  assert.match(instrumented.code, new RegExp(`globalThis\\.${COVERAGE_GLOBAL}`));
  const counters = new Uint32Array(64);
  (globalThis as Record<string, unknown>)[COVERAGE_GLOBAL] = counters;
  const plain = await load(SOURCE);
  const probed = await load(instrumented.code);
  type Classify = (values: number[], flag: unknown) => string;
  const cases: [number[], unknown][] = [[[1, 20, -3, 3], true], [[], false], [[3, 3], 'throw'], [[11], null], [[0], 0]];
  for (const [values, flag] of cases) assert.equal((probed.classify as Classify)(values, flag), (plain.classify as Classify)(values, flag));
  type BoxClass = new (v: unknown) => { value: unknown };
  assert.equal(new (probed.Box as BoxClass)(undefined).value, 'none');
  assert.equal(counters.slice(0, 5).reduce((a, b) => a + b, 0), 0, 'probe ids below the first were used');
  const hit = counters.slice(5, 5 + instrumented.probes).filter((count) => count > 0).length;
  assert.ok(hit >= instrumented.probes - 2, `only ${hit} of ${instrumented.probes} probes hit by inputs that run every block`);
  assert.equal(counters.slice(5 + instrumented.probes).reduce((a, b) => a + b, 0), 0, 'probe ids past the last were used');
});
