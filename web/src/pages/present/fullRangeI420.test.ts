import { test } from 'node:test';
import assert from 'node:assert/strict';
import { expandI420ToFullRange, rgbaToFullRangeI420 } from './fullRangeI420.js';

/** FreeRDP's YUV420→RGB for one pixel (prim_YUV.c: full range, BT.709, fixed point ÷256). */
function freerdpToRgb(y: number, u: number, v: number): [number, number, number] {
  const clamp = (value: number): number => Math.min(255, Math.max(0, value));
  const d = u - 128;
  const e = v - 128;
  return [clamp((256 * y + 403 * e) >> 8), clamp((256 * y - 48 * d - 120 * e) >> 8), clamp((256 * y + 475 * d) >> 8)];
}

void test('a limited-range picture becomes full range: black 16 → 0, white 235 → 255, neutral chroma stays 128', () => {
  // 2×2: luma 16, 235, 126, 16; U 128; V 240
  const i420 = Uint8Array.of(16, 235, 126, 16, 128, 240);
  expandI420ToFullRange(i420, 2, 2);
  assert.deepEqual([...i420], [0, 255, 128, 0, 128, 255]);
});

void test('RGBA → full-range BT.709 I420 comes back through FreeRDP\'s decoder within 2 per channel', () => {
  const colours = [[255, 0, 0], [0, 255, 0], [0, 0, 255], [255, 255, 255], [0, 0, 0], [255, 255, 0], [0, 255, 255], [128, 64, 200]] as const;
  for (const [r, g, b] of colours) {
    const rgba = new Uint8Array(16);
    for (let i = 0; i < 4; i++) rgba.set([r, g, b, 255], i * 4);
    const i420 = rgbaToFullRangeI420(rgba, 2, 2);
    const back = freerdpToRgb(i420[0] ?? 0, i420[4] ?? 0, i420[5] ?? 0);
    for (const [index, want] of [r, g, b].entries()) {
      assert.ok(Math.abs((back[index] ?? 0) - want) <= 2, `${[r, g, b].join(',')} came back ${back.join(',')}`);
    }
  }
});
