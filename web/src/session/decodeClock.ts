// How long the engine took to turn input into a frame. The wasm client does
// not time its own decoding, so the session worker measures from the first
// gateway frame handed to the engine after the previous frame (when the RDP
// thread had caught up) to the engine's end of paint. That includes waiting
// for the rest of a frame's PDUs when they straggle, so it is an upper bound
// on decode time, and it says so in the HUD's README entry.
export class DecodeClock {
  private firstInputAt: number | null = null;

  constructor(private readonly now: () => number = () => performance.now()) {}

  /** A gateway frame went into the engine. */
  input(): void {
    this.firstInputAt ??= this.now();
  }

  /** When the input of the coming frame began to arrive (this clock's time), or null before any. */
  get pendingSince(): number | null {
    return this.firstInputAt;
  }

  /** The engine ended a paint: the ms since the first input it drew from, or null for a paint without input. */
  frame(): number | null {
    if (this.firstInputAt === null) return null;
    const elapsed = this.now() - this.firstInputAt;
    this.firstInputAt = null;
    return elapsed;
  }
}
