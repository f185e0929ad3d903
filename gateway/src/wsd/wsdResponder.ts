// The WS-Discovery responder's sockets: UDP 3702 joined to 239.255.255.250
// (and ff02::c) on each configured interface, one sending socket per link
// (multicast TTL 1, the link's address as source), timers for SOAP-over-UDP's
// copies. Every decision is WsdResponderCore's; this only moves datagrams.
// One per gateway: the cluster primary (or the single process) runs it.
import { createSocket, type RemoteInfo, type Socket } from 'node:dgram';
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { WSD_IPV4_GROUP, WSD_IPV6_GROUP, WSD_PORT } from '@lanterna/protocol/wsd';
import { discoveryLinks, type NetworkLink } from './networkLinks.js';
import { WsdResponderCore, type AdvertisedDisplay, type Outgoing } from './wsdResponderCore.js';
import type { WsdUdpMetrics } from '../metrics/gatewayMetrics.js';

export interface AnnouncedDisplays {
  readonly online: readonly AdvertisedDisplay[];
  /** Gone from here because another gateway holds them now: no Bye (see WsdResponderCore.setDisplays). */
  readonly handedOver?: ReadonlySet<string> | undefined;
}

export interface WsdResponderOptions {
  readonly interfaces: readonly string[];
  readonly ipv6: boolean;
  readonly appMaxDelayMs: number;
  readonly perSourceRate: number;
  readonly instanceId: number;
  /** The gateway's listener, for XAddrs. */
  readonly listen: { readonly port: number; readonly tls: boolean };
  /** The displays this responder announces now (ids and endpoints), and those another gateway of the farm took over. */
  readonly online: () => Promise<AnnouncedDisplays>;
  readonly logger: Logger;
  readonly metrics: WsdUdpMetrics;
  /** The UDP port to serve (3702; tests and benches may move it). */
  readonly port?: number | undefined;
}

/**
 * Room for a burst (a flood, or many presenters at once) while the event loop
 * is busy; the kernel caps it at net.core.rmem_max.
 */
const RECEIVE_BUFFER_BYTES = 1024 * 1024;
/** SOAP-over-UDP's last copy goes 1.25 s after the first at most; Bye gets that long at close. */
const BYE_GRACE_MS = 1500;

function hostInUrl(link: NetworkLink): string {
  return link.family === 'IPv6' ? `[${link.address}]` : link.address;
}

export class WsdResponder {
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly senders = new Map<NetworkLink, Socket>();
  private readonly receivers: Socket[] = [];
  private readonly ownPorts = new Set<number>();
  private refreshing: Promise<void> = Promise.resolve();
  private closed = false;

  private constructor(private readonly options: WsdResponderOptions, private readonly links: NetworkLink[], private readonly core: WsdResponderCore) {}

  static async start(options: WsdResponderOptions): Promise<WsdResponder> {
    const links = discoveryLinks(options.interfaces, options.ipv6);
    const scheme = options.listen.tls ? 'https' : 'http';
    const core = new WsdResponderCore({
      instanceId: options.instanceId,
      xaddrOf: (displayId, link) => `${scheme}://${hostInUrl(link)}:${options.listen.port}/wsd/${encodeURIComponent(displayId)}`,
      newMessageId: () => `urn:uuid:${randomUUID()}`,
      random: Math.random,
      clock: Date.now,
      appMaxDelayMs: options.appMaxDelayMs,
      perSourceRate: options.perSourceRate,
    });
    const responder = new WsdResponder(options, links, core);
    try {
      await responder.open();
    } catch (error) {
      responder.closeSockets();
      throw error;
    }
    options.logger.info({ event: 'wsd-listening', links: links.map((link) => `${link.interfaceName}/${link.address}`), port: options.port ?? WSD_PORT, instanceId: options.instanceId },
      links.length > 0 ? 'WS-Discovery responder listening' : 'WS-Discovery responder has no interface address to serve');
    return responder;
  }

  /** Presence changed somewhere: announce what came online, say Bye for what went. Calls run one after another. */
  refresh(): Promise<void> {
    this.refreshing = this.refreshing.then(async () => {
      if (this.closed) return;
      const { online, handedOver } = await this.options.online();
      // close() may have run while presence was read
      if (!this.isClosed()) this.send(this.core.setDisplays(online, this.links, handedOver));
    }).catch((error: unknown) => this.options.logger.error({ event: 'wsd-refresh-failed', err: error }, 'could not read display presence'));
    return this.refreshing;
  }

  /** Bye for every display (its copies get BYE_GRACE_MS), then the sockets close. */
  async close(): Promise<void> {
    if (this.closed) return;
    await this.refreshing;
    this.closed = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    const byes = this.core.byeAll(this.links);
    this.send(byes);
    if (byes.length > 0) {
      await new Promise<void>((resolve) => {
        const check = setInterval(() => { if (this.timers.size === 0) { clearInterval(check); resolve(); } }, 20);
        setTimeout(() => { clearInterval(check); resolve(); }, BYE_GRACE_MS);
      });
    }
    this.closeSockets();
  }

  private isClosed(): boolean {
    return this.closed;
  }

  private async open(): Promise<void> {
    const port = this.options.port ?? WSD_PORT;
    const v4 = this.links.filter((link) => link.family === 'IPv4');
    const v6 = this.links.filter((link) => link.family === 'IPv6');
    if (v4.length > 0) {
      const socket = await this.bind(createSocket({ type: 'udp4', reuseAddr: true }), port, '0.0.0.0');
      for (const link of v4) socket.addMembership(WSD_IPV4_GROUP, link.address);
      socket.setRecvBufferSize(RECEIVE_BUFFER_BYTES);
      this.listen(socket, true);
    }
    if (v6.length > 0) {
      const socket = await this.bind(createSocket({ type: 'udp6', reuseAddr: true, ipv6Only: true }), port, '::');
      for (const link of v6) socket.addMembership(WSD_IPV6_GROUP, `::%${link.interfaceName}`);
      socket.setRecvBufferSize(RECEIVE_BUFFER_BYTES);
      this.listen(socket, true);
    }
    for (const link of this.links) {
      const v6link = link.family === 'IPv6';
      const sender = await this.bind(createSocket({ type: v6link ? 'udp6' : 'udp4' }), 0, v6link ? `${link.address}%${link.interfaceName}` : link.address);
      sender.setMulticastInterface(v6link ? `::%${link.interfaceName}` : link.address);
      sender.setMulticastTTL(1); // link scope: discovery stays on the LAN segment
      sender.setMulticastLoopback(true); // a presenter on this machine hears Hello too
      this.ownPorts.add(sender.address().port);
      // Replies to a multicast Probe may come back here; they are read like any datagram.
      this.listen(sender, false);
      this.senders.set(link, sender);
    }
  }

  private bind(socket: Socket, port: number, address: string): Promise<Socket> {
    this.receivers.push(socket);
    return new Promise((resolve, reject) => {
      socket.once('error', reject);
      socket.bind(port, address, () => {
        socket.off('error', reject);
        socket.on('error', (error) => this.options.logger.warn({ event: 'wsd-socket-error', err: error }, 'WS-Discovery socket error'));
        resolve(socket);
      });
    });
  }

  /**
   * `group`: the socket bound to 3702 hears the groups and datagrams sent to
   * the port directly alike (Node gives no IP_PKTINFO to tell them apart), so
   * all its requests get the multicast answer delay; a sending socket only
   * hears unicast.
   */
  private listen(socket: Socket, group: boolean): void {
    socket.on('message', (bytes: Buffer, from: RemoteInfo) => this.onDatagram(group, bytes, from));
  }

  private onDatagram(multicast: boolean, bytes: Buffer, from: RemoteInfo): void {
    if (this.closed) return;
    // Our own multicast, looped back: not a peer's message.
    if (this.ownPorts.has(from.port) && this.links.some((link) => from.address.split('%')[0] === link.address)) return;
    const { metrics } = this.options;
    const started = process.hrtime.bigint();
    const result = this.core.receive(bytes, { address: from.address, port: from.port }, multicast, this.links);
    metrics.handleSeconds.observe(Number(process.hrtime.bigint() - started) / 1e9);
    if (result.kind) metrics.datagrams.inc({ direction: 'in', kind: result.kind });
    if (result.dropped) {
      metrics.dropped.inc({ reason: result.dropped });
      this.options.logger.debug({ event: 'wsd-dropped', reason: result.dropped, from: from.address }, 'WS-Discovery datagram dropped');
    }
    this.send(result.outgoing);
  }

  private send(outgoing: readonly Outgoing[]): void {
    for (const message of outgoing) {
      for (const at of message.sendAtMs) {
        if (at <= 0) {
          this.transmit(message);
          continue;
        }
        const timer = setTimeout(() => {
          this.timers.delete(timer);
          this.transmit(message);
        }, at);
        this.timers.add(timer);
      }
    }
  }

  private transmit(message: Outgoing): void {
    const { destination } = message;
    const sender = this.senders.get(destination.link);
    if (!sender) return;
    const v6 = destination.link.family === 'IPv6';
    let address: string;
    if (destination.kind === 'multicast') address = v6 ? `${WSD_IPV6_GROUP}%${destination.link.interfaceName}` : WSD_IPV4_GROUP;
    else address = v6 && !destination.address.includes('%') && destination.address.toLowerCase().startsWith('fe80:') ? `${destination.address}%${destination.link.interfaceName}` : destination.address;
    const port = destination.kind === 'multicast' ? this.options.port ?? WSD_PORT : destination.port;
    this.options.metrics.datagrams.inc({ direction: 'out', kind: message.kind });
    sender.send(message.bytes, port, address, (error) => {
      if (error) this.options.logger.warn({ event: 'wsd-send-failed', err: error, to: address }, 'WS-Discovery datagram not sent');
    });
  }

  private closeSockets(): void {
    for (const socket of this.receivers) {
      try {
        socket.close();
      } catch { /* already closed */ }
    }
    this.receivers.length = 0;
    this.senders.clear();
  }
}
