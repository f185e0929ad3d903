// The display page's reconnect policy, mirrored so simulated displays come
// back the way real ones do (web/src/session/backoff.ts and controlChannel.ts):
// after a lost control socket the next attempt waits a delay drawn from the
// upper half of min(cap, base·2^attempt), attempts count up until a `welcome`
// resets them, and a `welcome` must come within 10 s of the socket opening.
// pageBackoff.test.ts checks this copy against the page's compiled module.

export const PAGE_BACKOFF_BASE_MS = 1000;
export const PAGE_BACKOFF_CAP_MS = 30_000;
/** How long the page waits for `welcome` after its control socket opens (then closes it with 4408). */
export const PAGE_WELCOME_TIMEOUT_MS = 10_000;

export class PageBackoff {
  private attempt = 0;

  constructor(
    private readonly baseMs = PAGE_BACKOFF_BASE_MS,
    private readonly capMs = PAGE_BACKOFF_CAP_MS,
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
