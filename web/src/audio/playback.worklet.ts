// The display's audio output on the audio thread: reads the session worker's
// frames from the shared queue (playbackRing.ts), keeps the queue near its
// target (jitterPolicy.ts), resamples from the source's rate to the
// context's by linear interpolation (exact when the rates match), applies the
// volume with a ramp over one render quantum (no click on a change), and, for
// tests, copies what it rendered into a tap.
import { JitterPolicy } from './jitterPolicy.js';
import { RING, RING_CHANNELS, ringFill, ringViews, type PlaybackRingViews } from './playbackRing.js';

// AudioWorkletGlobalScope (TypeScript's DOM library does not describe it).
declare const sampleRate: number;
declare const currentTime: number;
declare const currentFrame: number;
declare class AudioWorkletProcessor {
  readonly port: MessagePort;
}
declare function registerProcessor(name: string, processor: new (options: { processorOptions?: unknown }) => AudioWorkletProcessor): void;

export interface PlaybackProcessorOptions {
  readonly ring: SharedArrayBuffer;
  /** Stereo float32 frames of the rendered output (tests only), written from when the page arms it (RING.tapFrames 0). */
  readonly tap?: SharedArrayBuffer;
}

class PlaybackProcessor extends AudioWorkletProcessor {
  private readonly ring: PlaybackRingViews;
  private readonly tap: Float32Array | null;
  /** Fractional read position past the queue's head, in source frames. */
  private position = 0;
  private readonly jitter = new JitterPolicy();
  private gain: number;

  constructor(options: { processorOptions?: unknown }) {
    super();
    const given = options.processorOptions as PlaybackProcessorOptions;
    this.ring = ringViews(given.ring);
    this.tap = given.tap ? new Float32Array(given.tap) : null;
    this.gain = Atomics.load(this.ring.header, RING.gainMilli) / 1000;
  }

  process(_inputs: Float32Array[][], outputs: Float32Array[][]): boolean {
    const output = outputs[0];
    const left = output?.[0];
    if (!output || !left) return true;
    const right = output[1] ?? left;
    const frames = left.length;
    const { header, samples, capacity } = this.ring;
    const rate = Atomics.load(header, RING.rate) || sampleRate;
    let fill = ringFill(header);
    const decision = this.jitter.decide(fill, rate, currentTime * 1000);
    let read = Atomics.load(header, RING.read);
    let sounded = false;
    if (decision.kind === 'play') {
      if (decision.drop > 0) {
        read = (read + decision.drop) | 0;
        fill -= decision.drop;
        this.position = 0;
        Atomics.add(header, RING.dropped, decision.drop);
      }
      const step = (rate / sampleRate) * decision.speed;
      const plain = rate / sampleRate;
      let i = 0;
      for (; i < frames; i++) {
        const whole = Math.floor(this.position);
        // interpolation needs the frame after (none when the step is whole and lands on a frame)
        const fraction = this.position - whole;
        if (whole >= fill || (fraction > 0 && whole + 1 >= fill)) break;
        const a = (((read + whole) >>> 0) % capacity) * RING_CHANNELS;
        let l = samples[a] ?? 0;
        let r = samples[a + 1] ?? 0;
        if (fraction > 0) {
          const b = (((read + whole + 1) >>> 0) % capacity) * RING_CHANNELS;
          l += ((samples[b] ?? 0) - l) * fraction;
          r += ((samples[b + 1] ?? 0) - r) * fraction;
        }
        left[i] = l;
        right[i] = r;
        this.position += step;
      }
      sounded = i > 0;
      const consumed = Math.min(Math.floor(this.position), fill);
      this.position -= consumed;
      // frames skipped by the stretch: what this block consumed beyond a plain rate's share
      if (decision.speed !== 1) Atomics.add(header, RING.stretched, Math.max(0, Math.round(consumed - i * plain)));
      Atomics.store(header, RING.read, (read + consumed) | 0);
      if (i < frames) {
        // the queue ran dry: silence for the rest, and wait for the target again
        left.fill(0, i);
        right.fill(0, i);
        // the frame it could not interpolate past stays queued: the next wave is what comes on top of it
        this.jitter.ranDry(currentTime * 1000, fill - consumed);
        this.position = 0;
        Atomics.add(header, RING.underruns, 1);
      }
    } else {
      left.fill(0);
      right.fill(0);
    }
    Atomics.store(header, RING.playing, this.jitter.isPlaying ? 1 : 0);
    Atomics.store(header, RING.targetMs, this.jitter.targetMs);
    if (sounded) Atomics.add(header, RING.soundingBlocks, 1);
    this.applyGain(left, right);
    this.record(left, right);
    return true;
  }

  /** Volume and mute: a linear ramp from the last block's gain to the new one. */
  private applyGain(left: Float32Array, right: Float32Array): void {
    const target = Atomics.load(this.ring.header, RING.gainMilli) / 1000;
    const from = this.gain;
    if (from === 1 && target === 1) return;
    const frames = left.length;
    for (let i = 0; i < frames; i++) {
      const g = from + ((target - from) * (i + 1)) / frames;
      left[i] = (left[i] ?? 0) * g;
      if (right !== left) right[i] = (right[i] ?? 0) * g;
    }
    this.gain = target;
  }

  private record(left: Float32Array, right: Float32Array): void {
    const tap = this.tap;
    if (tap === null) return;
    const header = this.ring.header;
    const at = Atomics.load(header, RING.tapFrames);
    if (at < 0) return; // not armed
    const room = Math.min(left.length, tap.length / 2 - at);
    // where the tap starts on the context's clock, so a test can put each tapped sample in time
    if (at === 0 && room > 0) Atomics.store(header, RING.tapStartFrame, currentFrame);
    for (let i = 0; i < room; i++) {
      tap[(at + i) * 2] = left[i] ?? 0;
      tap[(at + i) * 2 + 1] = right[i] ?? 0;
    }
    if (room > 0) Atomics.store(header, RING.tapFrames, at + room);
  }
}

registerProcessor('lanterna-playback', PlaybackProcessor);
