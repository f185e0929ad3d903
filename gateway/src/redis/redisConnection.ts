// The gateway's connection to a shared Redis: fail fast, reconnect forever.
// Commands are never queued while Redis is away (a projection request is
// refused at once with a clear error instead of hanging), each has a
// deadline, and the connection keeps trying every half second or so. Its
// state is what /readyz reports, and each change of it is logged once.
import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { StoreUnavailableError } from '../broker/brokerStore.js';

export const REDIS_COMMAND_TIMEOUT_MS = 2000;
const RECONNECT_MAX_MS = 1000;

export interface RedisConnectionOptions {
  url: string;
  /** Redis's password when the URL names none (broker.redisPasswordFile's contents). */
  password?: string | undefined;
  /** rediss://: the CA (PEM) to trust for Redis's certificate instead of the system's roots (broker.redisCaFile's contents). */
  ca?: string | undefined;
  logger?: Logger | undefined;
  /** Tag for the log lines (`store`, `bus`). */
  role?: string;
}

/** The URL without a password, for logs and messages. */
export function redactedUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return 'redis';
  }
}

/** A private CA for rediss:// (the URL's scheme alone turns TLS on, against the system's roots). */
function tlsOptions(options: RedisConnectionOptions): { tls?: { ca: string } } {
  return options.ca === undefined ? {} : { tls: { ca: options.ca } };
}

export class RedisConnection {
  readonly client: Redis;
  private lastError: string | undefined;
  private up = false;
  private readonly where: string;

  constructor(private readonly options: RedisConnectionOptions, client?: Redis) {
    this.where = redactedUrl(options.url);
    this.client = client ?? new Redis(options.url, {
      ...(options.password === undefined ? {} : { password: options.password }),
      ...tlsOptions(options),
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
      connectTimeout: REDIS_COMMAND_TIMEOUT_MS,
      retryStrategy: (times) => Math.min(100 * times, RECONNECT_MAX_MS),
      lazyConnect: false,
    });
    this.client.on('ready', () => {
      if (!this.up) options.logger?.info({ event: 'redis-up', redis: this.where, role: options.role }, 'redis reachable');
      this.up = true;
      this.lastError = undefined;
    });
    this.client.on('error', (error: Error) => { this.lastError = error.message; });
    this.client.on('close', () => {
      if (this.up) options.logger?.error({ event: 'redis-down', redis: this.where, role: options.role, reason: this.lastError }, 'redis unreachable: new projections are refused, running sessions go on');
      this.up = false;
    });
  }

  /** A second connection to the same Redis (pub/sub needs one of its own). */
  duplicate(role: string): RedisConnection {
    return new RedisConnection({ ...this.options, role });
  }

  get ready(): boolean {
    return this.client.status === 'ready';
  }

  /** Why the connection is not usable, or undefined when it is. */
  problem(): string | undefined {
    if (this.ready) return undefined;
    return `redis at ${this.where} is unreachable${this.lastError ? ` (${this.lastError})` : ` (${this.client.status})`}`;
  }

  /** Waits until connected, up to `timeoutMs` (start-up). */
  async waitReady(timeoutMs: number): Promise<void> {
    if (this.ready) return;
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => { this.client.off('ready', onReady); reject(new StoreUnavailableError(this.problem() ?? 'redis is unreachable')); }, timeoutMs);
      const onReady = (): void => { clearTimeout(timer); resolve(); };
      this.client.once('ready', onReady);
    });
  }

  /** Runs Redis commands; failures to reach Redis become StoreUnavailableError (the API's 503). */
  async run<T>(work: (client: Redis) => Promise<T>): Promise<T> {
    if (!this.ready) throw new StoreUnavailableError(this.problem() ?? 'redis is unreachable');
    try {
      return await work(this.client);
    } catch (error) {
      if ((error as Error).name === 'ReplyError') throw error;
      throw new StoreUnavailableError(`redis at ${this.where}: ${(error as Error).message}`);
    }
  }

  /**
   * Whether this Redis serves a client that gives no password: then anyone
   * who reaches its port can read and change the broker's state. Asked over
   * a connection of its own, without the URL's user and password.
   */
  async servesAnonymousClients(): Promise<boolean> {
    const anonymous = new URL(this.options.url);
    anonymous.username = '';
    anonymous.password = '';
    const probe = new Redis(anonymous.toString(), {
      ...tlsOptions(this.options),
      lazyConnect: true, enableReadyCheck: false, maxRetriesPerRequest: 0, retryStrategy: () => null,
      commandTimeout: REDIS_COMMAND_TIMEOUT_MS, connectTimeout: REDIS_COMMAND_TIMEOUT_MS,
    });
    probe.on('error', () => { /* the reply below says it */ });
    try {
      await probe.connect();
      await probe.ping();
      return true;
    } catch (error) {
      if (/NOAUTH|WRONGPASS|DENIED/.test((error as Error).message)) return false;
      throw error;
    } finally {
      probe.disconnect();
    }
  }

  async close(): Promise<void> {
    this.client.removeAllListeners('close');
    await this.client.quit().catch(() => this.client.disconnect());
  }
}
