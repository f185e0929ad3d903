// Exponential backoff without jitter: one kiosk per display, so there is no
// herd to spread, and a plain doubling reads well in the logs.
export class Backoff {
  private failures = 0;

  constructor(private readonly initialMs: number, private readonly maxMs: number) {}

  /** The pause before the next attempt; each call doubles the one after it, up to the maximum. */
  next(): number {
    const delay = Math.min(this.maxMs, this.initialMs * 2 ** Math.min(this.failures, 30));
    this.failures += 1;
    return delay;
  }

  /** Attempts since the last reset. */
  get attempts(): number {
    return this.failures;
  }

  reset(): void {
    this.failures = 0;
  }
}
