import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createImage } from '@lanterna/lab';
import { psnr } from './psnr.js';

test('psnr: identical is infinite, a known error gives the textbook value', () => {
  const a = createImage(4, 4);
  const b = createImage(4, 4);
  assert.equal(psnr(a, b), Infinity);
  // every channel of every pixel off by 16: mse 256, psnr = 10·log10(65025/256)
  for (let i = 0; i < b.data.length; i += 4) for (let c = 0; c < 3; c++) b.data[i + c] = (a.data[i + c] ?? 0) + 16;
  assert.ok(Math.abs(psnr(a, b) - 10 * Math.log10(65025 / 256)) < 1e-9);
  assert.throws(() => psnr(a, createImage(2, 2)), /sizes differ/);
});

test('psnr over a region counts only the pixels inside it', () => {
  const a = createImage(8, 6);
  const b = createImage(8, 6);
  // one pixel off by 32 in all channels at (5, 4), inside the 2×2 region at (4, 3)
  b.data.fill(32, (4 * 8 + 5) * 4, (4 * 8 + 5) * 4 + 3);
  const region = { x: 4, y: 3, width: 2, height: 2 };
  assert.ok(Math.abs(psnr(a, b, region) - 10 * Math.log10(65025 / (32 * 32 / 4))) < 1e-9);
  assert.equal(psnr(a, b, { x: 0, y: 0, width: 4, height: 6 }), Infinity);
  assert.ok(psnr(a, b) > psnr(a, b, region), 'the whole image dilutes the same error');
  assert.throws(() => psnr(a, b, { x: 6, y: 0, width: 4, height: 1 }), /outside/);
});
