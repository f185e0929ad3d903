import { createImage, type RgbImage } from '../image/rgbImage.js';

// The slide's photograph: a landscape (sky with a sun glow, two ranges of
// hills with soft ridges, a lake that mirrors the sky) with the fine, low
// amplitude texture a real photo of foliage and water has. Computed, not
// loaded, so it is the same on every run and machine: integer lattice noise
// and closed-form shapes, no library randomness.

type Rgb = readonly [number, number, number];

/** A hash of a lattice point to 0..1 (integer mixing only, so it is exact everywhere). */
function latticeValue(x: number, y: number, seed: number): number {
  let h = (Math.imul(x, 0x27d4eb2d) ^ Math.imul(y, 0x165667b1) ^ Math.imul(seed, 0x9e3779b1)) >>> 0;
  h = Math.imul(h ^ (h >>> 15), 0x85ebca6b) >>> 0;
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35) >>> 0;
  return ((h ^ (h >>> 16)) >>> 0) / 0xffffffff;
}

/** Smoothly interpolated lattice noise, -0.5..0.5, with features about `cell` pixels wide. */
function valueNoise(x: number, y: number, cell: number, seed: number): number {
  const gx = Math.floor(x / cell);
  const gy = Math.floor(y / cell);
  const fx = x / cell - gx;
  const fy = y / cell - gy;
  const sx = fx * fx * (3 - 2 * fx);
  const sy = fy * fy * (3 - 2 * fy);
  const top = latticeValue(gx, gy, seed) * (1 - sx) + latticeValue(gx + 1, gy, seed) * sx;
  const bottom = latticeValue(gx, gy + 1, seed) * (1 - sx) + latticeValue(gx + 1, gy + 1, seed) * sx;
  return top * (1 - sy) + bottom * sy - 0.5;
}

const mix = (a: Rgb, b: Rgb, t: number): Rgb => [a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t, a[2] + (b[2] - a[2]) * t];
const clamp01 = (v: number): number => Math.min(1, Math.max(0, v));

/** The photo at width × height (the slide places it at 814×300 on a 1920×1080 screen). */
export function generateSlidePhoto(width: number, height: number): RgbImage {
  const image = createImage(width, height);
  // Shapes are laid out on an 814×300 frame and scaled to the requested size.
  const unit = width / 814;
  const horizon = 0.72 * height;
  const sun = { x: 0.68 * width, y: 0.28 * height, r: 0.05 * height };
  const farRidge = (x: number): number => height * (0.45 + 0.07 * Math.sin(x / (61 * unit)) + 0.035 * Math.sin(x / (23 * unit) + 1.3));
  const nearRidge = (x: number): number => height * (0.6 + 0.05 * Math.sin(x / (97 * unit) + 2.1) + 0.02 * Math.sin(x / (31 * unit) + 0.4));
  const sky = (x: number, y: number): Rgb => {
    const t = clamp01(y / horizon);
    const base = mix([58, 112, 184], [236, 214, 186], t * t);
    const d2 = ((x - sun.x) ** 2 + (y - sun.y) ** 2) / (sun.r * sun.r);
    const glow = 1 / (1 + d2 / 9);
    const disc = clamp01(1.5 - Math.sqrt(d2)); // a soft-edged sun disc
    return mix(mix(base, [255, 226, 170], glow * 0.8), [255, 250, 232], disc);
  };
  const put = (x: number, y: number, colour: Rgb): void => {
    const offset = (y * width + x) * 4;
    image.data[offset] = Math.round(clamp01(colour[0] / 255) * 255);
    image.data[offset + 1] = Math.round(clamp01(colour[1] / 255) * 255);
    image.data[offset + 2] = Math.round(clamp01(colour[2] / 255) * 255);
    image.data[offset + 3] = 255;
  };
  const horizonRow = Math.ceil(horizon);
  for (let y = 0; y < horizonRow; y += 1) {
    for (let x = 0; x < width; x += 1) {
      let colour = sky(x, y);
      const far = farRidge(x);
      const farCover = clamp01(y + 0.5 - far); // anti-aliased ridge
      if (farCover > 0) {
        const haze = clamp01((y - far) / (horizon - far + 1));
        const rock = mix([112, 130, 162], [86, 106, 124], haze);
        const grain = valueNoise(x, y, 11 * unit, 1) * 0.6 + valueNoise(x, y, 4 * unit, 5) * 0.3;
        colour = mix(colour, mix(rock, [70, 86, 110], 0.5 + grain), farCover);
      }
      const near = nearRidge(x);
      const nearCover = clamp01(y + 0.5 - near);
      if (nearCover > 0) {
        const depth = clamp01((y - near) / (horizon - near + 1));
        const foliage = mix([74, 122, 64], [38, 74, 40], depth);
        const texture = valueNoise(x, y, 5 * unit, 2) * 0.5 + valueNoise(x, y, 2 * unit, 3) * 0.35;
        colour = mix(colour, mix(foliage, [24, 48, 26], 0.5 + texture), nearCover);
      }
      put(x, y, colour);
    }
  }
  // the lake mirrors the land and sky above it, darker, broken by soft horizontal ripples
  for (let y = horizonRow; y < height; y += 1) {
    const mirrorRow = Math.max(0, Math.min(horizonRow - 1, 2 * horizonRow - 1 - y));
    const darken = 0.3 + 0.3 * clamp01((y - horizon) / (height - horizon));
    for (let x = 0; x < width; x += 1) {
      const ripple = Math.round(valueNoise(x / 8, y, 3 * unit, 4) * 8 * unit);
      const sourceX = Math.max(0, Math.min(width - 1, x + ripple));
      const source = (mirrorRow * width + sourceX) * 4;
      const reflected: Rgb = [image.data[source] ?? 0, image.data[source + 1] ?? 0, image.data[source + 2] ?? 0];
      put(x, y, mix(reflected, [30, 58, 88], darken));
    }
  }
  return image;
}
