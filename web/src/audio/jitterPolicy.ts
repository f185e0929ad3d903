// How the display's jitter buffer keeps its depth (pure, so it can be tested
// without an audio thread). Every ms the queue holds is a ms the sound trails
// the picture, so it keeps only what the link's arrivals have shown they need.
//
// - Waves arrive in steps (a wave at a time, 10–46 ms each) while the output
//   drains the queue smoothly, so its depth is a sawtooth. What decides
//   whether it runs dry is its low-water mark: the depth just before the next
//   wave arrives. The policy keeps that low-water mark at a margin (10 ms on
//   a steady link): each second of playing it looks at the lowest depth it
//   saw, and drains whatever lay above the margin by playing 2 % fast (a
//   time-stretch: no gap, a pitch shift of a third of a semitone). So the
//   depth follows the measured arrival jitter instead of a fixed floor.
// - It waits until the queue holds the margin plus one wave's worth (the
//   start level) before it plays. A burst after a stall is not left for the
//   next window: above the start level plus 30 ms it plays 2 % fast at once,
//   and past the start level plus 110 ms it drops down to the start level.
// - A queue that runs dry shows more jitter than the margin covered, by as
//   long as it stayed empty: when the next wave arrives, the margin rises by
//   that gap plus 5 ms (at most to 130 ms), and playback waits for the start
//   level again. Each 10 s without running dry lowers it 10 ms (back to its
//   floor), but for a minute after a dry queue not below what that queue
//   showed was needed: a hiccup that recurs every few seconds would
//   otherwise empty the queue again each time the margin came down. A fixed
//   25 ms a dry queue (before) overshot the short hiccups a quiet machine
//   has: 3–5 of them in 20 s held the start level at 70–95 ms.
// - Start-up grace: dry queues in the first second of playing are the
//   session's start (the client setting up, the first picture decoded in the
//   same worker), not the link's jitter. They wait for a raised start level
//   but leave the margin alone; they once held a quiet xrdp session's target
//   at 90 ms for the next 40 s.
//
// Bounded: the queue never holds more than the start level plus 110 ms
// (130 + 20 + 110 ms at worst, as before this policy: a 150 ms
// target + 110).

export interface JitterBounds {
  /** The low-water mark's floor and ceiling, ms. */
  readonly minMarginMs: number;
  readonly maxMarginMs: number;
  /** Playback (re)starts when the queue holds the margin plus this, ms (about a wave). */
  readonly startAboveMs: number;
  /** What one dry queue adds to the margin beyond the gap it stayed empty, ms. */
  readonly raisePadMs: number;
  /** When set, each dry queue adds this instead of its gap (the rule before; web/bench/jitterModelBench.ts compares), ms. */
  readonly fixedRaiseMs?: number;
  /** What each calm `calmMs` takes off it again, ms. */
  readonly lowerMs: number;
  readonly calmMs: number;
  /** For this long after a dry queue the margin is not lowered below what that queue showed it needs, ms. */
  readonly needMemoryMs: number;
  /** How long the low-water mark is watched before what lay above the margin is drained, ms. */
  readonly windowMs: number;
  /** Above the start level + this the queue plays fast whatever its low-water mark, ms. */
  readonly highAboveMs: number;
  /** Above the start level + this the excess is dropped at once, down to the start level, ms. */
  readonly maxAboveMs: number;
  /** Speed while draining (1.02: 2 % fast). */
  readonly stretch: number;
  /** The first ms of playing, when a dry queue does not raise the margin. */
  readonly startupGraceMs: number;
}

export const DEFAULT_JITTER_BOUNDS: JitterBounds = {
  minMarginMs: 10, maxMarginMs: 130, startAboveMs: 20, raisePadMs: 5, lowerMs: 10, calmMs: 10_000, needMemoryMs: 60_000, windowMs: 1000, highAboveMs: 30, maxAboveMs: 110, stretch: 1.02, startupGraceMs: 1000,
};

export type JitterDecision =
  /** Too little queued and not playing: render silence. */
  | { readonly kind: 'wait' }
  /** Play at `speed` (1 or the stretch), after dropping `drop` frames from the head. */
  | { readonly kind: 'play'; readonly speed: number; readonly drop: number };

export class JitterPolicy {
  private margin: number;
  /** Added to the start level by dry queues in the start-up grace (gone once it ends). */
  private startupExtra = 0;
  private playing = false;
  private calmSinceMs = 0;
  /** When playing first began (null before), for the start-up grace. */
  private firstPlayMs: number | null = null;
  /** The low-water mark of the window that began at `windowStartMs` (ms of sound). */
  private lowMs = Infinity;
  private windowStartMs = 0;
  /** Ms of sound still to drain by stretching, and the audio clock when that was last counted. */
  private drainMs = 0;
  private lastMs = 0;
  /** When the queue last ran dry and whether that was in the start-up grace; null once the next wave came. */
  private dry: { atMs: number; inGrace: boolean; leftFrames: number } | null = null;
  /** The margin the last dry queue (past the grace) showed was needed, and when. */
  private need = { ms: 0, atMs: -Infinity };

  constructor(private readonly bounds: JitterBounds = DEFAULT_JITTER_BOUNDS) {
    this.margin = bounds.minMarginMs;
  }

  /** The depth playback starts at now, ms (the margin plus a wave's worth). */
  get targetMs(): number {
    return this.margin + this.bounds.startAboveMs + this.startupExtra;
  }

  /** The low-water mark it keeps the queue at, ms. */
  get marginMs(): number {
    return this.margin;
  }

  get isPlaying(): boolean {
    return this.playing;
  }

  /** Before each block: `fillFrames` queued at `rate`, `nowMs` the audio clock. */
  decide(fillFrames: number, rate: number, nowMs: number): JitterDecision {
    const b = this.bounds;
    if (nowMs - this.calmSinceMs >= b.calmMs && this.margin > b.minMarginMs) {
      const floor = nowMs - this.need.atMs < b.needMemoryMs ? this.need.ms : b.minMarginMs;
      this.margin = Math.max(floor, b.minMarginMs, this.margin - b.lowerMs);
      this.calmSinceMs = nowMs;
    }
    if (this.startupExtra > 0 && this.firstPlayMs !== null && nowMs - this.firstPlayMs >= b.startupGraceMs) this.startupExtra = 0;
    const ms = (fillFrames * 1000) / rate;
    const elapsed = Math.max(0, nowMs - this.lastMs);
    this.lastMs = nowMs;
    if (!this.playing) {
      if (this.dry !== null && fillFrames > this.dry.leftFrames) this.raiseAfterDry(nowMs);
      if (ms < this.targetMs) return { kind: 'wait' };
      this.playing = true;
      this.firstPlayMs ??= nowMs;
      this.restartWindow(nowMs);
    }
    if (ms > this.targetMs + b.maxAboveMs) {
      this.restartWindow(nowMs);
      return { kind: 'play', speed: 1, drop: fillFrames - Math.round((this.targetMs * rate) / 1000) };
    }
    const high = ms > this.targetMs + b.highAboveMs;
    if (this.drainMs > 0) {
      // what the last block (played fast) took beyond its share
      this.drainMs -= elapsed * (b.stretch - 1);
      if (this.drainMs > 0) return { kind: 'play', speed: b.stretch, drop: 0 };
      this.restartWindow(nowMs);
    }
    this.lowMs = Math.min(this.lowMs, ms);
    if (nowMs - this.windowStartMs >= b.windowMs) {
      // a whole window watched: the queue never went below lowMs, so what lay above the margin was not needed
      const excess = this.lowMs - this.margin;
      this.restartWindow(nowMs);
      if (excess >= 1) {
        this.drainMs = excess;
        return { kind: 'play', speed: b.stretch, drop: 0 };
      }
    }
    return { kind: 'play', speed: high ? b.stretch : 1, drop: 0 };
  }

  /**
   * The queue ran dry during the block: wait for the start level again,
   * raised once the next wave shows how long the gap was. `leftFrames`: what
   * the output could not play and left queued (the worklet interpolates, so
   * the last frame waits for the one after it); the next wave is the queue
   * growing past it.
   */
  ranDry(nowMs: number, leftFrames = 0): void {
    this.playing = false;
    this.drainMs = 0;
    const inGrace = this.firstPlayMs !== null && nowMs - this.firstPlayMs < this.bounds.startupGraceMs;
    this.dry = { atMs: nowMs, inGrace, leftFrames };
    if (!inGrace) this.calmSinceMs = nowMs;
  }

  /** The first wave after a dry queue: the margin (or, in the start-up grace, the start level alone) rises by the gap. */
  private raiseAfterDry(nowMs: number): void {
    const dry = this.dry;
    if (dry === null) return;
    this.dry = null;
    const raise = this.bounds.fixedRaiseMs ?? Math.max(0, nowMs - dry.atMs) + this.bounds.raisePadMs;
    if (dry.inGrace) {
      // the session's start, not the link: the next start waits for more, the margin stays
      this.startupExtra = Math.min(this.bounds.maxMarginMs, this.startupExtra + raise);
      return;
    }
    this.margin = Math.min(this.bounds.maxMarginMs, this.margin + raise);
    this.need = { ms: this.margin, atMs: nowMs };
    this.calmSinceMs = nowMs;
  }

  private restartWindow(nowMs: number): void {
    this.lowMs = Infinity;
    this.windowStartMs = nowMs;
  }
}
