// Wrong-PIN limits as pure decisions, and the source key they count under.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { attemptCounterKeys, judgeAttempt, sourceKey, type AttemptLimits } from './pinAttempts.js';

const limits: AttemptLimits = { perDisplay: { max: 10, windowMs: 600_000 }, perSource: { max: 5, windowMs: 300_000 } };

test('an attempt within both limits is checked, and says how many wrong ones are left', () => {
  assert.deepEqual(judgeAttempt({ count: 1, resetAt: 600_000 }, { count: 1, resetAt: 300_000 }, limits, 0), { allowed: true, attemptsLeft: 4 });
  assert.deepEqual(judgeAttempt({ count: 9, resetAt: 600_000 }, { count: 1, resetAt: 300_000 }, limits, 0), { allowed: true, attemptsLeft: 1 });
  assert.deepEqual(judgeAttempt({ count: 5, resetAt: 600_000 }, { count: 5, resetAt: 300_000 }, limits, 0), { allowed: true, attemptsLeft: 0 });
});

test('past either limit the attempt is refused until that window ends; both: the later end', () => {
  assert.deepEqual(judgeAttempt({ count: 6, resetAt: 600_000 }, { count: 6, resetAt: 300_000 }, limits, 100_000), { allowed: false, scope: 'source', retryAfterMs: 200_000 });
  assert.deepEqual(judgeAttempt({ count: 11, resetAt: 600_000 }, { count: 1, resetAt: 300_000 }, limits, 100_000), { allowed: false, scope: 'display', retryAfterMs: 500_000 });
  assert.deepEqual(judgeAttempt({ count: 11, resetAt: 400_000 }, { count: 6, resetAt: 450_000 }, limits, 100_000), { allowed: false, scope: 'display', retryAfterMs: 350_000 });
});

test('sources: IPv4 as is, IPv4-mapped as IPv4, IPv6 by its /64, anything else one shared key', () => {
  assert.equal(sourceKey('192.0.2.7'), '192.0.2.7');
  assert.equal(sourceKey('::ffff:192.0.2.7'), '192.0.2.7');
  assert.equal(sourceKey('2001:db8:1:2:aaaa::1'), '2001:db8:1:2::/64');
  assert.equal(sourceKey('2001:0db8:0001:0002:ffff:ffff:ffff:ffff'), '2001:db8:1:2::/64', 'any address of the /64 counts together');
  assert.equal(sourceKey('fe80::1%eth0'), 'fe80:0:0:0::/64');
  assert.equal(sourceKey('::1'), '0:0:0:0::/64');
  assert.equal(sourceKey('[2001:db8::5]'), '2001:db8:0:0::/64');
  assert.equal(sourceKey('::ffff:1.2.3.4'.toUpperCase()), '1.2.3.4');
  assert.equal(sourceKey(undefined), 'unknown');
  assert.equal(sourceKey('not an address'), 'unknown');
});

test('the two counters of an attempt have keys of their own per display and per source', () => {
  assert.deepEqual(attemptCounterKeys('room-1', '192.0.2.7'), { display: 'pin-wrong:display:room-1', source: 'pin-wrong:source:192.0.2.7' });
});
