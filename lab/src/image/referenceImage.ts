import { GLYPH_HEIGHT, GLYPH_WIDTH, glyphRows } from './bitmapFont5x7.js';
import { createImage, type RgbImage } from './rgbImage.js';

// The reference scene: one fixed picture that makes codec damage visible.
// Smooth ramps (banding), saturated bars with hard edges (chroma
// subsampling bleeds), a zone plate and 1-pixel patterns (blocking, ringing),
// seeded noise (nothing to predict), and small text (blur). Corner blocks of
// distinct colours catch cropping, flipping and off-by-one offsets.
// Everything is integer arithmetic from a fixed seed, so it is identical on
// every run and machine.

type Rgb = readonly [number, number, number];

class Canvas {
  constructor(readonly image: RgbImage) {}

  set(x: number, y: number, [r, g, b]: Rgb): void {
    if (x < 0 || y < 0 || x >= this.image.width || y >= this.image.height) return;
    const offset = (y * this.image.width + x) * 4;
    this.image.data[offset] = r;
    this.image.data[offset + 1] = g;
    this.image.data[offset + 2] = b;
    this.image.data[offset + 3] = 255;
  }

  fill(x0: number, y0: number, width: number, height: number, colour: Rgb): void {
    for (let y = y0; y < y0 + height; y += 1) for (let x = x0; x < x0 + width; x += 1) this.set(x, y, colour);
  }

  text(x0: number, y0: number, text: string, scale: number, colour: Rgb): number {
    let x = x0;
    for (const char of text) {
      const rows = glyphRows(char);
      for (let row = 0; row < GLYPH_HEIGHT; row += 1) {
        const bits = rows[row] ?? 0;
        for (let column = 0; column < GLYPH_WIDTH; column += 1) {
          if ((bits >> (GLYPH_WIDTH - 1 - column)) & 1) this.fill(x + column * scale, y0 + row * scale, scale, scale, colour);
        }
      }
      x += (GLYPH_WIDTH + 1) * scale;
    }
    return x;
  }
}

/** xorshift32: tiny, seeded, and the same everywhere. */
function* xorshift32(seed: number): Generator<number, never> {
  let state = seed >>> 0 || 1;
  for (;;) {
    state ^= state << 13;
    state >>>= 0;
    state ^= state >>> 17;
    state ^= state << 5;
    state >>>= 0;
    yield state;
  }
}

const BARS: readonly Rgb[] = [
  [255, 255, 255], [255, 255, 0], [0, 255, 255], [0, 255, 0],
  [255, 0, 255], [255, 0, 0], [0, 0, 255], [0, 0, 0],
];

const PANGRAM = 'THE QUICK BROWN FOX JUMPS OVER THE LAZY DOG 0123456789 ';

/** Integer hue ramp: hue 0..1535 at full saturation, then mixed toward grey by `saturation` 0..255. */
function hueColour(hue: number, saturation: number): Rgb {
  const sector = Math.floor(hue / 256) % 6;
  const rise = hue % 256;
  const fall = 255 - rise;
  const pure: Rgb = ([
    [255, rise, 0], [fall, 255, 0], [0, 255, rise], [0, fall, 255], [rise, 0, 255], [255, 0, fall],
  ] as const)[sector] ?? [0, 0, 0];
  const mix = (channel: number): number => Math.floor((channel * saturation + 128 * (255 - saturation)) / 255);
  return [mix(pure[0]), mix(pure[1]), mix(pure[2])];
}

/** The reference picture at the given size (the scene uses 1920×1080). RGBA, see RgbImage. */
export function generateReferenceImage(width = 1920, height = 1080): RgbImage {
  const canvas = new Canvas(createImage(width, height));
  canvas.fill(0, 0, width, height, [24, 28, 40]);

  // Ramps: red, green, blue, grey, each 0..255 across the full width.
  const rampHeight = Math.floor(height / 36);
  for (let strip = 0; strip < 4; strip += 1) {
    for (let x = 0; x < width; x += 1) {
      const level = Math.floor((x * 256) / width);
      const colour: Rgb = strip === 0 ? [level, 0, 0] : strip === 1 ? [0, level, 0] : strip === 2 ? [0, 0, level] : [level, level, level];
      canvas.fill(x, 12 + strip * rampHeight, 1, rampHeight, colour);
    }
  }

  // Saturated bars with hard edges.
  const barsTop = 12 + 4 * rampHeight + 12;
  const barHeight = Math.floor(height / 8);
  const barWidth = Math.floor(width / BARS.length);
  BARS.forEach((colour, index) => canvas.fill(index * barWidth, barsTop, barWidth, barHeight, colour));

  // Zone plate, 1-pixel checkerboard and line gratings, seeded noise.
  const detailTop = barsTop + barHeight + 12;
  const detailHeight = Math.floor(height / 4);
  const plateWidth = Math.floor(width * 0.3);
  const centreX = Math.floor(plateWidth / 2);
  const centreY = Math.floor(detailHeight / 2);
  for (let y = 0; y < detailHeight; y += 1) {
    for (let x = 0; x < plateWidth; x += 1) {
      const dx = x - centreX;
      const dy = y - centreY;
      // phase grows with r²: rings get finer toward the edge (integer table-free cosine substitute)
      const phase = Math.floor(((dx * dx + dy * dy) * 256) / 2048) % 512;
      const level = phase < 256 ? phase : 511 - phase;
      canvas.set(x, detailTop + y, [level, level, level]);
    }
  }
  const patternLeft = plateWidth + 12;
  const patternWidth = Math.floor(width * 0.25);
  for (let y = 0; y < detailHeight; y += 1) {
    for (let x = 0; x < patternWidth; x += 1) {
      const band = Math.floor((x * 4) / patternWidth);
      const period = band + 1; // 1, 2, 3 and 4 pixel gratings
      const on = band === 0 ? (x + y) % 2 === 0 : Math.floor(x / period) % 2 === 0;
      canvas.set(patternLeft + x, detailTop + y, on ? [250, 250, 250] : [5, 5, 5]);
    }
  }
  const noiseLeft = patternLeft + patternWidth + 12;
  const random = xorshift32(0x1a2b3c4d);
  for (let y = 0; y < detailHeight; y += 1) {
    for (let x = noiseLeft; x < width - 12; x += 1) {
      const value = random.next().value;
      canvas.set(x, detailTop + y, [value & 0xff, (value >>> 8) & 0xff, (value >>> 16) & 0xff]);
    }
  }

  // Hue/saturation field on the left, text of several sizes and colours on the right.
  const lowerTop = detailTop + detailHeight + 12;
  const lowerHeight = height - lowerTop - 12;
  const fieldWidth = Math.floor(width * 0.25);
  for (let y = 0; y < lowerHeight; y += 1) {
    const saturation = 255 - Math.floor((y * 255) / Math.max(lowerHeight - 1, 1));
    for (let x = 0; x < fieldWidth; x += 1) canvas.set(x, lowerTop + y, hueColour(Math.floor((x * 1536) / fieldWidth), saturation));
  }
  const textLeft = fieldWidth + 16;
  canvas.fill(textLeft - 4, lowerTop, width - textLeft, lowerHeight, [250, 250, 245]);
  const titleScale = 4;
  canvas.text(textLeft, lowerTop + 6, `LANTERNA REFERENCE ${width}X${height}`, titleScale, [20, 20, 120]);
  let y = lowerTop + 6 + GLYPH_HEIGHT * titleScale + 8;
  const colours: readonly Rgb[] = [[0, 0, 0], [200, 0, 0], [0, 120, 0], [0, 0, 200], [120, 0, 120], [0, 110, 110]];
  for (let line = 0; y + 7 < lowerTop + lowerHeight - 4; line += 1) {
    const scale = line % 5 === 4 ? 2 : 1;
    const colour = colours[line % colours.length] ?? [0, 0, 0];
    const shift = (line * 7) % PANGRAM.length;
    const text = (PANGRAM.slice(shift) + PANGRAM + PANGRAM + PANGRAM + PANGRAM + PANGRAM).slice(0, Math.floor((width - textLeft - 8) / (6 * scale)));
    canvas.text(textLeft, y, text, scale, colour);
    y += (GLYPH_HEIGHT + 2) * scale;
  }

  // Corner markers and a one-pixel frame: red top-left, green top-right,
  // blue bottom-left, white bottom-right, magenta frame.
  for (let x = 0; x < width; x += 1) {
    canvas.set(x, 0, [255, 0, 255]);
    canvas.set(x, height - 1, [255, 0, 255]);
  }
  for (let yy = 0; yy < height; yy += 1) {
    canvas.set(0, yy, [255, 0, 255]);
    canvas.set(width - 1, yy, [255, 0, 255]);
  }
  canvas.fill(1, 1, 8, 8, [255, 0, 0]);
  canvas.fill(width - 9, 1, 8, 8, [0, 255, 0]);
  canvas.fill(1, height - 9, 8, 8, [0, 0, 255]);
  canvas.fill(width - 9, height - 9, 8, 8, [255, 255, 255]);
  return canvas.image;
}
