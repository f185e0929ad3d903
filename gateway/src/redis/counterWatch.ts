// The wrong-PIN counters live in Redis, where anyone holding its password
// could delete one (or rewrite it) to lift a lockout. Redis cannot refuse
// that, but a gateway process can notice it: it remembers what it last saw of
// each counter (its window's id and end, the attempts in it), and a counter
// that comes back in another window before the one it saw has ended, or with
// fewer attempts in the same window, lost attempts that were counted. Redis
// restarted without persistence, or evicting keys, looks the same. The
// caller puts the lost attempts back (fail closed) and says so in the log.
// Pure: the clock is passed in; memory is capped (least recently seen first).

/** A counter as the store's script answers it. */
export interface CounterReading {
  /** The window's id, drawn by whoever started it. */
  readonly window: string;
  /** Attempts counted in the window, and those given back (a right PIN gives its attempt back). */
  readonly attempts: number;
  readonly givenBack: number;
  /** Until the window ends. */
  readonly ttlMs: number;
}

interface Seen {
  readonly window: string;
  readonly attempts: number;
  readonly givenBack: number;
  readonly endsAt: number;
}

/** Counters remembered per process; past this the least recently seen are forgotten (and unwatched). */
export const DEFAULT_WATCHED_COUNTERS = 20_000;
/** A window this close to its end may have ended by Redis's clock: a new one then is no tamper. */
const END_SLACK_MS = 1000;

export class CounterWatch {
  private readonly seen = new Map<string, Seen>();

  constructor(private readonly capacity = DEFAULT_WATCHED_COUNTERS, private readonly clock: () => number = () => performance.now()) {}

  /**
   * The attempts that vanished from `key` since this process last saw it (0
   * when none did), given the reading after this process `added` attempts
   * (other processes only add more), and remembers the counter as it will be
   * once they are put back.
   */
  observe(key: string, reading: CounterReading, added = 0): number {
    const now = this.clock();
    const before = this.seen.get(key);
    let lost = 0;
    if (before && before.endsAt - END_SLACK_MS > now) {
      if (reading.window !== before.window) lost = Math.max(0, before.attempts - before.givenBack);
      else lost = Math.max(0, before.attempts + added - reading.attempts);
    }
    this.seen.delete(key);
    this.seen.set(key, { window: reading.window, attempts: reading.attempts + lost, givenBack: reading.givenBack, endsAt: now + reading.ttlMs });
    if (this.seen.size > this.capacity) this.forget(now);
    return lost;
  }

  get size(): number {
    return this.seen.size;
  }

  /** Ended windows first, then the least recently seen, down to the capacity. */
  private forget(now: number): void {
    for (const [key, entry] of this.seen) if (entry.endsAt <= now) this.seen.delete(key);
    for (const key of this.seen.keys()) {
      if (this.seen.size <= this.capacity) break;
      this.seen.delete(key);
    }
  }
}
