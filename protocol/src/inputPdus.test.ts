import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dropInputPdus } from './inputPdus.js';

// The vectors the Go data plane's twin (pdu/input.go) is tested with too.
const vectorsPath = fileURLToPath(new URL('../../gateway/dataplane/pdu/testdata/input-pdus.json', import.meta.url));
const vectors = JSON.parse(readFileSync(vectorsPath, 'utf8')) as { cases: { name: string; frame: string; kept: string; dropped: number }[] };

for (const vector of vectors.cases) {
  test(`input gate: ${vector.name}`, () => {
    const frame = Buffer.from(vector.frame, 'hex');
    const filtered = dropInputPdus(frame);
    assert.equal(Buffer.from(filtered.frame).toString('hex'), vector.kept);
    assert.equal(filtered.dropped, vector.dropped);
    if (vector.dropped === 0) assert.equal(filtered.frame, frame, 'a frame without input passes as it is (no copy)');
  });
}

test('input gate: the vectors cover both kinds of input and what must pass', () => {
  assert.ok(vectors.cases.length >= 8);
  assert.ok(vectors.cases.some((vector) => vector.dropped === 0) && vectors.cases.some((vector) => vector.dropped > 1));
});
