// When a signage display's (autoProject) session ends, the gateway projects
// it again. A target that fails at once (wrong password, server down) would
// otherwise cycle the screen every few seconds and hammer the server: each
// short-lived session doubles the pause, up to a ceiling; a session that ran
// for a while resets it.

/** A session that lasted this long was a presentation, not a failure. */
export const STABLE_SESSION_MS = 30_000;

export class ReprojectBackoff {
  private readonly displays = new Map<string, { projectedAt: number; failures: number }>();

  constructor(
    private readonly baseMs: number,
    private readonly maxMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** The display was just projected. */
  projected(displayId: string): void {
    const failures = this.displays.get(displayId)?.failures ?? 0;
    this.displays.set(displayId, { projectedAt: this.now(), failures });
  }

  /** The display (re)connected or went away: start from the base pause again. */
  forget(displayId: string): void {
    this.displays.delete(displayId);
  }

  /** The pause before projecting again after a session of this display ended. */
  delayAfterEnd(displayId: string): number {
    const state = this.displays.get(displayId);
    const lived = state ? this.now() - state.projectedAt : Infinity;
    const failures = lived < STABLE_SESSION_MS ? (state?.failures ?? 0) + 1 : 0;
    this.displays.set(displayId, { projectedAt: state?.projectedAt ?? 0, failures });
    return Math.min(this.baseMs * 2 ** Math.max(0, failures - 1), this.maxMs);
  }
}
