import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { runCampaign } from './fuzzCampaign.js';
import { checkFramerCase, fuzzPduFramer } from './framerFuzzTarget.js';
import { fuzzX224 } from './x224FuzzTarget.js';

// A short, bounded campaign on every run of the suite; `npm -w protocol run fuzz` runs longer.
const FRAMER_BUDGET_MS = 8000;
const X224_BUDGET_MS = 3000;

void test('fuzz: the PDU framer keeps its invariant on generated streams', () => {
  const result = runCampaign('pdu-framer', FRAMER_BUDGET_MS);
  assert.ok(result.runs > 500, `only ${result.runs} runs in ${result.milliseconds} ms`);
});

void test('fuzz: the X.224 parsers throw only X224Error and round-trip what they accept', () => {
  const result = runCampaign('x224', X224_BUDGET_MS);
  assert.ok(result.runs > 500, `only ${result.runs} runs in ${result.milliseconds} ms`);
});

void test('fuzz: the raw-bytes entry points accept random inputs', () => {
  for (let i = 0; i < 3000; i++) {
    const data = randomBytes(i % 300);
    fuzzPduFramer(data);
    fuzzX224(data);
  }
});

void test('the invariant check lets exceptions other than FramingError through', () => {
  assert.throws(() => checkFramerCase({ stream: new Uint8Array(8), cuts: [], mode: 'rdp', maxPduBytes: 100, maxFrameBytes: 50 }), RangeError);
});
