import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ByteMutator } from './byteMutator.js';
import { SeededRandom } from './seededRandom.js';

function mutations(seed: number, count: number): string[] {
  const random = new SeededRandom(seed);
  const mutator = new ByteMutator(random, [new TextEncoder().encode('TOKEN')], 64);
  const start = new TextEncoder().encode('a fairly ordinary input');
  return Array.from({ length: count }, () => Buffer.from(mutator.mutate(start, () => start)).toString('hex'));
}

void test('mutations are a function of the seed', () => {
  assert.deepEqual(mutations(7, 200), mutations(7, 200));
  assert.notDeepEqual(mutations(7, 200), mutations(8, 200));
});

void test('mutations change the input, vary, stay under the cap and use the dictionary', () => {
  const out = mutations(1, 5000);
  const original = Buffer.from('a fairly ordinary input').toString('hex');
  assert.ok(out.filter((hex) => hex === original).length < 250, 'most mutations leave the input as it was');
  assert.ok(new Set(out).size > 4000);
  assert.ok(out.every((hex) => hex.length <= 128), 'an input grew past the cap');
  assert.ok(out.some((hex) => hex.includes(Buffer.from('TOKEN').toString('hex'))), 'no dictionary token was ever inserted');
  assert.ok(out.some((hex) => hex.length === 0) || out.some((hex) => hex.length < 10), 'never truncated');
});
