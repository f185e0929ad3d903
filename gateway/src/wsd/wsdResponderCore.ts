// The WS-Discovery responder's decisions, without sockets or timers (the
// adapter, wsdResponder.ts, owns those): which displays are announced (Hello
// when one comes online, Bye when it goes), what a datagram gets (ProbeMatches
// or ResolveMatches per matching display, unicast to the sender, after
// WS-Discovery's random delay for multicast requests), and what is dropped
// and why (unreadable, duplicate MessageID, over a source's rate, from a
// network we do not serve). Every message carries the gateway's AppSequence:
// InstanceId from the state directory, MessageNumber rising per message.
import {
  ANONYMOUS, DEVICE_TYPE, DISCOVERY_URN, DISPLAY_TYPE, probeMatches, readWsdMessage, repetitionSchedule, utf8Bytes, writeWsdMessage,
  type TargetDescription, type WsdFailureReason, type WsdMessage, type WsdMessageKind,
} from '@lanterna/protocol/wsd';
import { linkOf, type NetworkLink } from './networkLinks.js';

export interface AdvertisedDisplay {
  readonly id: string;
  readonly endpoint: string;
  /**
   * AppSequence's InstanceId for this display's messages (the gateway's when
   * absent). AppSequence orders one target service's messages; a display that
   * moves to another gateway of a farm is sent from there with that gateway's
   * numbers, so its InstanceId must rise at the move: the discovery service
   * gives the time its control socket came online, in seconds.
   */
  readonly instanceId?: number | undefined;
}

export type WsdDropReason = WsdFailureReason | 'duplicate' | 'rate-limited' | 'foreign-network' | 'unsupported-match-rule' | 'no-message-id';

export type Destination =
  | { readonly kind: 'multicast'; readonly link: NetworkLink }
  | { readonly kind: 'unicast'; readonly link: NetworkLink; readonly address: string; readonly port: number };

export interface Outgoing {
  readonly kind: WsdMessageKind;
  readonly destination: Destination;
  readonly bytes: Uint8Array;
  /** When each copy goes, in ms from now (the first includes the random answer delay). */
  readonly sendAtMs: readonly number[];
}

export interface Received {
  /** The message read, when it was read. */
  readonly kind?: WsdMessageKind | undefined;
  readonly dropped?: WsdDropReason | undefined;
  readonly outgoing: readonly Outgoing[];
}

export interface ResponderCoreOptions {
  readonly instanceId: number;
  /** `http(s)://address:port/wsd/<display>` for a display reached over a link. */
  readonly xaddrOf: (displayId: string, link: NetworkLink) => string;
  readonly newMessageId: () => string;
  readonly random: () => number;
  readonly clock: () => number;
  readonly appMaxDelayMs: number;
  /** Datagrams per second one source address may have handled. */
  readonly perSourceRate: number;
}

const REMEMBERED_MESSAGE_IDS = 4096;
const MESSAGE_ID_MEMORY_MS = 60_000;
const TRACKED_SOURCES = 4096;
/** All sources together: bounds the CPU a flood from spoofed addresses can take. */
const GLOBAL_RATE_FACTOR = 20;

interface Bucket { tokens: number; at: number }

export class WsdResponderCore {
  private messageNumber = 0;
  private displays = new Map<string, AdvertisedDisplay>();
  private readonly seen = new Map<string, number>();
  private readonly sources = new Map<string, Bucket>();
  private readonly global: Bucket;

  constructor(private readonly options: ResponderCoreOptions) {
    this.global = { tokens: options.perSourceRate * GLOBAL_RATE_FACTOR, at: options.clock() };
  }

  /**
   * The displays online now: Hello for each new one (or one online again since
   * the last call: a new InstanceId), Bye for each gone, on every link — but
   * none for those `handedOver` to another gateway of the farm: that gateway's
   * Hello announces the same endpoint there, and a Bye from here, racing it,
   * would make a presenter's computer forget a display that is online.
   */
  setDisplays(online: readonly AdvertisedDisplay[], links: readonly NetworkLink[], handedOver: ReadonlySet<string> = new Set()): Outgoing[] {
    const next = new Map(online.map((display) => [display.id, display]));
    const out: Outgoing[] = [];
    for (const [id, display] of this.displays) if (!next.has(id) && !handedOver.has(id)) out.push(...this.byes([display], links));
    for (const [id, display] of next) {
      const known = this.displays.get(id);
      if (known && known.instanceId === display.instanceId) continue;
      for (const link of links) {
        out.push(this.message({ kind: 'hello', header: this.header(display, DISCOVERY_URN), target: this.describe(display, link) }, { kind: 'multicast', link }, this.answerDelay(true)));
      }
    }
    this.displays = next;
    return out;
  }

  /** The gateway drains: Bye for every display, and nothing announced any more. */
  byeAll(links: readonly NetworkLink[]): Outgoing[] {
    const out = this.byes([...this.displays.values()], links);
    this.displays.clear();
    return out;
  }

  /** One datagram, from `from`, sent to a group (`multicast`) or to our port directly. */
  receive(bytes: Uint8Array, from: { address: string; port: number }, multicast: boolean, links: readonly NetworkLink[]): Received {
    const link = linkOf(from.address, links);
    if (!link) return { dropped: 'foreign-network', outgoing: [] };
    if (!this.admit(from.address)) return { dropped: 'rate-limited', outgoing: [] };
    const read = readWsdMessage(bytes);
    if (!read.ok) return { dropped: read.reason, outgoing: [] };
    const { message } = read;
    const id = message.header.messageId;
    if (!id) return { kind: message.kind, dropped: 'no-message-id', outgoing: [] };
    if (this.remember(id)) return { kind: message.kind, dropped: 'duplicate', outgoing: [] };
    const reply: Destination = { kind: 'unicast', link, address: from.address, port: from.port };
    if (message.kind === 'probe') {
      const outgoing: Outgoing[] = [];
      for (const display of this.displays.values()) {
        const target = this.describe(display, link);
        const verdict = probeMatches(message.probe, target);
        if (verdict === 'unsupported-rule') return { kind: 'probe', dropped: 'unsupported-match-rule', outgoing: [] };
        if (verdict === 'match') {
          outgoing.push(this.message({ kind: 'probe-matches', header: this.header(display, ANONYMOUS, id), matches: [target] }, reply, this.answerDelay(multicast)));
        }
      }
      return { kind: 'probe', outgoing };
    }
    if (message.kind === 'resolve') {
      const display = [...this.displays.values()].find((candidate) => candidate.endpoint === message.endpoint);
      if (!display) return { kind: 'resolve', outgoing: [] };
      return { kind: 'resolve', outgoing: [this.message({ kind: 'resolve-matches', header: this.header(display, ANONYMOUS, id), matches: [this.describe(display, link)] }, reply, this.answerDelay(multicast))] };
    }
    // Hello, Bye and matches from other devices, and anything else: read, counted, not answered.
    return { kind: message.kind, outgoing: [] };
  }

  private byes(displays: readonly AdvertisedDisplay[], links: readonly NetworkLink[]): Outgoing[] {
    return displays.flatMap((display) => links.map((link) => this.message({ kind: 'bye', header: this.header(display, DISCOVERY_URN), endpoint: display.endpoint }, { kind: 'multicast', link }, 0)));
  }

  private describe(display: AdvertisedDisplay, link: NetworkLink): TargetDescription {
    return {
      endpoint: display.endpoint,
      types: [DEVICE_TYPE, DISPLAY_TYPE],
      scopes: [`urn:lanterna:display:${encodeURIComponent(display.id)}`],
      xaddrs: [this.options.xaddrOf(display.id, link)],
      // Metadata is read again when the display is announced again (a restart, a reconnect, a move).
      metadataVersion: display.instanceId ?? this.options.instanceId,
    };
  }

  private header(display: AdvertisedDisplay, to: string, relatesTo?: string): WsdMessage['header'] {
    this.messageNumber += 1;
    const instanceId = display.instanceId ?? this.options.instanceId;
    return { messageId: this.options.newMessageId(), to, relatesTo, appSequence: { instanceId, messageNumber: this.messageNumber } };
  }

  private message(message: WsdMessage, destination: Destination, delayMs: number): Outgoing {
    const multicast = destination.kind === 'multicast';
    return {
      kind: message.kind, destination, bytes: utf8Bytes(writeWsdMessage(message)),
      sendAtMs: repetitionSchedule(multicast, this.options.random).map((at) => at + delayMs),
    };
  }

  /** WS-Discovery's APP_MAX_DELAY: many devices answering one multicast request spread their answers. */
  private answerDelay(multicast: boolean): number {
    return multicast ? Math.floor(this.options.random() * (this.options.appMaxDelayMs + 1)) : 0;
  }

  /** True when the id was seen in the last minute (the copies SOAP-over-UDP repeats, or a replay). */
  private remember(id: string): boolean {
    const now = this.options.clock();
    const seenAt = this.seen.get(id);
    if (seenAt !== undefined && now - seenAt < MESSAGE_ID_MEMORY_MS) return true;
    this.seen.delete(id);
    this.seen.set(id, now);
    if (this.seen.size > REMEMBERED_MESSAGE_IDS) {
      const oldest = this.seen.keys().next().value;
      if (oldest !== undefined) this.seen.delete(oldest);
    }
    return false;
  }

  private admit(source: string): boolean {
    const now = this.options.clock();
    const rate = this.options.perSourceRate;
    if (!take(this.global, now, rate * GLOBAL_RATE_FACTOR)) return false;
    let bucket = this.sources.get(source);
    if (!bucket) {
      bucket = { tokens: rate, at: now };
      this.sources.set(source, bucket);
      if (this.sources.size > TRACKED_SOURCES) {
        const oldest = this.sources.keys().next().value;
        if (oldest !== undefined) this.sources.delete(oldest);
      }
    }
    return take(bucket, now, rate);
  }
}

/** A token bucket holding at most one second's worth. */
function take(bucket: Bucket, now: number, ratePerSecond: number): boolean {
  bucket.tokens = Math.min(ratePerSecond, bucket.tokens + ((now - bucket.at) / 1000) * ratePerSecond);
  bucket.at = now;
  if (bucket.tokens < 1) return false;
  bucket.tokens -= 1;
  return true;
}
