// Where this process keeps the broker's state and how it hears the other
// processes, from `broker.store` in the configuration:
//   embedded, one process   the embedded store (memory + stateDir/broker-state.json), a local bus, the pin file
//   embedded, a worker      the cluster primary's embedded store over IPC, the primary's echo bus, the pin file
//   redis                   Redis for everything, in every worker of every gateway: store, pub/sub bus, pins
import { readFileSync } from 'node:fs';
import type { Logger } from 'pino';
import type { GatewayConfig } from './config/configSchema.js';
import { ConfigError } from './config/loadConfig.js';
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

/**
 * `sessionSecret`: the deployment's (gatewayIdentity.ts); with Redis the
 * events, room PINs and wrong-PIN counters are sealed or digested under it.
 */
export async function openBrokerBackend(
  config: GatewayConfig & { stateDir: string },
  role: 'single' | 'worker',
  logger: Logger | undefined,
  sessionSecret: Buffer,
): Promise<BrokerBackend> {
  if (config.broker.store === 'redis') {
    const { redisUrl = '', keyPrefix } = config.broker;
    const connection = new RedisConnection({ url: redisUrl, ...readRedisFiles(config.broker), logger, role: 'store' });
    const bus = new RedisBus(connection, sessionSecret, keyPrefix, logger);
    warnIfAnonymous(connection, logger);
    await connection.waitReady(REDIS_START_WAIT_MS).catch((error: unknown) => logger?.error({ err: error, event: 'redis-down' }, 'starting without redis: not ready until it is reachable'));
    return {
      store: new RedisBrokerStore(connection, { sessionSecret, prefix: keyPrefix, logger }),
      bus,
      pins: new RedisPinStore(connection, keyPrefix),
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

/**
 * broker.redisPasswordFile's password and broker.redisCaFile's CA; a file
 * that cannot be read (or an empty password) is a ConfigError (exit 2). The
 * CLI's primary reads them once before it starts workers.
 */
export function readRedisFiles(broker: GatewayConfig['broker']): { password?: string | undefined; ca?: string | undefined } {
  return {
    password: broker.redisPasswordFile === undefined ? undefined : readRedisPassword(broker.redisPasswordFile),
    ca: broker.redisCaFile === undefined ? undefined : readConfiguredFile('broker.redisCaFile', broker.redisCaFile),
  };
}

function readConfiguredFile(key: string, path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    throw new ConfigError([`${key}: cannot read ${path} (${(error as Error).message})`]);
  }
}

/** The password file's first line (a trailing newline is not part of it). */
function readRedisPassword(path: string): string {
  const password = readConfiguredFile('broker.redisPasswordFile', path).split(/\r?\n/)[0] ?? '';
  if (password === '') throw new ConfigError([`broker.redisPasswordFile: ${path} is empty`]);
  return password;
}

/**
 * Once Redis is first reached: a Redis that serves clients without a password
 * lets anyone who reaches its port read and change the broker's state (lift a
 * lockout, book a display, end sessions), so the gateway says so at start.
 */
function warnIfAnonymous(connection: RedisConnection, logger: Logger | undefined): void {
  const check = (): void => {
    connection.servesAnonymousClients().then((open) => {
      if (open) {
        logger?.warn({ event: 'redis-unauthenticated' },
          'redis serves clients without a password: anyone who reaches it can read and change the broker\'s state; set requirepass and broker.redisPasswordFile (docs/scale-out.md, "Securing the Redis")');
      }
    }).catch((error: unknown) => logger?.debug({ err: error }, 'could not ask redis whether it requires a password'));
  };
  if (connection.ready) check();
  else connection.client.once('ready', check);
}
