import { test } from 'node:test';
import assert from 'node:assert/strict';
import { generateReferenceImage } from './referenceImage.js';
import { compareImages } from './rgbImage.js';

function pixel(image: ReturnType<typeof generateReferenceImage>, x: number, y: number): number[] {
  const offset = (y * image.width + x) * 4;
  return [...image.data.subarray(offset, offset + 4)];
}

test('the reference image is 1920x1080 RGBA and identical on every call', () => {
  const first = generateReferenceImage();
  const second = generateReferenceImage();
  assert.equal(first.width, 1920);
  assert.equal(first.height, 1080);
  assert.equal(first.data.length, 1920 * 1080 * 4);
  assert.equal(compareImages(first, second), undefined);
});

test('the reference image has its corner markers, frame and opaque pixels', () => {
  const image = generateReferenceImage();
  assert.deepEqual(pixel(image, 2, 2), [255, 0, 0, 255]);
  assert.deepEqual(pixel(image, 1917, 2), [0, 255, 0, 255]);
  assert.deepEqual(pixel(image, 2, 1077), [0, 0, 255, 255]);
  assert.deepEqual(pixel(image, 1917, 1077), [255, 255, 255, 255]);
  assert.deepEqual(pixel(image, 960, 0), [255, 0, 255, 255]);
  for (let offset = 3; offset < image.data.length; offset += 4) {
    if (image.data[offset] !== 255) assert.fail(`pixel ${(offset - 3) / 4} is not opaque`);
  }
});

test('the reference image carries codec-hostile content: ramps, many colours, fine detail', () => {
  const image = generateReferenceImage();
  // the grey ramp (4th strip) rises monotonically across the width and spans 0..255
  const rampY = 12 + 3 * Math.floor(1080 / 36) + 2;
  let previous = -1;
  for (let x = 1; x < 1919; x += 1) {
    const [r, g, b] = pixel(image, x, rampY);
    assert.equal(r, g);
    assert.equal(g, b);
    assert.ok((r ?? 0) >= previous, `ramp falls at x=${x}`);
    previous = r ?? 0;
  }
  assert.ok(previous >= 250);
  const colours = new Set<number>();
  for (let offset = 0; offset < image.data.length; offset += 4) colours.add(image.data.readUInt32BE(offset));
  assert.ok(colours.size > 100_000, `only ${colours.size} distinct colours`);
  // 1-pixel detail: many horizontally adjacent pixels differ strongly
  let sharpEdges = 0;
  for (let offset = 4; offset < image.data.length; offset += 4) {
    if (Math.abs((image.data[offset] ?? 0) - (image.data[offset - 4] ?? 0)) > 200) sharpEdges += 1;
  }
  assert.ok(sharpEdges > 50_000, `only ${sharpEdges} sharp edges`);
});

test('the generator also makes other sizes (for smaller displays)', () => {
  const small = generateReferenceImage(640, 360);
  assert.equal(small.data.length, 640 * 360 * 4);
  assert.deepEqual(pixel(small, 637, 357), [255, 255, 255, 255]);
});
