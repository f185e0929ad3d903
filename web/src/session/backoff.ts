/**
 * Exponential backoff with jitter: each delay doubles up to a cap, and is
 * drawn from its upper half so that displays restarted together do not all
 * reconnect in the same instant.
 */
export class Backoff {
  private attempt = 0;

  constructor(
    private readonly baseMs = 1000,
    private readonly capMs = 30_000,
    private readonly random: () => number = Math.random,
  ) {}

  nextDelayMs(): number {
    const ceiling = Math.min(this.capMs, this.baseMs * 2 ** this.attempt);
    this.attempt += 1;
    return Math.round(ceiling / 2 + this.random() * (ceiling / 2));
  }

  reset(): void {
    this.attempt = 0;
  }
}
