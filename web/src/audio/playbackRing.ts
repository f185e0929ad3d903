// The display's sound queue: one SharedArrayBuffer that the session worker
// writes waves into (as they leave the wasm client) and the AudioWorklet reads
// from on the audio thread, with no message and no copy through the page's
// thread in between. Single producer, single consumer: the worker moves only
// the write position, the worklet only the read position (Atomics on both).
// Frames are stereo float32 at the source's rate; the worklet resamples.
//
// Knows frames and counters only: nothing of RDP, nothing of the page.

/** Header words (Int32) before the samples. */
export const RING = {
  /** Frames written since the start (wraps as an int32; differences stay right). */
  write: 0,
  /** Frames the worklet consumed (played, skipped or dropped). */
  read: 1,
  /** The sample rate of the frames in the queue (the worker sets it with each wave). */
  rate: 2,
  /** Capacity in frames. */
  capacity: 3,
  /** What the output adds after the worklet (AudioContext base + output latency), µs; the page sets it. */
  outputLatencyUs: 4,
  /** Volume in thousandths, 0 while muted; the page sets it, the worklet ramps to it. */
  gainMilli: 5,
  /** Times the queue ran dry while playing. */
  underruns: 6,
  /** Frames thrown away: the queue was full (worker) or past its bound (worklet). */
  dropped: 7,
  /** Frames the worklet skipped by playing slightly fast (time-stretch toward the target). */
  stretched: 8,
  /** Render quanta (128 frames) that carried sound from the queue. */
  soundingBlocks: 9,
  /** 1 while the worklet plays from the queue, 0 while it waits for the queue to fill. */
  playing: 10,
  /** Frames of the output the test tap holds; -1 until the page arms it (playback.worklet.ts). */
  tapFrames: 11,
  /** The AudioContext's rate, for the worker's arithmetic (the page sets it). */
  outputRate: 12,
  /** Waves written (the worker). */
  waves: 13,
  /** The jitter buffer's target depth now, ms (jitterPolicy.ts). */
  targetMs: 14,
  /** 1 while the AudioContext runs (the page sets it): waves that nobody will hear are not queued. */
  running: 15,
  /** The context's frame (the worklet's currentFrame) of the tap's first frame (tests: the A/V offset bench). */
  tapStartFrame: 16,
  /** Compressed packets the worker's decoder refused, or lost with it (opusWaveDecoder.ts). */
  decodeErrors: 17,
} as const;
export const RING_HEADER_WORDS = 18;
export const RING_CHANNELS = 2;
/** 2^17 frames: 2.7 s at 48 kHz, far above the jitter buffer's bound; 1 MiB of samples. */
export const RING_CAPACITY_FRAMES = 1 << 17;

export interface PlaybackRingViews {
  readonly header: Int32Array;
  /** Interleaved stereo frames; frame i lives at (i mod capacity) * 2. */
  readonly samples: Float32Array;
  readonly capacity: number;
}

export function createPlaybackRing(capacity = RING_CAPACITY_FRAMES): SharedArrayBuffer {
  const buffer = new SharedArrayBuffer(RING_HEADER_WORDS * 4 + capacity * RING_CHANNELS * 4);
  const header = new Int32Array(buffer, 0, RING_HEADER_WORDS);
  header[RING.capacity] = capacity;
  header[RING.gainMilli] = 1000;
  header[RING.rate] = 48_000;
  header[RING.tapFrames] = -1;
  return buffer;
}

export function ringViews(buffer: SharedArrayBuffer): PlaybackRingViews {
  const header = new Int32Array(buffer, 0, RING_HEADER_WORDS);
  const capacity = Atomics.load(header, RING.capacity);
  return { header, samples: new Float32Array(buffer, RING_HEADER_WORDS * 4, capacity * RING_CHANNELS), capacity };
}

/** Frames in the queue now (writer and reader may each be ahead by a wrap of int32). */
export function ringFill(header: Int32Array): number {
  return (Atomics.load(header, RING.write) - Atomics.load(header, RING.read)) | 0;
}

/** One wave as the wasm client hands it on: interleaved little-endian int16. */
export interface PcmWave {
  readonly samples: Int16Array;
  readonly channels: number;
  readonly sampleRate: number;
}

/**
 * The worker's side. Returns the ms until the wave's last frame is heard: the
 * queue ahead of it at the source's rate plus what the output adds. That is
 * what the client's second Wave Confirm reports to the server (the wasm
 * client adds it to the moment the wave was handed on).
 */
export function writeWave(ring: PlaybackRingViews, wave: PcmWave): number {
  const channels = wave.channels;
  const frames = channels < 1 ? 0 : Math.floor(wave.samples.length / channels);
  const source = wave.samples;
  const right = channels > 1 ? 1 : 0;
  return queueFrames(ring, frames, wave.sampleRate, (samples, at, i) => {
    const base = i * channels;
    samples[at] = (source[base] ?? 0) / 32768;
    samples[at + 1] = (source[base + right] ?? 0) / 32768;
  });
}

/**
 * Decoded float sound (a decoder's planes: one for mono, left and right for
 * stereo; further planes are left out) into the queue; as writeWave.
 */
export function writePlanes(ring: PlaybackRingViews, planes: readonly Float32Array[], frames: number, sampleRate: number): number {
  const left = planes[0];
  if (!left) return 0;
  const right = planes[1] ?? left;
  return queueFrames(ring, Math.min(frames, left.length, right.length), sampleRate, (samples, at, i) => {
    samples[at] = left[i] ?? 0;
    samples[at + 1] = right[i] ?? 0;
  });
}

/** The ms until `frames` more at `sampleRate`, queued after what the queue holds now, are heard. */
export function queuedDelayMs(ring: PlaybackRingViews, frames: number, sampleRate: number): number {
  return ((ringFill(ring.header) + frames) * 1000) / sampleRate + Atomics.load(ring.header, RING.outputLatencyUs) / 1000;
}

/** Whether the queue plays now (the AudioContext runs): sound for a queue that does not is dropped, not kept. */
export function ringRunning(ring: PlaybackRingViews): boolean {
  return Atomics.load(ring.header, RING.running) === 1;
}

type FrameWriter = (samples: Float32Array, at: number, frame: number) => void;

function queueFrames(ring: PlaybackRingViews, frames: number, sampleRate: number, write: FrameWriter): number {
  const { header, samples, capacity } = ring;
  if (frames <= 0) return 0;
  // A context the browser keeps suspended plays nothing: queueing would only
  // grow the delay the confirms report (to seconds) and play stale sound later.
  if (Atomics.load(header, RING.running) !== 1) {
    Atomics.add(header, RING.dropped, frames);
    return 0;
  }
  Atomics.store(header, RING.rate, sampleRate);
  const fill = ringFill(header);
  // A full queue drops the wave's tail: the queue never grows past its capacity.
  const room = Math.max(0, capacity - fill);
  const take = Math.min(frames, room);
  if (take < frames) Atomics.add(header, RING.dropped, frames - take);
  const start = Atomics.load(header, RING.write);
  for (let i = 0; i < take; i++) write(samples, (((start + i) >>> 0) % capacity) * RING_CHANNELS, i);
  // Release: the samples are in place before the worklet can see the new position.
  Atomics.store(header, RING.write, (start + take) | 0);
  Atomics.add(header, RING.waves, 1);
  const queuedMs = ((fill + take) * 1000) / sampleRate;
  return queuedMs + Atomics.load(header, RING.outputLatencyUs) / 1000;
}
