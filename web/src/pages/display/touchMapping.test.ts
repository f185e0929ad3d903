// The mapping of a touch to the presenter's desktop: whole panel, letterboxed, in a slot of a room.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { canvasPoint, desktopPoint, inSlot, pictureFraction, slotArea } from './touchMapping.js';
import { slotPixels, slotRects } from '@lanterna/protocol';

const PANEL = { width: 1920, height: 1080 };

test('one source at the panel\'s size: canvas pixel = desktop pixel, corners included', () => {
  assert.deepEqual(desktopPoint({ x: 0, y: 0 }, PANEL, null, PANEL), { x: 0, y: 0 });
  assert.deepEqual(desktopPoint({ x: 1919.9, y: 1079.9 }, PANEL, null, PANEL), { x: 1919, y: 1079 });
  assert.deepEqual(desktopPoint({ x: 640.5, y: 360.2 }, PANEL, null, PANEL), { x: 640, y: 360 });
});

test('letterboxed: a 1024×768 desktop on a 1920×1080 panel sits in a centred 1440×1080 box; the bars map to nothing', () => {
  const desktop = { width: 1024, height: 768 };
  // scale 1080/768 = 1.40625; box 1440 wide, x from 240
  assert.equal(desktopPoint({ x: 239.9, y: 500 }, PANEL, null, desktop), null, 'left bar');
  assert.equal(desktopPoint({ x: 1680, y: 500 }, PANEL, null, desktop), null, 'right bar');
  assert.deepEqual(desktopPoint({ x: 240, y: 0 }, PANEL, null, desktop), { x: 0, y: 0 });
  assert.deepEqual(desktopPoint({ x: 240 + 1.40625 * 512, y: 1.40625 * 384 }, PANEL, null, desktop), { x: 512, y: 384 });
  assert.deepEqual(desktopPoint({ x: 1679.99, y: 1079.99 }, PANEL, null, desktop), { x: 1023, y: 767 });
  // pillarbox the other way: a wide desktop on a tall slot
  assert.equal(desktopPoint({ x: 100, y: 10 }, { width: 1000, height: 1000 }, null, { width: 2000, height: 1000 }), null, 'top bar');
  assert.deepEqual(desktopPoint({ x: 500, y: 500 }, { width: 1000, height: 1000 }, null, { width: 2000, height: 1000 }), { x: 1000, y: 500 });
});

test('a slot of a two-source room: the right half, rounded as the render worker rounds it, letterboxed inside', () => {
  const [left, right] = slotRects('side-by-side', [0, 1], 0);
  assert.ok(left && right);
  assert.deepEqual(slotArea(PANEL, right), { x: 960, y: 0, width: 960, height: 1080 });
  assert.deepEqual(slotArea(PANEL, right), slotPixels(right, PANEL), 'the page and the protocol agree on the slot');
  // the shadow server keeps its 1920×1080 desktop: half-size, 960×540, centred vertically (y from 270)
  assert.equal(desktopPoint({ x: 1000, y: 100 }, PANEL, right, PANEL), null, 'bar above the picture');
  assert.equal(desktopPoint({ x: 900, y: 540 }, PANEL, right, PANEL), null, 'the other slot');
  assert.deepEqual(desktopPoint({ x: 960, y: 270 }, PANEL, right, PANEL), { x: 0, y: 0 });
  assert.deepEqual(desktopPoint({ x: 960 + 480, y: 270 + 270 }, PANEL, right, PANEL), { x: 960, y: 540 });
  assert.deepEqual(desktopPoint({ x: 1919.5, y: 809.5 }, PANEL, right, PANEL), { x: 1919, y: 1079 });
  assert.ok(inSlot({ x: 960, y: 0 }, PANEL, right) && !inSlot({ x: 959.9, y: 0 }, PANEL, right));
});

test('a 2×2 grid slot on an odd panel keeps the render worker\'s rounding (neighbours meet without a gap)', () => {
  const panel = { width: 1001, height: 601 };
  const rects = slotRects('grid', [0, 1, 2, 3], 0);
  const areas = rects.map((rect) => slotArea(panel, rect));
  assert.deepEqual(areas.map((area) => [area.x, area.y, area.width, area.height]), [[0, 0, 501, 301], [501, 0, 500, 301], [0, 301, 501, 300], [501, 301, 500, 300]]);
  const last = rects[3] ?? null;
  assert.deepEqual(desktopPoint({ x: 501, y: 301 }, panel, last, { width: 500, height: 300 }), { x: 0, y: 0 });
});

test('a browser presenter\'s laser: fractions of the letterboxed picture; off the picture, none', () => {
  const desktop = { width: 1024, height: 768 };
  assert.deepEqual(pictureFraction({ x: 240 + 720, y: 540 }, PANEL, null, desktop), { x: 0.5, y: 0.5 });
  assert.equal(pictureFraction({ x: 100, y: 540 }, PANEL, null, desktop), null);
  const [, right] = slotRects('side-by-side', [0, 1], 0);
  assert.deepEqual(pictureFraction({ x: 960 + 240, y: 270 + 135 }, PANEL, right ?? null, PANEL), { x: 0.25, y: 0.25 });
});

test('a client point becomes canvas pixels at the device pixel ratio', () => {
  assert.deepEqual(canvasPoint(480, 270, { left: 0, top: 0, width: 960, height: 540 }, PANEL), { x: 960, y: 540 });
});
