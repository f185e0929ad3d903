// The shared tab's (or screen's) sound, as the capture gives it (WebCodecs
// AudioData: float planes, 10 ms at a time in Chromium), turned into what
// the presenter's RDP server sends (interleaved 16-bit PCM) in pieces of a
// fixed length: each piece is one Wave PDU, so 10 ms pieces would double the
// PDUs and the display's Wave Confirms for nothing.

/** The pieces' length: 20 ms, what a voice or music codec would take too. */
export const SOUND_PIECE_MS = 20;

export type SoundPiece = (samples: Int16Array, frames: number, timestampMs: number) => void;

export class SoundChunker {
  private readonly piece: Int16Array;
  private readonly pieceFrames: number;
  private filled = 0;
  /** The capture's time of the piece's first frame (ms), or null while the piece is empty. */
  private startMs: number | null = null;

  /** `channels` (1 or 2) and `sampleRate` are the session's: what the display's client agreed to. */
  constructor(private readonly channels: 1 | 2, private readonly sampleRate: number, private readonly emit: SoundPiece) {
    this.pieceFrames = Math.round((sampleRate * SOUND_PIECE_MS) / 1000);
    this.piece = new Int16Array(this.pieceFrames * channels);
  }

  /**
   * One capture buffer: `planes` holds one Float32Array per channel of
   * `frames` samples (a mono capture on a stereo session is sent to both
   * sides; channels past the session's are left out). `timestampMs` is the
   * capture's time of the first frame.
   */
  push(planes: readonly Float32Array[], frames: number, timestampMs: number): void {
    const left = planes[0];
    if (!left || frames <= 0) return;
    const right = this.channels === 2 ? (planes[1] ?? left) : null;
    let from = 0;
    while (from < frames) {
      this.startMs ??= timestampMs + (from * 1000) / this.sampleRate;
      const take = Math.min(frames - from, this.pieceFrames - this.filled);
      for (let i = 0; i < take; i++) {
        const at = (this.filled + i) * this.channels;
        this.piece[at] = toInt16(left[from + i] ?? 0);
        if (right) this.piece[at + 1] = toInt16(right[from + i] ?? 0);
      }
      this.filled += take;
      from += take;
      if (this.filled === this.pieceFrames) {
        this.emit(this.piece, this.pieceFrames, this.startMs);
        this.filled = 0;
        this.startMs = null;
      }
    }
  }

  /** Forgets a part-filled piece (after a mute, or a gap in the capture): the next piece starts at its own time. */
  reset(): void {
    this.filled = 0;
    this.startMs = null;
  }
}

/** A float sample (−1…1, clipped outside) as 16-bit PCM. */
function toInt16(sample: number): number {
  const clipped = sample > 1 ? 1 : sample < -1 ? -1 : sample;
  return Math.round(clipped * 32767);
}
