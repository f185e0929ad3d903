// The broker's events between gateways, over Redis pub/sub: a display's
// control socket may live on gateway A while the request that projects it, or
// the admin's stop, arrives at gateway B. Events reach this process's own
// handlers at once (so one gateway keeps working for its own sockets while
// Redis is away) and the other gateways through the channel; a process skips
// its own echo by its origin id.
import { randomBytes } from 'node:crypto';
import { EventEmitter } from 'node:events';
import type { Logger } from 'pino';
import type { BusEvent, GatewayBus } from '../cluster/gatewayBus.js';
import type { RedisConnection } from './redisConnection.js';

interface Envelope { origin: string; event: BusEvent }

export class RedisBus implements GatewayBus {
  private readonly origin = randomBytes(8).toString('hex');
  private readonly local = new EventEmitter();
  private readonly channel: string;
  private readonly subscriber: RedisConnection;

  constructor(private readonly publisher: RedisConnection, prefix = 'lanterna:', private readonly logger?: Logger) {
    this.channel = `${prefix}events`;
    this.subscriber = publisher.duplicate('bus');
    // Subscribed on every (re)connection: commands are not queued while Redis is away.
    const subscribe = (): void => {
      this.subscriber.client.subscribe(this.channel).catch((error: unknown) => logger?.warn({ err: error }, 'redis subscribe failed; tried again on reconnect'));
    };
    this.subscriber.client.on('ready', subscribe);
    if (this.subscriber.ready) subscribe();
    this.subscriber.client.on('message', (channel: string, text: string) => {
      if (channel !== this.channel) return;
      let envelope: Envelope;
      try {
        envelope = JSON.parse(text) as Envelope;
      } catch {
        return;
      }
      if (envelope.origin !== this.origin) this.local.emit('event', envelope.event);
    });
  }

  publish(event: BusEvent): void {
    queueMicrotask(() => this.local.emit('event', event));
    this.publisher.client.publish(this.channel, JSON.stringify({ origin: this.origin, event } satisfies Envelope)).catch((error: unknown) => {
      this.logger?.warn({ err: error, event: 'bus-publish-failed', kind: event.kind }, 'an event did not reach the other gateways (redis unreachable)');
    });
  }

  subscribe(handler: (event: BusEvent) => void): void {
    this.local.on('event', handler);
  }

  /** Why the bus cannot reach the other gateways, or undefined. */
  problem(): string | undefined {
    return this.subscriber.problem();
  }

  async close(): Promise<void> {
    await this.subscriber.close();
  }
}
