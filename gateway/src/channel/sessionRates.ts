// The admin's live view shows each session's bytes and frames per second:
// the difference between two once-a-second samples of its running totals.
// Both relay engines (this process's, and the native data plane's figures
// arriving by RPC) compute them here, so the view reads the same either way.

/** A relaying session's running totals, as the relay counts them. */
export interface SessionFigures {
  bytesToDisplay: number;
  bytesToServer: number;
  pdusToDisplay: number;
  framesToDisplay: number;
}

export interface SessionRate {
  bytesPerSecond: number;
  framesPerSecond: number;
}

/**
 * Samples closer together than this do not make a new rate. The native data
 * plane's once-a-second samples queue on a busy gateway and are then read in
 * one turn, milliseconds apart: a rate over those milliseconds reads 0 (or
 * thousands) for a session relaying steadily. The rate stays what it was, and
 * the next sample measures from the older baseline.
 */
export const MIN_RATE_INTERVAL_MS = 250;

const NO_RATE: SessionRate = { bytesPerSecond: 0, framesPerSecond: 0 };

/** Each session's totals at its previous sample, and the rates since then. */
export class SessionRates {
  private readonly previous = new Map<string, { bytes: number; frames: number; at: number; rate: SessionRate }>();

  /** The rates since this session's previous sample (zeros at its first), remembering this one. */
  next(sessionId: string, figures: SessionFigures, now: number): SessionRate {
    const bytes = figures.bytesToDisplay + figures.bytesToServer;
    const before = this.previous.get(sessionId);
    if (before && now - before.at < MIN_RATE_INTERVAL_MS) return before.rate;
    const seconds = before ? (now - before.at) / 1000 : 0;
    const rate = before && seconds > 0
      ? { bytesPerSecond: Math.round((bytes - before.bytes) / seconds), framesPerSecond: Math.round((figures.framesToDisplay - before.frames) / seconds) }
      : NO_RATE;
    this.previous.set(sessionId, { bytes, frames: figures.framesToDisplay, at: now, rate });
    return rate;
  }

  forget(sessionId: string): void {
    this.previous.delete(sessionId);
  }
}
