import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RING, createPlaybackRing, queuedDelayMs, ringFill, ringViews, writePlanes, writeWave } from './playbackRing.js';

function running(capacity: number) {
  const ring = ringViews(createPlaybackRing(capacity));
  Atomics.store(ring.header, RING.running, 1);
  Atomics.store(ring.header, RING.outputLatencyUs, 12_000);
  return ring;
}

test('a wave is queued as stereo float32; the answer is the queue ahead of its end plus the output\'s latency', () => {
  const ring = running(1024);
  const stereo = Int16Array.from([16384, -8192, -32768, 32767]);
  assert.equal(writeWave(ring, { samples: stereo, channels: 2, sampleRate: 1000 }), 2 + 12);
  assert.deepEqual(Array.from(ring.samples.subarray(0, 4)), [0.5, -0.25, -1, 32767 / 32768]);
  // mono is doubled; the queue ahead now holds 2 + 3 frames at 1 kHz
  assert.equal(writeWave(ring, { samples: Int16Array.from([1, 2, 3]), channels: 1, sampleRate: 1000 }), 5 + 12);
  assert.deepEqual(Array.from(ring.samples.subarray(4, 10)).map((v) => v * 32768), [1, 1, 2, 2, 3, 3]);
  assert.equal(ringFill(ring.header), 5);
  assert.equal(Atomics.load(ring.header, RING.waves), 2);
});

test('a full queue drops the wave\'s tail, never grows; the positions wrap', () => {
  const ring = running(8);
  Atomics.store(ring.header, RING.write, 0x7fff_fffe); // near int32's end: the differences must stay right
  Atomics.store(ring.header, RING.read, 0x7fff_fffe);
  writeWave(ring, { samples: new Int16Array(12), channels: 2, sampleRate: 1000 });
  writeWave(ring, { samples: new Int16Array(8), channels: 2, sampleRate: 1000 });
  assert.equal(ringFill(ring.header), 8);
  assert.equal(Atomics.load(ring.header, RING.dropped), 2);
});

test('while the context is not running nothing is queued and nothing is claimed', () => {
  const ring = running(64);
  Atomics.store(ring.header, RING.running, 0);
  assert.equal(writeWave(ring, { samples: new Int16Array(20), channels: 2, sampleRate: 1000 }), 0);
  assert.equal(ringFill(ring.header), 0);
  assert.equal(Atomics.load(ring.header, RING.dropped), 10);
});

test('decoded float planes (a decoder\'s output) are queued as they are; mono is doubled; the delay counts frames still in the decoder', () => {
  const ring = running(1024);
  const left = Float32Array.from([0.5, -0.25, 0.125]);
  const right = Float32Array.from([-1, 0.75, 0]);
  assert.equal(writePlanes(ring, [left, right], 3, 1000), 3 + 12);
  assert.deepEqual(Array.from(ring.samples.subarray(0, 6)), [0.5, -1, -0.25, 0.75, 0.125, 0]);
  assert.equal(writePlanes(ring, [Float32Array.from([0.5, 0.25])], 2, 1000), 5 + 12);
  assert.deepEqual(Array.from(ring.samples.subarray(6, 10)), [0.5, 0.5, 0.25, 0.25]);
  assert.equal(Atomics.load(ring.header, RING.rate), 1000);
  // 5 frames queued and 20 more waiting in a decoder, at 1 kHz: 25 ms, plus the output's 12
  assert.equal(queuedDelayMs(ring, 20, 1000), 25 + 12);
  // a plane shorter than the frames claimed bounds what is read
  assert.equal(writePlanes(ring, [Float32Array.from([0.1])], 4, 1000), 6 + 12);
  assert.equal(ringFill(ring.header), 6);
});
