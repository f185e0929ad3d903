import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CLAPPER, clapperFrames, frameAt, nextFlashAt } from './clapperTrack.js';

/** Left-channel samples of interleaved s16 stereo PCM, as -1..1. */
function left(pcm: Buffer): number[] {
  const out: number[] = [];
  for (let i = 0; i < pcm.length; i += 4) out.push(pcm.readInt16LE(i) / 32767);
  return out;
}

test('the flash comes at the next whole second', () => {
  assert.equal(nextFlashAt(1_700_000_000_000), 1_700_000_000_000);
  assert.equal(nextFlashAt(1_700_000_000_001), 1_700_000_001_000);
  assert.equal(nextFlashAt(1_700_000_000_999.5), 1_700_000_001_000);
});

test('the click starts at the frame that plays at each whole second, written in any chunking', () => {
  const origin = 1_700_000_000_250; // frame 0 plays a quarter second before a second
  const rate = CLAPPER.rate;
  // three seconds in 10 ms chunks, as the session's writer hands them over
  const chunk = Math.round(rate / 100);
  const parts: Buffer[] = [];
  for (let from = 0; from < 3 * rate; from += chunk) parts.push(clapperFrames(origin, from, chunk, rate));
  const samples = left(Buffer.concat(parts));
  const onsets: number[] = [];
  let quietSince = -rate;
  samples.forEach((value, frame) => {
    if (Math.abs(value) < 0.1) return;
    if (frame - quietSince > rate / 10) onsets.push(frame);
    quietSince = frame;
  });
  const seconds = [1_700_000_001_000, 1_700_000_002_000, 1_700_000_003_000];
  // the sine starts at 0: its first sample above 0.1 of full scale is the one after the second's frame
  assert.deepEqual(onsets, seconds.map((second) => frameAt(origin, second, rate) + 1));
  const clickFrames = Math.round((CLAPPER.clickMs / 1000) * rate);
  const loud = samples.filter((value) => value !== 0).length;
  assert.ok(loud > 3 * (clickFrames - 10) && loud <= 3 * clickFrames, `three 5 ms clicks and silence: ${loud} non-zero frames`);
  const peak = samples.reduce((most, value) => Math.max(most, value), 0);
  assert.ok(peak <= CLAPPER.clickAmplitude + 1e-3 && peak > CLAPPER.clickAmplitude - 0.01, `the click's peak: ${peak}`);
  // the same frames in one piece
  assert.deepEqual(clapperFrames(origin, 0, rate, rate).subarray(0, chunk * 4), parts[0]);
});

test('a chunk is bounded: at most one second of frames at once', () => {
  assert.throws(() => clapperFrames(0, 0, CLAPPER.rate + 1), RangeError);
  assert.throws(() => clapperFrames(0, -1, 10), RangeError);
});
