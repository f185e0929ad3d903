// The memory store's ink pictures (issue 30): kept for their time, replaced
// under one key, and bounded in bytes with the oldest dropped first.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MAX_INK_CHARS, MemoryBrokerStore } from './memoryBrokerStore.js';

test('an ink picture is kept for its time, then gone', async () => {
  let now = 1_000;
  const store = new MemoryBrokerStore(() => now);
  await store.putInkPicture('whiteboard:a', 'AAAA', 60_000);
  assert.equal(await store.getInkPicture('whiteboard:a'), 'AAAA');
  now += 59_999;
  assert.equal(await store.getInkPicture('whiteboard:a'), 'AAAA');
  now += 1;
  assert.equal(await store.getInkPicture('whiteboard:a'), undefined);
});

test('a new save replaces the one before under its key', async () => {
  const store = new MemoryBrokerStore();
  await store.putInkPicture('session:s1', 'first', 60_000);
  await store.putInkPicture('session:s1', 'second', 60_000);
  assert.equal(await store.getInkPicture('session:s1'), 'second');
});

test('past the byte cap the oldest pictures go first, never the newest', async () => {
  const store = new MemoryBrokerStore();
  const quarter = 'x'.repeat(MAX_INK_CHARS / 4);
  for (let i = 0; i < 6; i++) await store.putInkPicture(`session:${i}`, quarter, 60_000);
  const kept = await Promise.all([0, 1, 2, 3, 4, 5].map(async (i) => (await store.getInkPicture(`session:${i}`)) !== undefined));
  assert.deepEqual(kept, [false, false, true, true, true, true]);
  await store.putInkPicture('too-large', 'x'.repeat(MAX_INK_CHARS + 1), 60_000);
  assert.equal(await store.getInkPicture('too-large'), undefined);
});
