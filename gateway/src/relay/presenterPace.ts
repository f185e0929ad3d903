// What the gateway tells a presenter page about its pace (the presenter
// socket's `pace`, protocol/src/presenterLeg.ts), sans-I/O: the ms the
// gateway held the page back (read it later, past relay.presenterBytesPerSecond)
// and the bytes it read, reported at most once a second and only after a
// stretch in which it held the page back. The page cannot see that wait
// itself: TCP's buffers take megabytes first. Go's datasession/presenterpace.go
// is the same rule.
import type { PresenterPaceMessage } from '@lanterna/protocol';

/** At most one report per this many ms. */
export const PACE_EVERY_MS = 1000;

export class PresenterPace {
  private since: number;
  private heldMs = 0;
  private bytes = 0;

  constructor(now: number) {
    this.since = now;
  }

  /** `bytes` were just read from the page. */
  read(bytes: number): void {
    this.bytes += bytes;
  }

  /** The gateway will read the page again only after `ms`. */
  held(ms: number): void {
    this.heldMs += ms;
  }

  /** The report due now, or null: none yet (under a second), or nothing was held back (then the stretch starts again). */
  report(now: number): PresenterPaceMessage | null {
    const ofMs = Math.round(now - this.since);
    if (ofMs < PACE_EVERY_MS) return null;
    const heldMs = Math.min(Math.round(this.heldMs), ofMs);
    const bytesPerSecond = Math.round((this.bytes * 1000) / ofMs);
    this.since = now;
    this.heldMs = 0;
    this.bytes = 0;
    return heldMs > 0 ? { type: 'pace', heldMs, ofMs, bytesPerSecond } : null;
  }
}
