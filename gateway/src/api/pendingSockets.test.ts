// The pending-socket places: per source (IPv6 by /64), a newcomer never
// refused, the place it takes always a stranger's that has waited longest.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PendingSockets } from './pendingSockets.js';

test('a source at its share gives up its own oldest socket, never another source\'s', () => {
  const pool = new PendingSockets<string>({ maxPendingSockets: 10, perSourcePendingSockets: 3 });
  for (const name of ['a1', 'a2', 'a3']) assert.equal(pool.admit(name, '192.0.2.1'), undefined);
  assert.equal(pool.admit('b1', '192.0.2.2'), undefined);
  assert.equal(pool.admit('a4', '192.0.2.1'), 'a1');
  assert.equal(pool.admit('a5', '192.0.2.1'), 'a2');
  assert.deepEqual([pool.size, pool.heldBy('192.0.2.1'), pool.heldBy('192.0.2.2'), pool.evicted], [4, 3, 1, 2]);
});

test('IPv6 addresses of one /64 are one source', () => {
  const pool = new PendingSockets<string>({ maxPendingSockets: 10, perSourcePendingSockets: 2 });
  pool.admit('x', '2001:db8:1:2::1');
  pool.admit('y', '2001:db8:1:2::2');
  assert.equal(pool.admit('z', '2001:db8:1:2:ffff::9'), 'x');
  assert.equal(pool.admit('w', '2001:db8:1:3::1'), undefined, 'the next /64 is another source');
  assert.equal(pool.heldBy('2001:db8:1:2::77'), 2);
});

test('two strangers hold the pool: a display from elsewhere still gets a place, taken from the largest holder\'s oldest', () => {
  const pool = new PendingSockets<string>({ maxPendingSockets: 6, perSourcePendingSockets: 4 });
  for (let i = 0; i < 4; i += 1) pool.admit(`a${i}`, '192.0.2.1');
  for (let i = 0; i < 2; i += 1) pool.admit(`b${i}`, '192.0.2.2');
  assert.equal(pool.admit('display', '10.0.0.7'), 'a0', 'the pool is full: the source holding most gives up its oldest');
  assert.equal(pool.admit('b2', '192.0.2.2'), 'a1', 'the display is the newest: a stranger pays for the next one too');
  assert.equal(pool.admit('b3', '192.0.2.2'), 'b0', 'now b holds the most (3 against 2): b gives up its oldest');
  assert.equal(pool.admit('b4', '192.0.2.2'), 'b1');
  assert.equal(pool.heldBy('10.0.0.7'), 1, 'the display kept its place throughout');
  pool.release('display');
  assert.equal(pool.heldBy('10.0.0.7'), 0, 'authenticated: its place is free');
  pool.release('display');
  assert.equal(pool.size, 5, 'releasing twice changes nothing');
});
