// Name resolution has a deadline and honours the abort signal, with a
// resolver that never answers standing in for a dead DNS server.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { resolveHost, ResolveError, type LookupAll } from './hostResolver.js';

const neverAnswers: LookupAll = () => new Promise(() => undefined);

async function failure(promise: Promise<unknown>): Promise<ResolveError> {
  const error = await promise.then(() => undefined, (e: unknown) => e);
  assert.ok(error instanceof ResolveError, `expected a ResolveError, got ${String(error)}`);
  return error;
}

test('a resolver that never answers hits the deadline', async () => {
  const started = performance.now();
  const error = await failure(resolveHost('rdp.corp', { deadlineMs: 150, lookup: neverAnswers }));
  const took = performance.now() - started;
  assert.equal(error.kind, 'timeout');
  assert.equal(error.message, 'the name "rdp.corp" did not resolve within 150 ms');
  assert.ok(took >= 140 && took < 2000, `ended at the deadline (${took.toFixed(0)} ms)`);
});

test('an abort ends the wait at once, also one that came before the call', async () => {
  const controller = new AbortController();
  const pending = resolveHost('rdp.corp', { deadlineMs: 60_000, lookup: neverAnswers, signal: controller.signal });
  const started = performance.now();
  controller.abort();
  assert.equal((await failure(pending)).kind, 'aborted');
  assert.ok(performance.now() - started < 1000);
  assert.equal((await failure(resolveHost('rdp.corp', { deadlineMs: 60_000, lookup: neverAnswers, signal: controller.signal }))).kind, 'aborted');
});

test('answers, failures and IP literals', async () => {
  let asked = 0;
  const lookup: LookupAll = (host) => {
    asked += 1;
    if (host === 'rdp.corp') return Promise.resolve(['10.0.0.7', 'fd00::7']);
    if (host === 'empty.corp') return Promise.resolve([]);
    return Promise.reject(Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' }));
  };
  assert.deepEqual(await resolveHost('rdp.corp', { deadlineMs: 1000, lookup }), ['10.0.0.7', 'fd00::7']);
  const missing = await failure(resolveHost('missing.corp', { deadlineMs: 1000, lookup }));
  assert.deepEqual([missing.kind, missing.code, missing.message], ['not-found', 'ENOTFOUND', 'the name "missing.corp" does not resolve']);
  assert.equal((await failure(resolveHost('empty.corp', { deadlineMs: 1000, lookup }))).kind, 'not-found');
  asked = 0;
  assert.deepEqual(await resolveHost('10.1.2.3', { deadlineMs: 1000, lookup }), ['10.1.2.3']);
  assert.deepEqual(await resolveHost('::1', { deadlineMs: 1000, lookup }), ['::1']);
  assert.equal(asked, 0, 'an IP literal needs no resolver');
});
