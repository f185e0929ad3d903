import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { assertShortFuzz, SeededRandom, type FuzzTarget } from '@lanterna/fuzzer';
import { checkBoundedXml, fuzzTarget as boundedXmlTarget } from './boundedXmlFuzzTarget.js';
import { corpusDir } from './fuzzTargets.js';
import { fuzzTarget as raInvitationTarget } from './raInvitationFuzzTarget.js';
import { forbiddenMarkup, generateXmlDocument } from './xmlDocuments.js';

// The suite's short runs: the whole corpus, then a few thousand mutations of
// it; `npm run fuzz:campaign -w gateway` runs millions with coverage.
const MUTATIONS = 3000;

function shortRun(target: FuzzTarget, minimumCorpus: number): void {
  assertShortFuzz(target, { corpusDir: corpusDir(target.name), minimumCorpus, mutations: MUTATIONS });
}

void test('fuzz: the bounded XML reader keeps its invariant on its corpus and mutations of it', () => shortRun(boundedXmlTarget, 8));
void test('fuzz: the invitation reader keeps its invariant on its corpus and mutations of it', () => shortRun(raInvitationTarget, 6));

void test('fuzz: random bytes never break either target', () => {
  for (let i = 0; i < 2000; i++) {
    const data = randomBytes(i % 200);
    boundedXmlTarget.execute(data);
    raInvitationTarget.execute(data);
  }
});

void test('the XML generator writes documents the reader accepts, and the oracle finds what must be refused', () => {
  const random = new SeededRandom(5);
  let accepted = 0;
  for (let i = 0; i < 300; i++) if (checkBoundedXml(generateXmlDocument(random)).startsWith('ok')) accepted++;
  assert.ok(accepted > 100, `only ${accepted} of 300 generated documents were read`);
  assert.equal(forbiddenMarkup('<?xml version="1.0"?><r a="&amp;&#65;&#x42;"/>'), undefined);
  for (const bad of ['<r>&nbsp;</r>', '<r/><!-- c -->', '<r><?pi?></r>', '<r a="&constructor;"/>', '<r>&#;</r>']) assert.notEqual(forbiddenMarkup(bad), undefined, bad);
});
