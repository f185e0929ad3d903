// The H.264 bitrate, following the gateway's backpressure. The gateway reads
// a presenter page's socket no faster than relay.presenterBytesPerSecond;
// past it, it reads later, and says so once a second (the presenter socket's
// `pace`: how long it held the page back, how much it read). The page cannot
// see that wait by itself: TCP's buffers take megabytes first (on loopback
// the socket's bufferedAmount stayed 0 for 28 s at 96 KiB/s), and pictures
// that wait there reach the display seconds late. So the encoder is asked for
// what the gateway read, and for more again once it holds nothing back. A
// display that is only slow to decode is not the link: the page's two
// pictures in flight already wait for its acknowledgements, and the bitrate
// stays. Pure: the sender feeds it a once-a-second tick; no socket, no
// encoder here.
//
// The rule is AIMD, as TCP's: on a held-back tick the target drops to what
// the gateway read (less a margin), by at least DECREASE; after CLEAR_TICKS
// free ticks it rises by INCREASE, up to the size's ceiling.

export interface BitrateTick {
  /** Bytes the gateway read from the page during the tick (its `pace`), or the picture bytes sent when it held nothing back. */
  readonly bytesSent: number;
  /** Milliseconds of the tick the gateway held the page back. */
  readonly heldMs: number;
  /** Milliseconds the tick covers (about 1000). */
  readonly ms: number;
}

export interface BitrateDecision {
  /** Bits per second the encoder should aim at from now on. */
  readonly bitrate: number;
  /** True when this tick changed it enough to reconfigure the encoder. */
  readonly changed: boolean;
}

/** Below this the picture is mush whatever the link: the page keeps it and sends fewer pictures instead. */
export const MIN_BITRATE = 300_000;
/** A tick is held back once the gateway held the page back for more than this share of it. */
const HELD_SHARE = 0.3;
/** Free: held back for less than this share. */
const FREE_SHARE = 0.05;
/** What the gateway read × this is the new target on a held-back tick: room for the backlog to empty. */
const MARGIN = 0.8;
/** A held-back tick lowers the target at least this much. */
const DECREASE = 0.85;
/** Free ticks in a row before a rise, and the rise. */
const CLEAR_TICKS = 2;
const INCREASE = 1.15;
/** The encoder is reconfigured only for a change of at least this fraction (or to a bound). */
const RECONFIGURE_STEP = 0.08;

export class BitrateController {
  private target: number;
  /** The bitrate the encoder was last configured with. */
  private configured: number;
  private freeTicks = 0;

  constructor(readonly ceiling: number) {
    this.target = ceiling;
    this.configured = ceiling;
  }

  /** The encoder's bitrate now. */
  get bitrate(): number {
    return this.configured;
  }

  tick(seen: BitrateTick): BitrateDecision {
    const ms = Math.max(1, seen.ms);
    const heldShare = seen.heldMs / ms;
    if (heldShare > HELD_SHARE) {
      this.freeTicks = 0;
      const carriedBitsPerSecond = (seen.bytesSent * 8 * 1000) / ms;
      // a picture bigger than the link carries in the tick still lowers by DECREASE: never below the floor
      this.target = Math.max(MIN_BITRATE, Math.min(this.target * DECREASE, carriedBitsPerSecond * MARGIN));
    } else if (heldShare < FREE_SHARE) {
      this.freeTicks += 1;
      if (this.freeTicks >= CLEAR_TICKS && this.target < this.ceiling) {
        this.target = Math.min(this.ceiling, this.target * INCREASE);
        this.freeTicks = 0;
      }
    } else {
      this.freeTicks = 0;
    }
    const atBound = (bound: number): boolean => this.target === bound && this.configured !== bound;
    const changed = Math.abs(this.target - this.configured) >= this.configured * RECONFIGURE_STEP || atBound(this.ceiling) || atBound(MIN_BITRATE);
    if (changed) this.configured = Math.round(this.target);
    return { bitrate: this.configured, changed };
  }
}
