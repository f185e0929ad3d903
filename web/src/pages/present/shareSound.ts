// The share's sound in the share worker: the capture's audio (WebCodecs
// AudioData from MediaStreamTrackProcessor, transferred by the page) read as
// it comes, cut into 20 ms pieces and sent with the presenter's RDP server
// (FreeRDP's rdpsnd server half, sendAudio) in the same session as the
// picture. Nothing is queued here: while the display's client has not yet
// agreed on the format, while the presenter has muted it, or while the
// server's own queue is full, the sound of that moment is dropped (and
// counted) — sound that arrived late would play late for the whole share.
import type { PresenterSession } from '../../../../wasm/js/lanternaPresenter.js';
import { SoundChunker } from './soundChunker.js';
import type { ShareSoundState } from './shareWorkerProtocol.js';

export interface ShareSoundFigures {
  /** Pieces sent, and dropped (not ready, muted, a full server queue, a buffer at another rate) since the start. */
  readonly sent: number;
  readonly dropped: number;
}

export class ShareSound {
  private muted = false;
  private state: ShareSoundState = 'starting';
  private readonly chunker: SoundChunker;
  private sent = 0;
  private dropped = 0;
  private stopped = false;

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

  /** The display's client agreed on the format, or refused any. */
  onReady(): void {
    this.setState(this.muted ? 'muted' : 'playing');
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
  }

  figures(): ShareSoundFigures {
    return { sent: this.sent, dropped: this.dropped };
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
    const answer = this.session.sendAudio(samples.subarray(0, frames * this.format.channels), this.format.sampleRate, this.format.channels, Math.floor(timestampMs) % 0x1_0000_0000);
    if (answer === 'queued') this.sent++;
    else this.dropped++;
  }

  private setState(state: ShareSoundState): void {
    if (state === this.state) return;
    this.state = state;
    this.report(state);
  }
}
