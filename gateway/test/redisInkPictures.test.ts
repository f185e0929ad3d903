// Ink pictures (issue 30) in a real redis-server, seen from two gateways: one
// saves, the other reads the same bytes; a new save replaces the old; each
// expires after its time (PX).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { waitFor } from '@lanterna/testkit';
import { twoRedisStores } from './twoRedisStores.js';

const SECRET = Buffer.from('session-secret-of-the-redis-tests-0123456789');

test('two gateways on one Redis: an ink picture saved by one is read by the other, replaced by the next, gone after its time', { timeout: 30_000 }, async (t) => {
  const { a, b } = await twoRedisStores(t, { sessionSecret: SECRET, prefix: 'ink:' });
  const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3]).toString('base64');
  await a.putInkPicture('session:s1', png, 60_000);
  assert.equal(await b.getInkPicture('session:s1'), png);
  await b.putInkPicture('session:s1', 'bmV3ZXI=', 60_000);
  assert.equal(await a.getInkPicture('session:s1'), 'bmV3ZXI=');
  assert.equal(await a.getInkPicture('whiteboard:room'), undefined);
  await a.putInkPicture('whiteboard:room', png, 300);
  assert.equal(await b.getInkPicture('whiteboard:room'), png);
  await waitFor('the whiteboard expired', async () => (await b.getInkPicture('whiteboard:room')) === undefined, 5000, 50);
});
