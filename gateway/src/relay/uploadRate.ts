// How fast a presenter page may send (relay.presenterBytesPerSecond), sans-I/O:
// a token bucket holding one second's worth. A page past it is not cut but
// read later: the gateway stops reading its socket until the bucket has room
// again, so TCP pushes back on the page, whose encoder then sees its own
// backpressure (issue 25: the bitrate follows the gateway's backpressure).
export class UploadRate {
  private tokens: number;
  private at: number;

  constructor(
    private readonly bytesPerSecond: number,
    private readonly clock: () => number = Date.now,
  ) {
    this.tokens = bytesPerSecond;
    this.at = clock();
  }

  /** Counts `bytes` just read; returns how many ms to wait before reading again (0: read on). */
  take(bytes: number): number {
    const now = this.clock();
    this.tokens = Math.min(this.bytesPerSecond, this.tokens + ((now - this.at) * this.bytesPerSecond) / 1000);
    this.at = now;
    this.tokens -= bytes;
    if (this.tokens >= 0) return 0;
    return Math.ceil((-this.tokens * 1000) / this.bytesPerSecond);
  }
}
