// How a display comes back after losing its control socket, written once: the
// kiosk page follows it, and the load test's page-like displays follow the
// same code so that a chaos run's displays return the way real ones do.
// Pure: it computes delays; the caller owns the timers.

/** The first attempt's ceiling: the first delay lies between half of it and all of it. */
export const DISPLAY_RECONNECT_BASE_MS = 1000;
/** No delay is longer than this, however many attempts failed. */
export const DISPLAY_RECONNECT_CAP_MS = 30_000;
/** How long a display waits for `welcome` after its control socket opens (then closes it with 4408). */
export const DISPLAY_WELCOME_TIMEOUT_MS = 10_000;

/**
 * Exponential backoff with jitter: each delay's ceiling doubles up to a cap,
 * and the delay is drawn from the ceiling's upper half so that displays
 * restarted together do not all reconnect in the same instant. Attempts count
 * up until `reset()` (the display's `welcome`).
 */
export class ReconnectBackoff {
  private attempt = 0;

  constructor(
    private readonly baseMs = DISPLAY_RECONNECT_BASE_MS,
    private readonly capMs = DISPLAY_RECONNECT_CAP_MS,
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
