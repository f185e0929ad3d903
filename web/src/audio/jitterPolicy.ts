// How the display's jitter buffer keeps its depth (pure, so it can be tested
// without an audio thread). It waits until the queue holds the target before
// it plays; plays a little fast while the queue is above its high mark (a 2 %
// time-stretch: no gap, a pitch shift nobody hears on speech); and drops down
// to the target at once past the bound. The target starts at 50 ms; a queue
// that runs dry raises it (the network has shown more jitter than that), and
// each 10 s without running dry lowers it again, so it stays between 50 and
// 150 ms and the bound never exceeds the target plus 110 ms: the queue never
// grows without bound, and on a steady network it adds 50–80 ms.

export interface JitterBounds {
  /** The target's floor and ceiling, ms. */
  readonly minTargetMs: number;
  readonly maxTargetMs: number;
  /** What one dry queue adds to the target, ms. */
  readonly raiseMs: number;
  /** What each calm `calmMs` takes off it again, ms. */
  readonly lowerMs: number;
  readonly calmMs: number;
  /** Above target + this the queue is drained by playing slightly fast, ms. */
  readonly highAboveMs: number;
  /** Above target + this the excess is dropped at once, down to the target, ms. */
  readonly maxAboveMs: number;
  /** Speed while above the high mark (1.02: 2 % fast). */
  readonly stretch: number;
}

export const DEFAULT_JITTER_BOUNDS: JitterBounds = {
  minTargetMs: 50, maxTargetMs: 150, raiseMs: 25, lowerMs: 10, calmMs: 10_000, highAboveMs: 30, maxAboveMs: 110, stretch: 1.02,
};

export type JitterDecision =
  /** Too little queued and not playing: render silence. */
  | { readonly kind: 'wait' }
  /** Play at `speed` (1 or the stretch), after dropping `drop` frames from the head. */
  | { readonly kind: 'play'; readonly speed: number; readonly drop: number };

export class JitterPolicy {
  private target: number;
  private playing = false;
  private calmSinceMs = 0;

  constructor(private readonly bounds: JitterBounds = DEFAULT_JITTER_BOUNDS) {
    this.target = bounds.minTargetMs;
  }

  /** The depth it aims at now, ms. */
  get targetMs(): number {
    return this.target;
  }

  get isPlaying(): boolean {
    return this.playing;
  }

  /** Before each block: `fillFrames` queued at `rate`, `nowMs` the audio clock. */
  decide(fillFrames: number, rate: number, nowMs: number): JitterDecision {
    const b = this.bounds;
    if (nowMs - this.calmSinceMs >= b.calmMs && this.target > b.minTargetMs) {
      this.target = Math.max(b.minTargetMs, this.target - b.lowerMs);
      this.calmSinceMs = nowMs;
    }
    const ms = (fillFrames * 1000) / rate;
    if (!this.playing && ms < this.target) return { kind: 'wait' };
    this.playing = true;
    if (ms > this.target + b.maxAboveMs) return { kind: 'play', speed: 1, drop: fillFrames - Math.round((this.target * rate) / 1000) };
    return { kind: 'play', speed: ms > this.target + b.highAboveMs ? b.stretch : 1, drop: 0 };
  }

  /** The queue ran dry during the block: wait for the (raised) target again. */
  ranDry(nowMs: number): void {
    this.playing = false;
    this.target = Math.min(this.bounds.maxTargetMs, this.target + this.bounds.raiseMs);
    this.calmSinceMs = nowMs;
  }
}
