// Where this process keeps the broker's state and how it hears the other
// processes, from `broker.store` in the configuration:
//   embedded, one process   the embedded store (memory + stateDir/broker-state.json), a local bus, the pin file
//   embedded, a worker      the cluster primary's embedded store over IPC, the primary's echo bus, the pin file
//   redis                   Redis for everything, in every worker of every gateway: store, pub/sub bus, pins
import type { Logger } from 'pino';
import type { GatewayConfig } from './config/configSchema.js';
import type { BrokerStore } from './broker/brokerStore.js';
import { EmbeddedBrokerStore, brokerStateFile } from './broker/embeddedBrokerStore.js';
import { LocalBus, WorkerBus, type GatewayBus } from './cluster/gatewayBus.js';
import { IpcBrokerStore } from './cluster/ipcBrokerStore.js';
import { FilePinStore, pinFile, type PinStore } from './policy/pinStore.js';
import { RedisConnection } from './redis/redisConnection.js';
import { RedisBrokerStore } from './redis/redisBrokerStore.js';
import { RedisBus } from './redis/redisBus.js';
import { RedisPinStore } from './redis/redisPinStore.js';

export interface BrokerBackend {
  store: BrokerStore;
  bus: GatewayBus;
  pins: PinStore;
  /** Why the broker's state cannot be used now (for /readyz), or undefined. */
  problem: () => string | undefined;
  close: () => Promise<void>;
}

/** How long a starting gateway waits for Redis before it starts anyway (not ready, saying why). */
const REDIS_START_WAIT_MS = 3000;

export async function openBrokerBackend(
  config: GatewayConfig & { stateDir: string },
  role: 'single' | 'worker',
  logger?: Logger,
): Promise<BrokerBackend> {
  if (config.broker.store === 'redis') {
    const connection = new RedisConnection({ url: config.broker.redisUrl ?? '', logger, role: 'store' });
    const bus = new RedisBus(connection, config.broker.keyPrefix, logger);
    await connection.waitReady(REDIS_START_WAIT_MS).catch((error: unknown) => logger?.error({ err: error, event: 'redis-down' }, 'starting without redis: not ready until it is reachable'));
    return {
      store: new RedisBrokerStore(connection, config.broker.keyPrefix),
      bus,
      pins: new RedisPinStore(connection, config.broker.keyPrefix),
      problem: () => connection.problem() ?? bus.problem(),
      close: async () => { await Promise.all([bus.close(), connection.close()]); },
    };
  }
  const pins = new FilePinStore(pinFile(config.stateDir));
  if (role === 'worker') {
    return { store: IpcBrokerStore.forWorker(), bus: new WorkerBus(), pins, problem: () => undefined, close: () => Promise.resolve() };
  }
  const store = await EmbeddedBrokerStore.open(brokerStateFile(config.stateDir));
  return {
    store, bus: new LocalBus(), pins,
    problem: () => (store.lastWriteError ? `the broker state file cannot be written: ${store.lastWriteError.message}` : undefined),
    close: () => store.flush(),
  };
}
