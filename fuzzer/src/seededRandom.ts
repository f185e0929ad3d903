// A small, fast, seedable generator (sfc32): a campaign is replayed exactly
// from its seed, which Math.random cannot do.

export class SeededRandom {
  #a: number;
  #b: number;
  #c: number;
  #d: number;

  constructor(readonly seed: number) {
    this.#a = 0x9e3779b9;
    this.#b = 0x243f6a88;
    this.#c = 0xb7e15162;
    this.#d = seed >>> 0;
    for (let i = 0; i < 12; i++) this.next();
  }

  /** A uniform 32-bit unsigned integer. */
  next(): number {
    const t = (((this.#a + this.#b) | 0) + this.#d) | 0;
    this.#d = (this.#d + 1) | 0;
    this.#a = this.#b ^ (this.#b >>> 9);
    this.#b = (this.#c + (this.#c << 3)) | 0;
    this.#c = (this.#c << 21) | (this.#c >>> 11);
    this.#c = (this.#c + t) | 0;
    return t >>> 0;
  }

  /** An integer in [0, bound); 0 when bound ≤ 1. */
  below(bound: number): number {
    return bound <= 1 ? 0 : this.next() % bound;
  }

  /** An integer in [min, max]. */
  between(min: number, max: number): number {
    return min + this.below(max - min + 1);
  }

  chance(probability: number): boolean {
    return this.next() < probability * 0x1_0000_0000;
  }

  pick<T>(items: readonly T[]): T {
    const item = items[this.below(items.length)];
    if (item === undefined) throw new RangeError('pick from an empty list');
    return item;
  }

  /** Small numbers much more often than large ones: 0..max, each bit length equally likely. */
  skewed(max: number): number {
    const bits = this.below(Math.ceil(Math.log2(max + 1)) + 1);
    return Math.min(max, this.below(2 ** bits));
  }

  bytes(length: number): Uint8Array {
    const out = new Uint8Array(length);
    for (let i = 0; i < length; i++) out[i] = this.next() & 0xff;
    return out;
  }
}
