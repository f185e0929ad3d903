import { isIP, type Socket } from 'node:net';
import type { WebSocket } from 'ws';
import { canonicalAddress } from '../policy/canonicalHost.js';
import { PendingSockets } from './pendingSockets.js';
import { sourceKey } from '../broker/pinAttempts.js';

export interface ConnectionLimitOptions {
  /** Open TCP connections from one source address (behind a proxy: the proxy's, so raise it there). */
  perAddressConnections: number;
  /** Open TCP connections from one IPv6 /64 (one host picks addresses from it at will; a LAN's displays share one too). */
  perNetworkConnections: number;
  /** WebSockets that have not yet authenticated (no hello or open accepted yet). */
  maxPendingSockets: number;
  /** Of those, from one source (IPv4 address, IPv6 /64). */
  perSourcePendingSockets: number;
}

/**
 * The listener's own budget, before any token is checked: a building full of
 * laptops must not be able to take it all. Connections are counted per source
 * address; WebSockets are "pending" from the upgrade until their channel says
 * they authenticated (or they close), in places per source that strangers
 * cannot hold against a display (pendingSockets.ts says how).
 */
export class ConnectionLimits {
  private readonly perAddress = new Map<string, number>();
  private readonly perNetwork = new Map<string, number>();
  private readonly pending: PendingSockets<WebSocket>;
  refusedConnections = 0;

  constructor(private readonly options: ConnectionLimitOptions) {
    this.pending = new PendingSockets(options);
  }

  /**
   * Counts a new TCP connection; false (and the caller drops it) when its
   * address is over the limit. A connection with no IP peer is over our Unix
   * socket from the native data plane, which counts its clients' addresses at
   * accept: all of them under one name here would share one budget.
   */
  admitConnection(socket: Socket): boolean {
    if (socket.remoteAddress === undefined && isUnixSocket(socket)) return true;
    const release = this.admitAddress(socket.remoteAddress ?? 'unknown');
    if (!release) return false;
    socket.once('close', release);
    return true;
  }

  /** Counts a connection from `peer` under its address (and its /64 when IPv6); the release, or undefined when over a limit. */
  admitAddress(peer: string): (() => void) | undefined {
    const address = canonicalAddress(peer);
    const network = isIP(address) === 6 ? sourceKey(address) : undefined;
    if ((this.perAddress.get(address) ?? 0) >= this.options.perAddressConnections
      || (network !== undefined && (this.perNetwork.get(network) ?? 0) >= this.options.perNetworkConnections)) {
      this.refusedConnections += 1;
      return undefined;
    }
    increment(this.perAddress, address, 1);
    if (network !== undefined) increment(this.perNetwork, network, 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      increment(this.perAddress, address, -1);
      if (network !== undefined) increment(this.perNetwork, network, -1);
    };
  }

  /**
   * A WebSocket accepted from `address` (the client's) and not yet
   * authenticated; returns the pending socket that gave up its place for it,
   * which the caller closes.
   */
  addPending(socket: WebSocket, address: string | undefined): WebSocket | undefined {
    const evicted = this.pending.admit(socket, address);
    socket.once('close', () => this.pending.release(socket));
    return evicted;
  }

  /** Its channel accepted the socket's token: it no longer counts against the pending budget. */
  authenticated(socket: WebSocket): void {
    this.pending.release(socket);
  }

  get pendingCount(): number {
    return this.pending.size;
  }

  /** Pending sockets closed to make room, since start. */
  get evictedPending(): number {
    return this.pending.evicted;
  }

  connectionsFrom(address: string): number {
    return this.perAddress.get(canonicalAddress(address)) ?? 0;
  }
}

function increment(counts: Map<string, number>, key: string, delta: number): void {
  const next = (counts.get(key) ?? 0) + delta;
  if (next <= 0) counts.delete(key);
  else counts.set(key, next);
}

/** A socket of a Unix-socket server: its own address is a path (or empty), never an IP. */
function isUnixSocket(socket: Socket): boolean {
  const local: unknown = socket.address();
  return typeof local === 'string' || (typeof local === 'object' && local !== null && !('family' in local));
}
