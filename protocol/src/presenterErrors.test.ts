import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { PRESENTER_ERROR_CODES, PRESENTER_ERRORS, sentenceForPresenterCode, sentenceForProjectionEnd, waitInWords } from './presenterErrors.js';
import { ERROR_CODES } from './sessionErrors.js';
import { displayListingSchema, presenterRefusalSchema, projectionRequestSchema } from './presenterMessages.js';

const apiDocument = readFileSync(new URL('../../docs/presenter-api.md', import.meta.url), 'utf8');

void test('the refusal table has exactly the codes and statuses docs/presenter-api.md lists, in its order', () => {
  const documented = [...apiDocument.matchAll(/^\| `([a-z-]+)` \| (\d{3}) \|/gm)].map(([, code, status]) => [code, Number(status)]);
  assert.ok(documented.length >= 17, 'the refusal table was found in the document');
  assert.deepEqual(documented, PRESENTER_ERROR_CODES.map((code) => [code, PRESENTER_ERRORS[code].status]));
});

void test('gateway messages are lower case without a full stop; sentences are sentences', () => {
  for (const code of PRESENTER_ERROR_CODES) {
    const { message, sentence } = PRESENTER_ERRORS[code];
    assert.match(message, /^[a-z].*[^.]$/, code);
    assert.match(sentence, /^[A-Z].*\.$/, code);
  }
  assert.equal(sentenceForPresenterCode('display-busy'), PRESENTER_ERRORS['display-busy'].sentence);
  assert.equal(sentenceForPresenterCode('from-the-future'), 'The gateway refused the request (from-the-future).');
  assert.equal(sentenceForPresenterCode('constructor'), 'The gateway refused the request (constructor).');
});

void test('how a projection ended, in words: its own reasons, then the session error table', () => {
  assert.equal(sentenceForProjectionEnd('stopped'), 'The presentation was stopped.');
  assert.equal(sentenceForProjectionEnd('target-unreachable'), ERROR_CODES['target-unreachable'].sentence);
  assert.equal(sentenceForProjectionEnd('toString'), 'The presentation ended (toString).');
});

void test('waits in words: seconds up to a minute and a half, then whole minutes', () => {
  assert.deepEqual([0.2, 1, 45, 89, 90, 299, 600].map(waitInWords), ['1 second', '1 second', '45 seconds', '89 seconds', '2 minutes', '5 minutes', '10 minutes']);
});

void test('a projection request names a target or an invitation, not both, and nothing unknown', () => {
  const target = { host: '10.0.0.5', port: 3389 };
  assert.equal(projectionRequestSchema.safeParse({ pin: '123456', target }).success, true);
  assert.equal(projectionRequestSchema.safeParse({ pin: '123456', assistance: { invitation: '<x/>', password: 'p' } }).success, true);
  assert.equal(projectionRequestSchema.safeParse({ pin: '123456' }).success, false);
  assert.equal(projectionRequestSchema.safeParse({ pin: '123456', target, assistance: { invitation: '<x/>', password: 'p' } }).success, false);
  assert.equal(projectionRequestSchema.safeParse({ pin: '123456', target, displayId: 'other' }).success, false, 'unknown keys are refused');
  assert.equal(projectionRequestSchema.safeParse({ target: { host: '', port: 3389 } }).success, false);
  assert.equal(projectionRequestSchema.safeParse({ target: { host: 'h', port: 70_000 } }).success, false);
  assert.equal(displayListingSchema.safeParse({ displays: [{ id: 'r', name: 'R', state: 'busy' }] }).success, false);
  assert.deepEqual(presenterRefusalSchema.parse({ code: 'pin-locked', retryAfterSeconds: 3 }), { code: 'pin-locked', message: '', retryAfterSeconds: 3 });
});
