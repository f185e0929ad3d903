// Certificate pins in Redis (hash `P pins`: canonical host:port → sha256
// fingerprint), shared by every gateway of a farm: a server pinned through one
// gateway is judged by the same pin through all. First uses are recorded with
// HSETNX, so of two gateways meeting a new server at once one pin wins and
// both judge against it. Fails closed like the file: Redis away is an error
// (PinStoreError), so first-use sessions are refused rather than unpinned.
import { PinStoreError, type PinStore } from '../policy/pinStore.js';
import type { RedisConnection } from './redisConnection.js';

export class RedisPinStore implements PinStore {
  private readonly key: string;
  /** Hash `P pins-used`: key → when its pin last let a session through (ms). */
  private readonly usedKey: string;

  constructor(private readonly connection: RedisConnection, prefix = 'lanterna:') {
    this.key = `${prefix}pins`;
    this.usedKey = `${prefix}pins-used`;
  }

  async get(keys: readonly string[]): Promise<Map<string, string>> {
    if (keys.length === 0) return new Map();
    const values = await this.run((redis) => redis.hmget(this.key, ...keys));
    return new Map(keys.flatMap((key, index) => (values[index] ? [[key, values[index]] as const] : [])));
  }

  async recordMissing(keys: readonly string[], fingerprint: string): Promise<Map<string, string>> {
    const values = await this.run(async (redis) => {
      const multi = redis.multi();
      for (const key of keys) multi.hsetnx(this.key, key, fingerprint);
      multi.hmget(this.key, ...keys);
      const results = await multi.exec();
      return (results?.at(-1)?.[1] ?? []) as (string | null)[];
    });
    return new Map(keys.map((key, index) => [key, values[index] ?? fingerprint] as const));
  }

  async list(): Promise<Map<string, string>> {
    return new Map(Object.entries(await this.run((redis) => redis.hgetall(this.key))));
  }

  async clear(keys: readonly string[]): Promise<number> {
    if (keys.length === 0) return 0;
    return this.run(async (redis) => {
      const [removed] = await Promise.all([redis.hdel(this.key, ...keys), redis.hdel(this.usedKey, ...keys)]);
      return removed;
    });
  }

  async markUsed(keys: readonly string[], at: number): Promise<void> {
    if (keys.length === 0) return;
    // Only keys still pinned, so the hash never outgrows the pins.
    const pinned = await this.get(keys);
    if (pinned.size === 0) return;
    await this.run((redis) => redis.hset(this.usedKey, Object.fromEntries([...pinned.keys()].map((key) => [key, String(at)]))));
  }

  async lastUsed(): Promise<Map<string, number>> {
    const all = await this.run((redis) => redis.hgetall(this.usedKey));
    return new Map(Object.entries(all).map(([key, value]) => [key, Number(value)] as const).filter(([, at]) => Number.isFinite(at)));
  }

  async check(): Promise<number> {
    return this.run((redis) => redis.hlen(this.key));
  }

  private async run<T>(work: Parameters<RedisConnection['run']>[0] extends (client: infer C) => unknown ? (client: C) => Promise<T> : never): Promise<T> {
    try {
      return await this.connection.run(work);
    } catch (error) {
      throw new PinStoreError(`the certificate pins in redis cannot be used: ${(error as Error).message}`);
    }
  }
}
