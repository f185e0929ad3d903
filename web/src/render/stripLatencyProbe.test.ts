import { test } from 'node:test';
import assert from 'node:assert/strict';
import { stripWhiteRects, TIMESTAMP_STRIP } from '@lanterna/protocol';
import type { FrameUpdate, Rect } from './frame.js';
import { StripLatencyProbe } from './stripLatencyProbe.js';

const W = 1920;
const H = 1080;

function frame(stamp: number, rects: readonly Rect[]): FrameUpdate {
  const stride = W * 4;
  const pixels = new Uint8Array(stride * H).fill(0x40);
  const fill = (x0: number, y0: number, w: number, h: number, value: number): void => {
    for (let y = y0; y < y0 + h; y += 1) pixels.fill(value, y * stride + x0 * 4, y * stride + (x0 + w) * 4);
  };
  fill(0, 0, TIMESTAMP_STRIP.width, TIMESTAMP_STRIP.height, 0);
  for (const r of stripWhiteRects(stamp)) fill(r.x, r.y, r.width, r.height, 255);
  return { pixels, stride, format: 'bgra', rects };
}

const overStrip: Rect = { x: 0, y: 0, width: 64, height: 64 };
const elsewhere: Rect = { x: 1200, y: 500, width: 64, height: 64 };

test('a new stamp uploaded is measured at the present that shows it, once', () => {
  const probe = new StripLatencyProbe();
  probe.setDesktopSize(W, H);
  probe.onFrame(frame(1_000_000, [overStrip]));
  assert.deepEqual(probe.onPresent(1_000_042.5), { stamp: 1_000_000, latencyMs: 42.5 });
  assert.equal(probe.onPresent(1_000_050), undefined, 'a present without a new upload shows no new stamp');
  probe.onFrame(frame(1_000_000, [overStrip]));
  assert.equal(probe.onPresent(1_000_060), undefined, 'the same stamp again is not a new frame shown');
});

test('of several uploads before one present, the newest stamp counts; rectangles elsewhere are not read', () => {
  const probe = new StripLatencyProbe();
  probe.setDesktopSize(W, H);
  probe.onFrame(frame(2_000_000, [overStrip]));
  probe.onFrame(frame(2_000_016, [overStrip]));
  probe.onFrame(frame(2_000_033, [elsewhere]));
  assert.deepEqual(probe.onPresent(2_000_050), { stamp: 2_000_016, latencyMs: 34 });
});

test('no strip on screen, or no desktop size yet: no reading', () => {
  const probe = new StripLatencyProbe();
  probe.onFrame(frame(3_000_000, [overStrip]));
  assert.equal(probe.onPresent(3_000_010), undefined);
  probe.setDesktopSize(W, H);
  const blank: FrameUpdate = { pixels: new Uint8Array(W * H * 4), stride: W * 4, format: 'bgra', rects: [overStrip] };
  probe.onFrame(blank);
  assert.equal(probe.onPresent(3_000_020), undefined);
});
