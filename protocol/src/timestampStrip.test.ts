import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  msSinceStamp,
  readTimestampStrip,
  stripCells,
  stripChecksum,
  stripStamp,
  stripWhiteRects,
  TIMESTAMP_STRIP,
  TIMESTAMP_STRIP_CELLS,
  touchesTimestampStrip,
  type StripFrame,
} from './timestampStrip.js';

const WIDTH = 1920;
const HEIGHT = 1080;

/** A grey 1920×1080 BGRA frame with the strip for `stamp` painted where the lab paints it. */
function frameWithStrip(stamp: number, background = 0x80): StripFrame & { pixels: Uint8Array } {
  const stride = WIDTH * 4;
  const pixels = new Uint8Array(stride * HEIGHT).fill(background);
  const fill = (x0: number, y0: number, w: number, h: number, value: number): void => {
    for (let y = y0; y < y0 + h; y += 1) pixels.fill(value, y * stride + x0 * 4, y * stride + (x0 + w) * 4);
  };
  fill(TIMESTAMP_STRIP.x, TIMESTAMP_STRIP.y, TIMESTAMP_STRIP.width, TIMESTAMP_STRIP.height, 0);
  for (const rect of stripWhiteRects(stamp)) fill(TIMESTAMP_STRIP.x + rect.x, TIMESTAMP_STRIP.y + rect.y, rect.width, rect.height, 255);
  return { pixels, stride, width: WIDTH, height: HEIGHT };
}

/** What a lossy codec does to hard edges, roughly: a 7-px box blur of the band, then ±70 of seeded noise. */
function degrade(frame: StripFrame & { pixels: Uint8Array }): void {
  const { pixels, stride } = frame;
  const copy = pixels.slice();
  let seed = 12345;
  const noise = (): number => {
    seed = (seed * 1103515245 + 12345) >>> 0;
    return ((seed >>> 16) % 141) - 70;
  };
  for (let y = 3; y < TIMESTAMP_STRIP.height + 8; y += 1) {
    for (let x = 3; x < TIMESTAMP_STRIP.width + 8; x += 1) {
      for (let channel = 0; channel < 3; channel += 1) {
        let sum = 0;
        for (let dy = -3; dy <= 3; dy += 1) for (let dx = -3; dx <= 3; dx += 1) sum += copy[(y + dy) * stride + (x + dx) * 4 + channel] ?? 0;
        pixels[y * stride + x * 4 + channel] = Math.max(0, Math.min(255, Math.round(sum / 49) + noise()));
      }
    }
  }
}

test('a stamp painted into a frame reads back, across values that exercise every bit', () => {
  for (const stamp of [0, 1, 0x80000000, 0xffffffff, 0x5a5aa5a5, stripStamp(1_767_225_600_123)]) {
    assert.equal(readTimestampStrip(frameWithStrip(stamp)), stamp);
  }
});

test('the strip survives blur and noise of the strength lossy codecs add at 1080p', () => {
  const stamp = stripStamp(1_767_225_600_987);
  const frame = frameWithStrip(stamp);
  degrade(frame);
  assert.equal(readTimestampStrip(frame), stamp);
});

test('no strip, a torn strip or a flipped bit reads as null, never as a wrong stamp', () => {
  assert.equal(readTimestampStrip({ ...frameWithStrip(0), pixels: new Uint8Array(WIDTH * HEIGHT * 4) }), null);
  assert.equal(readTimestampStrip({ ...frameWithStrip(0), pixels: new Uint8Array(WIDTH * HEIGHT * 4).fill(255) }), null);
  // a grab taken while the painter went from one stamp to the next: left half old, right half new
  const older = frameWithStrip(0x12345678);
  const newer = frameWithStrip(0x1234567f ^ 0x00ff0000);
  for (let y = 0; y < TIMESTAMP_STRIP.height; y += 1) {
    const start = y * older.stride + 600 * 4;
    older.pixels.set(newer.pixels.subarray(start, y * older.stride + TIMESTAMP_STRIP.width * 4), start);
  }
  assert.equal(readTimestampStrip(older), null);
  // one data cell inverted: the checksum refuses it
  const flipped = frameWithStrip(0x0badf00d);
  const cellX = TIMESTAMP_STRIP.cellsLeft + 10 * TIMESTAMP_STRIP.cell;
  for (let y = TIMESTAMP_STRIP.cellsTop; y < TIMESTAMP_STRIP.cellsTop + TIMESTAMP_STRIP.cell; y += 1) {
    for (let x = cellX; x < cellX + TIMESTAMP_STRIP.cell; x += 1) {
      const offset = y * flipped.stride + x * 4;
      flipped.pixels.fill(255 - (flipped.pixels[offset] ?? 0), offset, offset + 4);
    }
  }
  assert.equal(readTimestampStrip(flipped), null);
  // too small a frame for the row of cells
  assert.equal(readTimestampStrip({ pixels: new Uint8Array(640 * 480 * 4), stride: 640 * 4, width: 640, height: 480 }), null);
});

test('cells: start pattern, 32 bits MSB first, CRC-8, end pattern, and the band holds them', () => {
  const cells = stripCells(0x80000001);
  assert.equal(cells.length, TIMESTAMP_STRIP_CELLS);
  assert.deepEqual(cells.slice(0, 5), [1, 0, 1, 1, 0]);
  assert.equal(cells[5], 1);
  assert.equal(cells[36], 1);
  assert.deepEqual(cells.slice(5 + 1, 5 + 31), new Array(30).fill(0));
  assert.deepEqual(cells.slice(-2), [0, 1]);
  assert.equal(stripChecksum(0x31323334), 0xc2); // CRC-8/SMBUS of the bytes of "1234" (its check value on "123456789" is 0xf4)
  assert.ok(TIMESTAMP_STRIP.cellsLeft + TIMESTAMP_STRIP_CELLS * TIMESTAMP_STRIP.cell <= TIMESTAMP_STRIP.width);
  assert.ok(TIMESTAMP_STRIP.cellsTop + TIMESTAMP_STRIP.cell <= TIMESTAMP_STRIP.height);
  assert.ok((TIMESTAMP_STRIP.cell as number) >= 16, "cells of at least 16×16 px survive lossy codecs");
});

test('touchesTimestampStrip: only rectangles over the row of cells count', () => {
  assert.equal(touchesTimestampStrip([{ x: 0, y: 0, width: 64, height: 64 }]), true);
  assert.equal(touchesTimestampStrip([{ x: 0, y: 0, width: 1920, height: 20 }]), false);
  assert.equal(touchesTimestampStrip([{ x: 1200, y: 0, width: 64, height: 64 }]), false);
  assert.equal(touchesTimestampStrip([{ x: 0, y: 64, width: 1920, height: 1016 }, { x: 1000, y: 30, width: 4, height: 4 }]), true);
});

test('msSinceStamp: plain differences, sub-ms, and across the 2^32 wrap', () => {
  assert.equal(msSinceStamp(stripStamp(1_000_000), 1_000_025), 25);
  assert.equal(msSinceStamp(stripStamp(1_000_000.9), 1_000_025.5), 25.5);
  const beforeWrap = 2 ** 32 * 400 - 10;
  assert.equal(msSinceStamp(stripStamp(beforeWrap), beforeWrap + 30), 30);
  assert.equal(msSinceStamp(stripStamp(2000), 1990), -10);
});
