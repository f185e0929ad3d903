// The share's sound in the share worker: the capture's audio (WebCodecs
// AudioData from MediaStreamTrackProcessor, transferred by the page) read as
// it comes and sent with the presenter's RDP server (FreeRDP's rdpsnd server
// half) in the same session as the picture: encoded as Opus (WebCodecs
// AudioEncoder, one 10 ms packet per wave, sendAudioPacket) where this
// browser can and the display's client takes it, else cut into 20 ms pieces
// of 16-bit PCM (sendAudio). Nothing is queued here: while the display's
// client has not yet agreed on the format, while the presenter has muted it,
// or while the server's own queue (or the encoder's) is full, the sound of
// that moment is dropped (and counted) — sound that arrived late would play
// late for the whole share.
import type { PresenterAudioReady, PresenterSession } from '../../../../wasm/js/lanternaPresenter.js';
import { SoundChunker } from './soundChunker.js';
import type { ShareSoundCodec, ShareSoundState } from './shareWorkerProtocol.js';

export interface ShareSoundFigures {
  /** Pieces (PCM) or packets (Opus) sent, and dropped (not ready, a full queue, an encoder's error, a buffer at another rate) since the start. */
  readonly sent: number;
  readonly dropped: number;
}

/** Opus for a film's or a slide's sound: 96 kbit/s stereo (Opus calls 64–128 kbit/s transparent for music). */
export const OPUS_BITRATE = 96_000;
/**
 * 10 ms packets: the encoder holds a packet's worth of the capture (which
 * Chromium delivers 10 ms at a time) before it can send any, and the display's
 * queue rises by a packet at a time, so each ms here is one the sound trails
 * the picture. 20 ms packets cost 10 ms more at the encoder and as much again
 * in the display's jitter buffer, for 800 bytes/s less on the wire (issue 27;
 * docs/performance.md, "Sound: the A/V offset").
 */
export const OPUS_FRAME_US = 10_000;
/** Opus's clock (the frames a packet holds are counted at it, whatever the capture's rate). */
const OPUS_RATE = 48_000;
/** Capture buffers waiting in the encoder at most (10 ms each): more means it falls behind, and the sound is dropped. */
const ENCODE_QUEUE_CAP = 10;
/** A Wave2 PDU's own bytes (rdpsnd header and Wave2 fields) before its data: counted in the sound's bytes. */
const WAVE2_HEADER_BYTES = 16;

function opusConfig(format: { readonly sampleRate: number; readonly channels: 1 | 2 }): AudioEncoderConfig {
  return { codec: 'opus', sampleRate: format.sampleRate, numberOfChannels: format.channels, bitrate: OPUS_BITRATE, opus: { frameDuration: OPUS_FRAME_US } };
}

/** Whether this browser encodes Opus from the capture's rate and channels (WebCodecs AudioEncoder). */
export async function opusEncodable(format: { readonly sampleRate: number; readonly channels: 1 | 2 }): Promise<boolean> {
  if (typeof AudioEncoder === 'undefined') return false;
  try {
    return (await AudioEncoder.isConfigSupported(opusConfig(format))).supported === true;
  } catch {
    return false;
  }
}

export class ShareSound {
  private muted = false;
  private state: ShareSoundState = 'starting';
  private readonly chunker: SoundChunker;
  private sent = 0;
  private dropped = 0;
  private stopped = false;
  /** What the display's client chose (null until it did). */
  private codec: ShareSoundCodec | null = null;
  private encoder: AudioEncoder | null = null;
  /** rdpsnd bytes handed to the server since the last figures (Wave2 PDUs: header and data). */
  private bytes = 0;

  constructor(
    private readonly session: PresenterSession,
    private readonly format: { readonly sampleRate: number; readonly channels: 1 | 2 },
    private readonly report: (state: ShareSoundState) => void,
  ) {
    this.chunker = new SoundChunker(format.channels, format.sampleRate, (samples, frames, timestampMs) => this.sendPiece(samples, frames, timestampMs));
  }

  /** Reads the capture's sound until it ends or the share stops. */
  async read(samples: ReadableStream<AudioData>): Promise<void> {
    const reader = samples.getReader();
    const planes: Float32Array[] = [];
    try {
      while (!this.stopped) {
        const { value, done } = await reader.read();
        if (done) break;
        try {
          this.take(value, planes);
        } finally {
          value.close();
        }
      }
    } catch {
      // the capture ended under the reader
    } finally {
      reader.releaseLock();
    }
  }

  /** The display's client agreed on a format (Opus or PCM), or refused any. */
  onReady(info: Pick<PresenterAudioReady, 'codec'>): void {
    this.codec = info.codec;
    this.setState(this.muted ? 'muted' : 'playing');
  }

  /** The format the display's client chose, once it did. */
  chosen(): ShareSoundCodec | null {
    return this.codec;
  }

  onRefused(): void {
    this.setState('refused');
  }

  setMuted(muted: boolean): void {
    this.muted = muted;
    this.chunker.reset();
    if (this.state === 'playing' || this.state === 'muted') this.setState(muted ? 'muted' : 'playing');
  }

  stop(): void {
    this.stopped = true;
    this.closeEncoder();
  }

  figures(): ShareSoundFigures {
    return { sent: this.sent, dropped: this.dropped };
  }

  /** The rdpsnd bytes sent since the last call (the sound's cost on the wire, before the channel's framing). */
  takeBytes(): number {
    const bytes = this.bytes;
    this.bytes = 0;
    return bytes;
  }

  private take(data: AudioData, planes: Float32Array[]): void {
    if (this.muted || this.state !== 'playing') return;
    const frames = data.numberOfFrames;
    if (data.sampleRate !== this.format.sampleRate) {
      // the capture changed its rate mid-share (a different output device): not resampled here
      this.dropped++;
      this.chunker.reset();
      return;
    }
    if (this.codec === 'opus') {
      this.encode(data);
      return;
    }
    const channels = Math.min(data.numberOfChannels, this.format.channels);
    for (let c = 0; c < channels; c++) {
      let plane = planes[c];
      if (!plane || plane.length < frames) {
        plane = new Float32Array(frames);
        planes[c] = plane;
      }
      data.copyTo(plane, { planeIndex: c, format: 'f32-planar', frameCount: frames });
    }
    this.chunker.push(planes.slice(0, channels).map((plane) => plane.subarray(0, frames)), frames, data.timestamp / 1000);
  }

  private sendPiece(samples: Int16Array, frames: number, timestampMs: number): void {
    // the wave's timestamp is the capture's clock (ms, 32 bits), what the display's confirms answer to
    const piece = samples.subarray(0, frames * this.format.channels);
    const answer = this.session.sendAudio(piece, this.format.sampleRate, this.format.channels, Math.floor(timestampMs) % 0x1_0000_0000);
    if (answer === 'queued') {
      this.sent++;
      this.bytes += WAVE2_HEADER_BYTES + piece.byteLength;
    } else this.dropped++;
  }

  /** One capture buffer into the encoder (it copies what it keeps: the caller closes `data`). */
  private encode(data: AudioData): void {
    const encoder = this.encoder ?? this.openEncoder();
    if (!encoder || encoder.encodeQueueSize >= ENCODE_QUEUE_CAP) {
      this.dropped++;
      return;
    }
    try {
      encoder.encode(data);
    } catch {
      // the encoder closed under us (an error on its way): the next buffer opens a new one
      this.dropped++;
      this.closeEncoder();
    }
  }

  private openEncoder(): AudioEncoder | null {
    try {
      const encoder: AudioEncoder = new AudioEncoder({
        output: (chunk) => this.sendPacket(chunk),
        error: () => {
          this.dropped++;
          if (this.encoder === encoder) this.encoder = null;
        },
      });
      encoder.configure(opusConfig(this.format));
      this.encoder = encoder;
      return encoder;
    } catch {
      return null;
    }
  }

  private closeEncoder(): void {
    const encoder = this.encoder;
    this.encoder = null;
    if (encoder && encoder.state !== 'closed') encoder.close();
  }

  private sendPacket(chunk: EncodedAudioChunk): void {
    if (this.stopped || this.muted) return;
    const packet = new Uint8Array(chunk.byteLength);
    chunk.copyTo(packet);
    // the frames it holds on Opus's clock; the chunk's time is the capture's (µs), what the confirms answer to
    const frames = Math.min(5760, Math.max(1, Math.round(((chunk.duration ?? OPUS_FRAME_US) * OPUS_RATE) / 1_000_000)));
    const answer = this.session.sendAudioPacket(packet, frames, Math.floor(chunk.timestamp / 1000) % 0x1_0000_0000);
    if (answer === 'queued') {
      this.sent++;
      this.bytes += WAVE2_HEADER_BYTES + packet.byteLength;
    } else this.dropped++;
  }

  private setState(state: ShareSoundState): void {
    if (state === this.state) return;
    this.state = state;
    this.report(state);
  }
}
