// Opus packets from the display's RDP client (the server's waves, as the
// wasm client hands them on: wasm/README.md, "Sound") decoded by WebCodecs'
// AudioDecoder in the session worker, straight into the playback queue the
// AudioWorklet reads (playbackRing.ts): the same queue, jitter buffer and
// confirms as PCM. Bounded: at most DECODE_QUEUE_CAP packets wait in the
// decoder (more are dropped); a packet the decoder refuses closes it
// (WebCodecs' rule): that packet is counted, and the good ones that waited
// behind it go to a fresh decoder, so bad input costs its own sound only.
//
// Knows Opus packets, the decoder and the queue: nothing of RDP.
import { queuedDelayMs, ringRunning, writePlanes, RING, type PlaybackRingViews } from './playbackRing.js';

/** Opus's clock: packets carry frames at 48 kHz whatever the source's rate. */
export const OPUS_RATE = 48_000;
/** Packets waiting in the decoder at most: 16 (160–320 ms of 10 or 20 ms packets), far past what a packet takes to decode. */
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

interface PendingPacket {
  readonly packet: Uint8Array;
  readonly frames: number;
}

export class OpusWaveDecoder {
  private decoder: AudioDecoder | null = null;
  private channels = 0;
  /** Timestamps of the chunks (µs): Opus packets follow each other; the decoder only carries them through. */
  private nextTimestampUs = 0;
  /** Packets handed to the decoder and not yet out of it, oldest first (outputs come in order). */
  private pending: PendingPacket[] = [];
  private readonly planes: Float32Array[] = [];
  /** Packets the decoder refused, and packets dropped at the cap. */
  errors = 0;
  overflows = 0;

  /** `dropped(count)`: waves lost here, counted by the session (its droppedAudio). */
  constructor(private readonly ring: PlaybackRingViews, private readonly dropped: (count: number) => void) {}

  /**
   * One packet of `frames` (48 kHz) and `channels` (1 or 2). Returns the ms until
   * its last frame is heard: the queue ahead of it, what the decoder still holds,
   * this packet, and the output's latency (the decode itself is short beside the
   * queue: about 13 ms per second of sound, docs/sound.md), which the client's
   * Wave Confirm reports.
   */
  decode(packet: Uint8Array, frames: number, channels: number): number {
    if (!ringRunning(this.ring)) {
      // as for PCM: a context the browser keeps suspended plays nothing, and late sound is worse than none
      Atomics.add(this.ring.header, RING.dropped, frames);
      return 0;
    }
    if (this.pending.length >= DECODE_QUEUE_CAP) {
      // the decoder is behind: this packet's sound is thrown away as a full queue's is
      this.overflows++;
      Atomics.add(this.ring.header, RING.dropped, frames);
      this.dropped(1);
    } else this.submit({ packet, frames }, channels);
    return queuedDelayMs(this.ring, this.pendingFrames(), OPUS_RATE);
  }

  close(): void {
    const decoder = this.decoder;
    this.decoder = null;
    this.pending = [];
    if (decoder && decoder.state !== 'closed') decoder.close();
  }

  private pendingFrames(): number {
    let frames = 0;
    for (const item of this.pending) frames += item.frames;
    return frames;
  }

  private submit(item: PendingPacket, channels: number): void {
    const decoder = this.open(channels);
    if (!decoder) {
      this.lose(1);
      return;
    }
    const durationUs = Math.round((item.frames * 1_000_000) / OPUS_RATE);
    try {
      decoder.decode(new EncodedAudioChunk({ type: 'key', timestamp: this.nextTimestampUs, duration: durationUs, data: item.packet }));
    } catch {
      // the decoder closed under us: it refused a packet waiting in it (its error is on its way),
      // so recover now and give this one to the fresh decoder; with none waiting, this one is the
      // packet it cannot take (counted, not retried: each round drops a packet, so it ends)
      const waiting = this.pending.length;
      this.recover(decoder);
      if (waiting > 0) this.submit(item, channels);
      return;
    }
    this.nextTimestampUs += durationUs;
    this.pending.push(item);
  }

  private open(channels: number): AudioDecoder | null {
    if (this.decoder && this.channels === channels && this.decoder.state === 'configured') return this.decoder;
    this.close();
    try {
      const decoder: AudioDecoder = new AudioDecoder({
        output: (data) => this.output(decoder, data),
        error: () => this.recover(decoder),
      });
      decoder.configure({ codec: 'opus', sampleRate: OPUS_RATE, numberOfChannels: channels });
      this.decoder = decoder;
      this.channels = channels;
      return decoder;
    } catch {
      return null;
    }
  }

  /**
   * The decoder refused a packet and closed (WebCodecs' rule): the oldest packet still in it is the
   * one (those before it came out, in order). It is counted; the good ones behind it go to a fresh
   * decoder, so a bad packet costs its own sound only. Bounded: each call drops one packet.
   */
  private recover(decoder: AudioDecoder): void {
    if (decoder !== this.decoder) return;
    const [, ...behind] = this.pending;
    this.decoder = null;
    this.pending = [];
    if (decoder.state !== 'closed') decoder.close();
    this.lose(1);
    for (const item of behind) this.submit(item, this.channels);
  }

  private output(decoder: AudioDecoder, data: AudioData): void {
    try {
      if (decoder !== this.decoder) return;
      this.pending.shift();
      const frames = data.numberOfFrames;
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

  private lose(count: number): void {
    this.errors += count;
    Atomics.add(this.ring.header, RING.decodeErrors, count);
    this.dropped(count);
  }
}
