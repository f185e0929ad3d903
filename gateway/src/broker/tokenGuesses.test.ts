// The token-guess limiter over a real memory store with a fake clock: per
// address, per IPv6 /64, right tokens only read, parallel guesses counted.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MemoryBrokerStore } from './memoryBrokerStore.js';
import { StoreUnavailableError } from './brokerStore.js';
import { TokenGuesses, tokenCounterKeys, READING_MS, type TokenVerdict } from './tokenGuesses.js';

const limits = { perAddress: { max: 3, windowMs: 60_000 }, perNetwork: { max: 5, windowMs: 60_000 } };

function guess(guesses: TokenGuesses, address: string, right = false): Promise<TokenVerdict> {
  return guesses.check(address, 'admin', right);
}

test('keys: the exact address, and an IPv6 address\'s /64 besides', () => {
  assert.deepEqual(tokenCounterKeys('192.0.2.7'), { address: 'token-wrong:address:192.0.2.7' });
  assert.deepEqual(tokenCounterKeys('::ffff:192.0.2.7'), { address: 'token-wrong:address:192.0.2.7' });
  assert.deepEqual(tokenCounterKeys('2001:db8:1:2::aa'), { address: 'token-wrong:address:2001:db8:1:2::aa', network: 'token-wrong:network:2001:db8:1:2::/64', vouched: 'token-right:address:2001:db8:1:2::aa' });
  assert.deepEqual(tokenCounterKeys('fe80::1%eth0'), { address: 'token-wrong:address:fe80::1', network: 'token-wrong:network:fe80:0:0:0::/64', vouched: 'token-right:address:fe80::1' });
  assert.deepEqual(tokenCounterKeys(undefined), { address: 'token-wrong:address:unknown' });
});

test('an address past its wrong tokens is refused, the right token too, until the window ends; others are not', async () => {
  let now = 0;
  const guesses = new TokenGuesses(new MemoryBrokerStore(() => now), limits, () => now);
  for (let i = 0; i < 3; i += 1) assert.equal((await guess(guesses, '192.0.2.7')).allowed, true);
  now = 20_000;
  const locked = await guess(guesses, '192.0.2.7', true);
  assert.deepEqual(locked, { allowed: false, retryAfterMs: 40_000 });
  assert.equal((await guess(guesses, '192.0.2.8', true)).allowed, true, 'another address has its own budget');
  now = 60_000;
  assert.equal((await guess(guesses, '192.0.2.7', true)).allowed, true, 'a new window');
});

test('right tokens add nothing: a display that reconnects all day is never locked', async () => {
  let now = 0;
  const guesses = new TokenGuesses(new MemoryBrokerStore(() => now), limits, () => now);
  for (let i = 0; i < 20; i += 1) {
    now += 500;
    assert.equal((await guess(guesses, '192.0.2.7', true)).allowed, true);
  }
});

test('parallel wrong guesses: only the limit\'s worth are answered, the rest refused before any is counted in the store', async () => {
  const guesses = new TokenGuesses(new MemoryBrokerStore(), limits);
  const verdicts = await Promise.all(Array.from({ length: 10 }, () => guesses.check('192.0.2.7', 'admin', false)));
  assert.equal(verdicts.filter((verdict) => verdict.allowed).length, 3);
  assert.equal((await guess(guesses, '192.0.2.7', true)).allowed, false, 'and the right token after them is refused');
});

test('a storm of right tokens from one address (a NAT, a balancer, displays after a gateway died) is all let in, for one store reading a second', async () => {
  let now = 0;
  const store = new MemoryBrokerStore(() => now);
  let reads = 0;
  const add = store.addToCounter.bind(store);
  store.addToCounter = (key, by, windowMs) => { reads += 1; return add(key, by, windowMs); };
  const guesses = new TokenGuesses(store, limits, () => now);
  const first = await Promise.all(Array.from({ length: 300 }, () => guesses.check('192.0.2.7', 'display', true)));
  assert.equal(first.filter((verdict) => verdict.allowed).length, 300);
  const before = reads;
  const again = await Promise.all(Array.from({ length: 300 }, () => guesses.check('192.0.2.7', 'display', true)));
  assert.equal(again.filter((verdict) => verdict.allowed).length, 300);
  assert.equal(reads, before, 'within a second of a reading the store is not asked again');
  now += READING_MS;
  await guess(guesses, '192.0.2.7', true);
  assert.equal(reads, before + 1, 'after it, once');
});

test('a lock set elsewhere in the farm (another gateway, the same store) refuses right tokens here within a second', async () => {
  let now = 0;
  const store = new MemoryBrokerStore(() => now);
  const here = new TokenGuesses(store, limits, () => now);
  const there = new TokenGuesses(store, limits, () => now);
  assert.equal((await guess(here, '192.0.2.7', true)).allowed, true);
  for (let i = 0; i < 3; i += 1) await guess(there, '192.0.2.7');
  assert.equal((await guess(there, '192.0.2.7', true)).allowed, false, 'locked where it guessed');
  now += READING_MS;
  assert.equal((await guess(here, '192.0.2.7', true)).allowed, false, 'and here a second later');
});

test('IPv6: addresses of one /64 share its budget; one address past its own does not spend the /64\'s', async () => {
  const store = new MemoryBrokerStore();
  const guesses = new TokenGuesses(store, limits);
  // One address hammers: refused at its own limit, and its refused tries cost the /64 nothing.
  for (let i = 0; i < 10; i += 1) await guess(guesses, '2001:db8:1:2::1');
  assert.equal((await guess(guesses, '2001:db8:1:2::2', true)).allowed, true, 'a neighbour still gets in');
  // Rotating addresses: the /64 is spent after perNetwork.max wrong tokens in all.
  const allowed: boolean[] = [];
  for (let i = 10; i < 20; i += 1) allowed.push((await guess(guesses, `2001:db8:1:2::${i}`)).allowed);
  assert.deepEqual(allowed, [true, true, false, false, false, false, false, false, false, false], '3 from ::1 and 2 more make the 5 of the /64');
  assert.equal((await guess(guesses, '2001:db8:1:2::99', true)).allowed, false, 'the /64 is locked, the right token too');
  assert.equal((await guess(guesses, '2001:db8:1:3::1', true)).allowed, true, 'the next /64 is not');
  assert.ok(store.counterCount <= 5 + 3 + 2, `a locked /64 makes no counters for new addresses (${store.counterCount})`);
});

test('IPv6: an address that showed a right token in the last day is not locked out by its /64, only by its own limit', async () => {
  const guesses = new TokenGuesses(new MemoryBrokerStore(), limits);
  assert.equal((await guess(guesses, '2001:db8:1:2::d', true)).allowed, true, 'a display authenticates once');
  for (let i = 0; i < 10; i += 1) await guess(guesses, `2001:db8:1:2::${100 + i}`);
  assert.equal((await guess(guesses, '2001:db8:1:2::99', true)).allowed, false, 'a stranger rotating addresses locked the /64');
  assert.equal((await guess(guesses, '2001:db8:1:2::d', true)).allowed, true, 'the display still gets in');
  for (let i = 0; i < 3; i += 1) await guess(guesses, '2001:db8:1:2::d');
  assert.equal((await guess(guesses, '2001:db8:1:2::d', true)).allowed, false, 'and guessing from it stops at its own limit');
});

test('while the shared store is away, this process counts alone: still throttled, still usable', async () => {
  const away = new MemoryBrokerStore();
  away.addToCounter = () => Promise.reject(new StoreUnavailableError('redis at redis://10.0.0.1:6379 is unreachable'));
  const guesses = new TokenGuesses(away, limits);
  assert.equal((await guess(guesses, '192.0.2.7', true)).allowed, true, 'a right token is served');
  for (let i = 0; i < 3; i += 1) await guess(guesses, '192.0.2.7');
  assert.equal((await guess(guesses, '192.0.2.7', true)).allowed, false, 'wrong ones are still limited');
});
