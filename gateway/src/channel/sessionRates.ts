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

/** Each session's totals at its previous sample, and the rates since then. */
export class SessionRates {
  private readonly previous = new Map<string, { bytes: number; frames: number; at: number }>();

  /** The rates since this session's previous sample (zeros at its first), remembering this one. */
  next(sessionId: string, figures: SessionFigures, now: number): SessionRate {
    const bytes = figures.bytesToDisplay + figures.bytesToServer;
    const before = this.previous.get(sessionId);
    const seconds = before ? (now - before.at) / 1000 : 0;
    const rate = (value: number, earlier: number | undefined): number => (seconds > 0 && earlier !== undefined ? Math.round((value - earlier) / seconds) : 0);
    this.previous.set(sessionId, { bytes, frames: figures.framesToDisplay, at: now });
    return { bytesPerSecond: rate(bytes, before?.bytes), framesPerSecond: rate(figures.framesToDisplay, before?.frames) };
  }

  forget(sessionId: string): void {
    this.previous.delete(sessionId);
  }
}
