// Requests per source address per minute for the public presenter API, in
// this process's memory: it keeps one address from flooding a worker, which
// needs no agreement between workers. (Wrong PINs, where agreement matters,
// are counted in the broker store: ../broker/pinAttempts.ts.)

export interface RateDecision {
  readonly allowed: boolean;
  /** When refused: how long until the window ends. */
  readonly retryAfterMs: number;
}

export class RequestRateLimiter {
  private readonly windows = new Map<string, { count: number; resetAt: number }>();

  constructor(
    private readonly maxPerWindow: number,
    private readonly windowMs = 60_000,
    /** Most addresses tracked; past it the oldest windows are dropped (this limiter only sheds load). */
    private readonly maxKeys = 50_000,
    private readonly clock: () => number = Date.now,
  ) {}

  take(key: string): RateDecision {
    const now = this.clock();
    let window = this.windows.get(key);
    if (!window || window.resetAt <= now) {
      this.windows.delete(key);
      if (this.windows.size >= this.maxKeys) this.shed(now);
      window = { count: 0, resetAt: now + this.windowMs };
      this.windows.set(key, window);
    }
    window.count += 1;
    return window.count <= this.maxPerWindow ? { allowed: true, retryAfterMs: 0 } : { allowed: false, retryAfterMs: window.resetAt - now };
  }

  get size(): number {
    return this.windows.size;
  }

  private shed(now: number): void {
    for (const [key, window] of this.windows) if (window.resetAt <= now) this.windows.delete(key);
    // Still full: drop the oldest (insertion order), enough to make room.
    for (const key of this.windows.keys()) {
      if (this.windows.size < this.maxKeys) break;
      this.windows.delete(key);
    }
  }
}
