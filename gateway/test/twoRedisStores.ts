// Two gateways' broker stores on one real redis-server, as the Redis tests
// use them: a fresh server and two connections, closed after the test, the
// farm's shared session secret, and a key prefix of the test's own.
import type { TestContext } from 'node:test';
import { startRedis } from '@lanterna/testkit';
import { RedisBrokerStore, RedisConnection } from '@lanterna/gateway';

type StoreOptions = ConstructorParameters<typeof RedisBrokerStore>[1];

export interface TwoRedisStores {
  readonly a: RedisBrokerStore;
  readonly b: RedisBrokerStore;
  /** Their connections, for other stores on the same two gateways. */
  readonly connections: readonly [RedisConnection, RedisConnection];
  /** The server, for a test that stops it or reads it as a third party would. */
  readonly redis: Awaited<ReturnType<typeof startRedis>>;
}

export async function twoRedisStores(t: TestContext, options: StoreOptions): Promise<TwoRedisStores> {
  const redis = await startRedis();
  t.after(() => redis.close());
  const connections = [new RedisConnection({ url: redis.url }), new RedisConnection({ url: redis.url })] as const;
  t.after(() => Promise.all(connections.map((connection) => connection.close())));
  await Promise.all(connections.map((connection) => connection.waitReady(5000)));
  return { a: new RedisBrokerStore(connections[0], options), b: new RedisBrokerStore(connections[1], options), connections, redis };
}
