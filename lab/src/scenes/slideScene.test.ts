import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compareImages, createImage, type RgbImage } from '../image/rgbImage.js';
import { SLIDE_PHOTO_BOX, SLIDE_REGIONS } from './slideDrawing.js';
import { generateSlidePhoto } from './slidePhoto.js';
import { slideScenePlan } from './slideScene.js';

/** Reads the binary PPM (P6, maxval 255) ImageMagick writes. */
function decodePpm(bytes: Buffer): RgbImage {
  const header = /^P6\s+(\d+)\s+(\d+)\s+255\s/.exec(bytes.subarray(0, 64).toString('latin1'));
  assert.ok(header, 'not an 8-bit binary PPM');
  const image = createImage(Number(header[1]), Number(header[2]));
  const body = bytes.subarray(header[0].length);
  for (let source = 0, target = 0; target < image.data.length; source += 3, target += 4) {
    body.copy(image.data, target, source, source + 3);
    image.data[target + 3] = 255;
  }
  return image;
}

function crop(image: RgbImage, box: { x: number; y: number; width: number; height: number }): RgbImage {
  const out = createImage(box.width, box.height);
  for (let y = 0; y < box.height; y += 1) {
    const start = ((box.y + y) * image.width + box.x) * 4;
    image.data.copy(out.data, y * box.width * 4, start, start + box.width * 4);
  }
  return out;
}

/** Renders the plan's picture the way the scene does (its convert step), without a display. */
function renderSlide(width: number, height: number): RgbImage {
  const dir = mkdtempSync(join(tmpdir(), 'lanterna-slide-test-'));
  try {
    const plan = slideScenePlan({ display: ':0', width, height, workDir: dir });
    for (const file of plan.files) writeFileSync(file.path, file.content);
    const convert = plan.steps[0];
    assert.equal(convert?.command, 'convert');
    execFileSync(convert.command, convert.args);
    const output = convert.args.at(-1)?.replace(/^ppm:/, '') ?? '';
    return decodePpm(readFileSync(output));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const pixel = (image: RgbImage, x: number, y: number): number[] => [...image.data.subarray((y * image.width + x) * 4, (y * image.width + x) * 4 + 3)];

test('the slide renders to the same 1920x1080 picture every time', () => {
  const first = renderSlide(1920, 1080);
  assert.equal(first.width, 1920);
  assert.equal(first.height, 1080);
  assert.equal(compareImages(first, renderSlide(1920, 1080)), undefined);
});

test('the slide has its parts where the regions say: title band, white page, the photo pasted exactly', () => {
  const slide = renderSlide(1920, 1080);
  assert.deepEqual(pixel(slide, 20, 20), [0x1f, 0x3a, 0x5f], 'navy title band');
  assert.deepEqual(pixel(slide, 960, 154), [0xf2, 0x8c, 0x28], 'orange accent stripe');
  assert.deepEqual(pixel(slide, 960, 700), [255, 255, 255], 'white page between the columns');
  const photo = generateSlidePhoto(SLIDE_PHOTO_BOX.width, SLIDE_PHOTO_BOX.height);
  assert.equal(compareImages(photo, crop(slide, SLIDE_PHOTO_BOX)), undefined, 'the photo is composited 1:1 at its box');
  for (const region of SLIDE_REGIONS) {
    assert.ok(region.x >= 0 && region.y >= 0 && region.x + region.width <= 1920 && region.y + region.height <= 1080, `${region.name} is off the screen`);
  }
});

test('the slide is presentation content: anti-aliased text and strokes, flat fills, a smooth photo', () => {
  const slide = renderSlide(1920, 1080);
  // Text is drawn with FreeType's anti-aliasing: the bullet column holds ink,
  // paper and many grey levels between them (edge pixels), not just two colours.
  const bullets = crop(slide, SLIDE_REGIONS.find((r) => r.name === 'bullet text') ?? SLIDE_PHOTO_BOX);
  const levels = new Set<number>();
  let ink = 0;
  for (let offset = 0; offset < bullets.data.length; offset += 4) {
    levels.add(bullets.data.readUInt32BE(offset));
    if ((bullets.data[offset] ?? 255) < 80) ink += 1;
  }
  assert.ok(levels.size > 100, `only ${levels.size} colours in the bullet text`);
  assert.ok(ink > 10_000, `only ${ink} dark pixels: no bullet text drawn`);
  // The photo is smooth: neighbouring pixels differ by little on average.
  const photo = generateSlidePhoto(814, 300);
  let step = 0;
  for (let offset = 4; offset < photo.data.length; offset += 4) step += Math.abs((photo.data[offset + 1] ?? 0) - (photo.data[offset - 3] ?? 0));
  const meanStep = step / (photo.data.length / 4);
  assert.ok(meanStep > 0.3 && meanStep < 6, `mean green step between neighbours ${meanStep.toFixed(2)}: not a smooth photo`);
});

test('the slide scales to other screen sizes', () => {
  const small = renderSlide(1280, 720);
  assert.equal(small.width, 1280);
  assert.equal(small.height, 720);
  assert.deepEqual(pixel(small, 13, 13), [0x1f, 0x3a, 0x5f]);
});
