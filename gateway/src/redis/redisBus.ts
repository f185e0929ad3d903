// The broker's events between gateways, over Redis pub/sub: a display's
// control socket may live on gateway A while the request that projects it, or
// the admin's stop, arrives at gateway B. Events reach this process's own
// handlers at once (so one gateway keeps working for its own sockets while
// Redis is away) and the other gateways through the channel; a process skips
// its own echo by its origin id.
//
// A `project` event carries the presenter's credentials and the session's
// token, and anyone who can SUBSCRIBE reads the channel: every envelope is
// sealed with the session secret (../session/sealedBox.ts). Sealing also
// proves the sender: an envelope that does not open (another secret, an
// older gateway, a forgery), one older than MAX_EVENT_AGE_MS or one seen
// before (a replay) is dropped, and said in the log at most once a minute.
import { randomBytes } from 'node:crypto';
import { EventEmitter } from 'node:events';
import type { Logger } from 'pino';
import type { BusEvent, GatewayBus } from '../cluster/gatewayBus.js';
import { SealedBox } from '../session/sealedBox.js';
import type { RedisConnection } from './redisConnection.js';

interface Envelope { origin: string; at: number; event: BusEvent }

/** An envelope older (or further ahead, clocks differ) than this is dropped: a replay window, and the dedup memory's span. */
export const MAX_EVENT_AGE_MS = 60_000;
/** Envelopes remembered against replays; past this the oldest are forgotten. */
const MAX_REMEMBERED_ENVELOPES = 50_000;
const REFUSAL_LOG_INTERVAL_MS = 60_000;
/** The nonce that opens a sealed envelope (12 bytes in base64url): unique per envelope. */
const NONCE_CHARS = 16;

type Refusal = 'unsealed' | 'stale' | 'replayed';

function isEnvelope(value: unknown): value is Envelope {
  if (typeof value !== 'object' || value === null) return false;
  const { origin, at, event } = value as Record<string, unknown>;
  return typeof origin === 'string' && typeof at === 'number' && typeof event === 'object' && event !== null && typeof (event as Record<string, unknown>).kind === 'string';
}

export class RedisBus implements GatewayBus {
  private readonly origin = randomBytes(8).toString('hex');
  private readonly local = new EventEmitter();
  private readonly channel: string;
  private readonly subscriber: RedisConnection;
  private readonly box: SealedBox;
  /** Nonce → when it may be forgotten. */
  private readonly seen = new Map<string, number>();
  private readonly refused: Record<Refusal, number> = { unsealed: 0, stale: 0, replayed: 0 };
  private lastRefusalLog = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly publisher: RedisConnection,
    sessionSecret: Buffer,
    prefix = 'lanterna:',
    private readonly logger?: Logger,
    private readonly clock: () => number = Date.now,
  ) {
    this.channel = `${prefix}events`;
    this.box = new SealedBox(sessionSecret, 'bus event');
    this.subscriber = publisher.duplicate('bus');
    // Subscribed on every (re)connection: commands are not queued while Redis is away.
    const subscribe = (): void => {
      this.subscriber.client.subscribe(this.channel).catch((error: unknown) => logger?.warn({ err: error }, 'redis subscribe failed; tried again on reconnect'));
    };
    this.subscriber.client.on('ready', subscribe);
    if (this.subscriber.ready) subscribe();
    this.subscriber.client.on('message', (channel: string, text: string) => {
      if (channel === this.channel) this.receive(text);
    });
  }

  publish(event: BusEvent): void {
    queueMicrotask(() => this.local.emit('event', event));
    const sealed = this.box.seal({ origin: this.origin, at: this.clock(), event } satisfies Envelope);
    this.publisher.client.publish(this.channel, sealed).catch((error: unknown) => {
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

  private receive(text: string): void {
    const envelope = this.box.open(text);
    if (!isEnvelope(envelope)) return this.refuse('unsealed');
    if (envelope.origin === this.origin) return;
    const now = this.clock();
    if (Math.abs(now - envelope.at) > MAX_EVENT_AGE_MS) return this.refuse('stale');
    const nonce = text.slice(0, NONCE_CHARS);
    if (this.seen.has(nonce)) return this.refuse('replayed');
    this.remember(nonce, now);
    this.local.emit('event', envelope.event);
  }

  private remember(nonce: string, now: number): void {
    this.seen.set(nonce, now + 2 * MAX_EVENT_AGE_MS);
    if (this.seen.size <= MAX_REMEMBERED_ENVELOPES) return;
    // Insertion order is expiry order: drop the forgotten, then the oldest down to the cap.
    for (const [key, until] of this.seen) {
      if (until > now && this.seen.size <= MAX_REMEMBERED_ENVELOPES) break;
      this.seen.delete(key);
    }
  }

  private refuse(reason: Refusal): void {
    this.refused[reason] += 1;
    const now = this.clock();
    if (now - this.lastRefusalLog < REFUSAL_LOG_INTERVAL_MS) return;
    this.lastRefusalLog = now;
    this.logger?.warn({ event: 'bus-event-refused', reason, refused: { ...this.refused } },
      'an event on the redis channel was dropped: not sealed with this gateway\'s session secret (do all gateways share sessionSecret? an older gateway?), too old, or seen before');
  }
}
