// The places for WebSockets that have not shown a token yet
// (limits.maxPendingSockets), per source: an IPv4 address, or an IPv6 /64
// (one host picks addresses from a whole /64 at will). Pure: the listener
// closes whatever this tells it to.
//
// Why eviction and not a reserve: a display's token comes in its first
// message, after the upgrade, so at the upgrade nothing tells a display from
// a stranger, and a reserve would fill with strangers like the pool. What
// tells them apart is time: a display sends its token within one round trip
// and leaves the pool; a stranger holding places stays. So no upgrade is
// refused for want of a place. A newcomer from a source already holding its
// share (limits.perSourcePendingSockets) takes the place of that source's
// oldest pending socket; a newcomer finding the pool full takes the place of
// the oldest pending socket of the source holding the most. Strangers can
// only churn their own places: one at its share never touches another
// source's, and filling the pool takes maxPending / perSource sources, whose
// oldest sockets go first when anyone else arrives. (The Go front door keeps
// the data sockets' pool the same way: gateway/dataplane/internal/frontdoor/pending.go.)
import { sourceKey } from '../broker/pinAttempts.js';

export interface PendingLimits {
  /** Pending sockets in all. */
  readonly maxPendingSockets: number;
  /** Pending sockets from one source (IPv4 address, IPv6 /64). */
  readonly perSourcePendingSockets: number;
}

export class PendingSockets<T> {
  /** Each source's pending sockets, oldest first (a Set keeps insertion order). */
  private readonly bySource = new Map<string, Set<T>>();
  private readonly sourceOf = new Map<T, string>();
  /** Sockets closed to make room, since start. */
  evicted = 0;

  constructor(private readonly limits: PendingLimits) {}

  get size(): number {
    return this.sourceOf.size;
  }

  /** Pending sockets from the source `address` belongs to. */
  heldBy(address: string | undefined): number {
    return this.bySource.get(sourceKey(address))?.size ?? 0;
  }

  /**
   * Holds a place for `socket` from `address`; returns the socket that gave
   * its place up for it (no longer counted: the caller closes it), if any.
   */
  admit(socket: T, address: string | undefined): T | undefined {
    const source = sourceKey(address);
    let victim: T | undefined;
    const own = this.bySource.get(source);
    if (own && own.size >= this.limits.perSourcePendingSockets) victim = first(own);
    else if (this.size >= this.limits.maxPendingSockets) victim = this.oldestOfLargest();
    if (victim !== undefined) {
      this.release(victim);
      this.evicted += 1;
    }
    const held = this.bySource.get(source) ?? new Set<T>();
    held.add(socket);
    this.bySource.set(source, held);
    this.sourceOf.set(socket, source);
    return victim;
  }

  /** The socket authenticated or closed: its place is free. */
  release(socket: T): void {
    const source = this.sourceOf.get(socket);
    if (source === undefined) return;
    this.sourceOf.delete(socket);
    const held = this.bySource.get(source);
    held?.delete(socket);
    if (held?.size === 0) this.bySource.delete(source);
  }

  /** The oldest socket of the source holding the most places (the oldest of them among equals). */
  private oldestOfLargest(): T | undefined {
    let largest = 0;
    for (const held of this.bySource.values()) largest = Math.max(largest, held.size);
    // sourceOf is in admission order: the first socket whose source is that large is the oldest.
    for (const [socket, source] of this.sourceOf) if (this.bySource.get(source)?.size === largest) return socket;
    return undefined;
  }
}

function first<T>(set: Set<T>): T | undefined {
  for (const item of set) return item;
  return undefined;
}
