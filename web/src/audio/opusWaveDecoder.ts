// Opus packets from the display's RDP client (the server's waves, as the
// wasm client hands them on: wasm/README.md, "Sound") decoded by WebCodecs'
// AudioDecoder in the session worker, straight into the playback queue the
// AudioWorklet reads (playbackRing.ts): the same queue, jitter buffer and
// confirms as PCM. Bounded: at most DECODE_QUEUE_CAP packets wait in the
// decoder (more are dropped); a packet the decoder refuses closes it
// (WebCodecs' rule), is counted with whatever waited in it, and the next
// packet opens a fresh one, so bad input costs that sound and nothing else.
//
// Knows Opus packets, the decoder and the queue: nothing of RDP.
import { queuedDelayMs, ringRunning, writePlanes, RING, type PlaybackRingViews } from './playbackRing.js';

/** Opus's clock: packets carry frames at 48 kHz whatever the source's rate. */
export const OPUS_RATE = 48_000;
/** Packets waiting in the decoder at most: 16 × 20 ms, far past what a 20 ms packet takes to decode. */
export const DECODE_QUEUE_CAP = 16;

/** Whether this browser decodes Opus at 48 kHz stereo here (WebCodecs AudioDecoder). */
export async function opusDecodable(): Promise<boolean> {
  if (typeof AudioDecoder === 'undefined') return false;
  try {
    return (await AudioDecoder.isConfigSupported({ codec: 'opus', sampleRate: OPUS_RATE, numberOfChannels: 2 })).supported === true;
  } catch {
    return false;
  }
}

export class OpusWaveDecoder {
  private decoder: AudioDecoder | null = null;
  private channels = 0;
  /** Timestamps of the chunks (µs): Opus packets follow each other; the decoder only carries them through. */
  private nextTimestampUs = 0;
  /** Frames handed to the decoder and not yet out of it, and how many packets. */
  private pendingFrames = 0;
  private pendingPackets = 0;
  private readonly planes: Float32Array[] = [];
  /** Packets the decoder refused or that were lost with it, and packets dropped at the queue's cap. */
  errors = 0;
  overflows = 0;

  /** `dropped(count)`: waves lost here, counted by the session (its droppedAudio). */
  constructor(private readonly ring: PlaybackRingViews, private readonly dropped: (count: number) => void) {}

  /**
   * One packet of `frames` (48 kHz) and `channels` (1 or 2). Returns the ms until
   * its last frame is heard: the queue ahead of it, what the decoder still holds,
   * this packet, and the output's latency (the decode itself takes well under a
   * millisecond, so that is what the client's Wave Confirm reports).
   */
  decode(packet: Uint8Array, frames: number, channels: number): number {
    if (!ringRunning(this.ring)) {
      // as for PCM: a context the browser keeps suspended plays nothing, and late sound is worse than none
      Atomics.add(this.ring.header, RING.dropped, frames);
      return 0;
    }
    const decoder = this.open(channels);
    if (!decoder) {
      this.lose(1);
      return 0;
    }
    if (decoder.decodeQueueSize >= DECODE_QUEUE_CAP) {
      this.overflows++;
      this.dropped(1);
      return queuedDelayMs(this.ring, this.pendingFrames, OPUS_RATE);
    }
    const durationUs = Math.round((frames * 1_000_000) / OPUS_RATE);
    try {
      decoder.decode(new EncodedAudioChunk({ type: 'key', timestamp: this.nextTimestampUs, duration: durationUs, data: packet }));
    } catch {
      // the decoder closed under us (an error not yet reported): this packet and those in it are lost
      const lost = 1 + this.pendingPackets;
      this.fail(decoder);
      this.lose(lost);
      return 0;
    }
    this.nextTimestampUs += durationUs;
    this.pendingFrames += frames;
    this.pendingPackets++;
    return queuedDelayMs(this.ring, this.pendingFrames, OPUS_RATE);
  }

  close(): void {
    const decoder = this.decoder;
    this.decoder = null;
    if (decoder && decoder.state !== 'closed') decoder.close();
  }

  private open(channels: number): AudioDecoder | null {
    if (this.decoder && this.channels === channels && this.decoder.state === 'configured') return this.decoder;
    this.close();
    this.pendingFrames = 0;
    this.pendingPackets = 0;
    try {
      const decoder: AudioDecoder = new AudioDecoder({
        output: (data) => this.output(decoder, data),
        error: () => {
          // the packet it refused and those waiting behind it are lost with it
          if (decoder !== this.decoder) return;
          const lost = Math.max(1, this.pendingPackets);
          this.fail(decoder);
          this.lose(lost);
        },
      });
      decoder.configure({ codec: 'opus', sampleRate: OPUS_RATE, numberOfChannels: channels });
      this.decoder = decoder;
      this.channels = channels;
      return decoder;
    } catch {
      return null;
    }
  }

  private output(decoder: AudioDecoder, data: AudioData): void {
    try {
      if (decoder !== this.decoder) return;
      const frames = data.numberOfFrames;
      this.pendingFrames = Math.max(0, this.pendingFrames - frames);
      this.pendingPackets = Math.max(0, this.pendingPackets - 1);
      const planes = Math.min(2, data.numberOfChannels);
      for (let c = 0; c < planes; c++) {
        let plane = this.planes[c];
        if (!plane || plane.length < frames) {
          plane = new Float32Array(frames);
          this.planes[c] = plane;
        }
        data.copyTo(plane, { planeIndex: c, format: 'f32-planar', frameCount: frames });
      }
      writePlanes(this.ring, this.planes.slice(0, planes).map((plane) => plane.subarray(0, frames)), frames, data.sampleRate);
    } finally {
      data.close();
    }
  }

  /** The decoder is gone (its error, or a decode it refused): the next packet opens a new one. */
  private fail(decoder: AudioDecoder): void {
    if (decoder !== this.decoder) return;
    this.decoder = null;
    if (decoder.state !== 'closed') decoder.close();
  }

  private lose(count: number): void {
    this.errors += count;
    Atomics.add(this.ring.header, RING.decodeErrors, count);
    this.pendingFrames = 0;
    this.pendingPackets = 0;
    this.dropped(count);
  }
}
