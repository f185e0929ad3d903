import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as errors from './sessionErrors.js';

const { closeCodeFor, codeForClose, ERROR_CODES, isSessionErrorCode, SESSION_ERROR_CODES, SESSION_PHASES, sentenceForCode, sentenceForEngineEnd } = errors;

const protocolDocument = readFileSync(new URL('../../docs/kiosk-protocol.md', import.meta.url), 'utf8');

void test('the table has exactly the codes and close codes docs/kiosk-protocol.md lists, in its order', () => {
  const documented = [...protocolDocument.matchAll(/^\| `([a-z0-9-]+)` \| (\d{4}) \|/gm)].map(([, code, close]) => [code, Number(close)]);
  assert.ok(documented.length >= 19, 'the error table was found in the document');
  assert.deepEqual(documented, SESSION_ERROR_CODES.map((code) => [code, closeCodeFor(code)]));
});

void test('the phases are the document\'s phases', () => {
  const rows = [...protocolDocument.matchAll(/^\| `([a-z0-9]+)`(?: \/ `([a-z0-9]+)`)? \| (?!\d)/gm)];
  const documented = rows.flatMap(([, first, second]) => (second === undefined ? [first] : [first, second]));
  assert.deepEqual(documented, [...SESSION_PHASES]);
});

void test('gateway messages are lower case without a full stop; sentences are sentences', () => {
  for (const code of SESSION_ERROR_CODES) {
    const { message, sentence } = ERROR_CODES[code];
    assert.match(message, /^[a-z].*[^.]$/, code);
    assert.match(sentence, /^[A-Z].*\.$/, code);
  }
});

void test('a close code maps back to the most general code that uses it', () => {
  assert.equal(codeForClose(4400), 'bad-message');
  assert.equal(codeForClose(4495), 'certificate-untrusted');
  assert.equal(codeForClose(4502), 'target-unreachable');
  assert.equal(codeForClose(1009), 'pdu-too-large');
  assert.equal(codeForClose(1000), null);
  for (const code of SESSION_ERROR_CODES) assert.equal(closeCodeFor(codeForClose(closeCodeFor(code)) ?? 'internal'), closeCodeFor(code));
});

void test('sentences for known and unknown codes and engine ends', () => {
  assert.equal(sentenceForCode('replaced'), 'Another screen took over this display.');
  assert.equal(sentenceForCode('from-the-future'), 'The gateway reported an error (from-the-future).');
  assert.equal(isSessionErrorCode('constructor'), false);
  assert.equal(sentenceForCode('toString'), 'The gateway reported an error (toString).');
  assert.equal(sentenceForEngineEnd('closed'), null);
  assert.equal(sentenceForEngineEnd('stopped'), null);
  assert.equal(sentenceForEngineEnd('negotiation-failed'), ERROR_CODES['negotiation-failed'].sentence);
  assert.match(sentenceForEngineEnd('wrong-password') ?? '', /user name or password/);
  assert.match(sentenceForEngineEnd('video-unsupported') ?? '', /H\.264.*cannot decode/);
  assert.match(sentenceForEngineEnd('video-decode-failed') ?? '', /could not be decoded/);
  assert.match(sentenceForEngineEnd('out-of-memory') ?? '', /too large for this display’s memory/);
  assert.equal(sentenceForEngineEnd('new-reason'), 'The presentation ended (new-reason).');
  assert.equal(sentenceForEngineEnd('constructor'), 'The presentation ended (constructor).');
});
