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
