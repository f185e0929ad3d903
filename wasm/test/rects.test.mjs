// The C coalescing of dirty rectangles (src/dirty_rects.c), through the wasm build.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';

import { loadTestLanternaRdp } from './testBuild.mjs';

let rdp;
before(async () => {
  rdp = await loadTestLanternaRdp();
});
after(() => rdp.close());

const area = (rects) => rects.reduce((sum, [, , w, h]) => sum + w * h, 0);

test('a full grid of 64×64 tiles becomes one rectangle', () => {
  const tiles = [];
  for (let y = 0; y < 768; y += 64) for (let x = 0; x < 1024; x += 64) tiles.push([x, y, 64, 64]);
  assert.deepEqual(rdp.coalesce(tiles, 1024, 768), [[0, 0, 1024, 768]]);
});

test('rectangles are clipped to the surface and empty ones dropped', () => {
  assert.deepEqual(rdp.coalesce([[-10, -10, 30, 30], [1000, 700, 100, 100], [5, 5, 0, 9]], 1024, 768),
    [[0, 0, 20, 20], [1000, 700, 24, 68]]);
});

test('separate changes stay separate and keep their exact area', () => {
  const input = [[10, 10, 5, 5], [300, 200, 40, 8], [300, 208, 40, 8], [900, 10, 3, 3]];
  const out = rdp.coalesce(input, 1024, 768);
  assert.equal(out.length, 3);
  assert.deepEqual(out.find(([x]) => x === 300), [300, 200, 40, 16]);
  assert.equal(area(out), area(input));
});

test('past 128 scattered rectangles one bounding box is sent', () => {
  const scattered = Array.from({ length: 200 }, (_, i) => [(i * 37) % 1000, (i * 53) % 700, 2, 2]);
  const out = rdp.coalesce(scattered, 1024, 768);
  assert.equal(out.length, 1);
  const [x, y, w, h] = out[0];
  for (const [sx, sy] of scattered) assert.ok(sx >= x && sy >= y && sx + 2 <= x + w && sy + 2 <= y + h);
});
