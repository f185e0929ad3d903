import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { assertShortFuzz, type FuzzTarget } from '@lanterna/fuzzer';
import { checkFramerCase, fuzzPduFramer, fuzzTarget as framerTarget } from './framerFuzzTarget.js';
import { corpusDir } from './fuzzTargets.js';
import { fuzzTarget as kioskMessagesTarget } from './kioskMessagesFuzzTarget.js';
import { fuzzTarget as presenterRequestTarget } from './presenterRequestFuzzTarget.js';
import { fuzzTarget as x224Target, fuzzX224 } from './x224FuzzTarget.js';

// The suite's short runs: the whole corpus, then a few thousand mutations of
// it; `npm run fuzz:campaign -w protocol` runs millions with coverage.
const MUTATIONS = 3000;

function shortRun(target: FuzzTarget, minimumCorpus: number): void {
  assertShortFuzz(target, { corpusDir: corpusDir(target.name), minimumCorpus, mutations: MUTATIONS });
}

void test('fuzz: the PDU framer keeps its invariant on its corpus and mutations of it', () => shortRun(framerTarget, 10));
void test('fuzz: the X.224 parsers keep theirs on their corpus and mutations of it', () => shortRun(x224Target, 10));
void test('fuzz: the kiosk message readers keep theirs on their corpus and mutations of it', () => shortRun(kioskMessagesTarget, 10));
void test('fuzz: the projection request schema keeps its invariant on its corpus and mutations of it', () => shortRun(presenterRequestTarget, 5));

void test('fuzz: the raw-bytes entry points accept random inputs', () => {
  for (let i = 0; i < 3000; i++) {
    const data = randomBytes(i % 300);
    fuzzPduFramer(data);
    fuzzX224(data);
    kioskMessagesTarget.execute(data);
  }
});

void test('the invariant check lets exceptions other than FramingError through', () => {
  assert.throws(() => checkFramerCase({ stream: new Uint8Array(8), cuts: [], mode: 'rdp', maxPduBytes: 100, maxFrameBytes: 50 }), RangeError);
});
