import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SoundChunker } from './soundChunker.js';

interface Piece { samples: number[]; frames: number; timestampMs: number }

function collect(channels: 1 | 2, rate: number): { chunker: SoundChunker; pieces: Piece[] } {
  const pieces: Piece[] = [];
  const chunker = new SoundChunker(channels, rate, (samples, frames, timestampMs) => pieces.push({ samples: [...samples], frames, timestampMs }));
  return { chunker, pieces };
}

const ramp = (frames: number, from: number, step: number): Float32Array => Float32Array.from({ length: frames }, (_, i) => from + i * step);

void test('10 ms capture buffers become 20 ms pieces, interleaved left/right, timed by their first frame', () => {
  const { chunker, pieces } = collect(2, 48_000);
  // Chromium's tab capture: 480 frames a buffer at 48 kHz
  for (let b = 0; b < 4; b++) chunker.push([new Float32Array(480).fill(0.5), new Float32Array(480).fill(-0.25)], 480, 1000 + b * 10);
  assert.equal(pieces.length, 2);
  assert.deepEqual(pieces.map((piece) => [piece.frames, piece.timestampMs]), [[960, 1000], [960, 1020]]);
  const first = pieces[0];
  assert.ok(first);
  assert.equal(first.samples.length, 1920);
  assert.deepEqual(first.samples.slice(0, 4), [16384, -8192, 16384, -8192]);
});

void test('a buffer that straddles pieces is split at the frame, and the next piece starts at that frame\'s time', () => {
  const { chunker, pieces } = collect(1, 44_100);
  // 441 frames a buffer at 44.1 kHz; a piece is 882 frames
  chunker.push([ramp(600, 0, 0.001)], 600, 0);
  chunker.push([ramp(600, 0.6, 0.001)], 600, 600 / 44.1);
  assert.equal(pieces.length, 1);
  const piece = pieces[0];
  assert.ok(piece);
  assert.equal(piece.frames, 882);
  // the samples run on unbroken across the two buffers
  for (let i = 1; i < 882; i++) assert.ok(Math.abs((piece.samples[i] ?? 0) - (piece.samples[i - 1] ?? 0) - 33) <= 1, `sample ${i}`);
  chunker.push([ramp(600, 1.2, 0)], 600, 1200 / 44.1);
  assert.equal(pieces.length, 2);
  assert.ok(Math.abs((pieces[1]?.timestampMs ?? 0) - 20) < 1e-9, `the second piece starts at frame 882 (20 ms), not at a buffer's start: ${pieces[1]?.timestampMs}`);
});

void test('a mono capture plays on both sides of a stereo session; samples past full scale are clipped', () => {
  const { chunker, pieces } = collect(2, 8_000);
  chunker.push([Float32Array.from({ length: 160 }, (_, i) => (i % 2 === 0 ? 1.5 : -1.5))], 160, 0);
  assert.equal(pieces.length, 1);
  assert.deepEqual(pieces[0]?.samples.slice(0, 4), [32767, 32767, -32767, -32767]);
});

void test('reset forgets a part-filled piece: nothing old leaks into the next one', () => {
  const { chunker, pieces } = collect(1, 8_000);
  chunker.push([new Float32Array(100).fill(0.9)], 100, 0);
  chunker.reset();
  chunker.push([new Float32Array(160).fill(0)], 160, 500);
  assert.equal(pieces.length, 1);
  assert.equal(pieces[0]?.timestampMs, 500);
  assert.ok(pieces.at(0)?.samples.every((sample) => sample === 0));
});
