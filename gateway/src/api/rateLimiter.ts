// Token buckets per source address: each request takes a token, tokens come
// back at a steady rate up to the bucket's size. A burst is served, a flood is
// answered 429 with the seconds until the next token. Buckets live in memory
// per gateway process (a farm's limit is per instance); the table is bounded,
// and full buckets are the first to go (they hold nothing worth remembering).

export interface BucketShape {
  /** Tokens a fresh bucket holds: the burst allowed. */
  readonly capacity: number;
  /** Tokens returned per second. */
  readonly refillPerSecond: number;
}

export type TakeResult = { ok: true } | { ok: false; retryAfterSeconds: number };

interface Bucket { tokens: number; at: number }

export class RateLimiter {
  private readonly buckets = new Map<string, Bucket>();

  constructor(
    private readonly shape: BucketShape,
    private readonly clock: () => number = Date.now,
    private readonly maxKeys = 10_000,
  ) {}

  /** Takes a token for `key` if there is one. */
  take(key: string): TakeResult {
    const bucket = this.refilled(key);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return { ok: true };
    }
    return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil((1 - bucket.tokens) / this.shape.refillPerSecond)) };
  }

  /** Whether `key` has a token now, without taking it. */
  has(key: string): TakeResult {
    const bucket = this.refilled(key);
    if (bucket.tokens >= 1) return { ok: true };
    return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil((1 - bucket.tokens) / this.shape.refillPerSecond)) };
  }

  private refilled(key: string): Bucket {
    const now = this.clock();
    let bucket = this.buckets.get(key);
    if (!bucket) {
      if (this.buckets.size >= this.maxKeys) this.evict(now);
      bucket = { tokens: this.shape.capacity, at: now };
      this.buckets.set(key, bucket);
      return bucket;
    }
    bucket.tokens = Math.min(this.shape.capacity, bucket.tokens + ((now - bucket.at) / 1000) * this.shape.refillPerSecond);
    bucket.at = now;
    return bucket;
  }

  private evict(now: number): void {
    for (const [key, bucket] of this.buckets) {
      if (bucket.tokens + ((now - bucket.at) / 1000) * this.shape.refillPerSecond >= this.shape.capacity) this.buckets.delete(key);
    }
    // Still full (a flood from many addresses): forget the oldest half.
    if (this.buckets.size >= this.maxKeys) {
      let drop = Math.ceil(this.buckets.size / 2);
      for (const key of this.buckets.keys()) {
        if (drop-- <= 0) break;
        this.buckets.delete(key);
      }
    }
  }
}
