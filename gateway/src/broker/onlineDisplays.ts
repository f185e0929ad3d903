// Which displays are online, on which socket, showing how many sources at
// once, and whether one is presenting. A presence lives in the store (one per
// display: the last control socket to authenticate wins, on any worker or
// gateway), so every part of a farm answers the same.
import { MAX_ROOM_SLOTS } from '@lanterna/protocol';
import type { BrokerStore } from './brokerStore.js';
import type { PublishEvent } from './brokerEvents.js';
import { newPresenceOwner } from './presenceOwner.js';

/**
 * offline: no control socket; presenting: a presenter's session minted (and
 * not expired), opening or relaying; a signage display showing its own
 * autoProject target is idle.
 */
export type DisplayState = 'offline' | 'idle' | 'presenting';

export interface OnlineDisplaysDeps {
  store: BrokerStore;
  publish: PublishEvent;
  /** Ms since the epoch; composeBroker gives every part the same one. */
  clock: () => number;
  /** This gateway instance's tag (presenceOwner.ts): presences it records name it. */
  instanceTag?: string | undefined;
}

export class OnlineDisplays {
  constructor(private readonly deps: OnlineDisplaysDeps) {}

  /**
   * A control socket authenticated for the display: it takes the display over
   * (any other socket of it, on any worker, is replaced) and its signage
   * backoff starts again. Returns the owner id that tells the sockets apart.
   */
  async displayOnline(displayId: string, slots = 1): Promise<string> {
    const owner = newPresenceOwner(this.deps.instanceTag);
    this.deps.publish({ kind: 'display-claimed', displayId, owner });
    await Promise.all([
      this.deps.store.setPresence({ displayId, owner, since: this.deps.clock(), ...(slots > 1 ? { slots: Math.min(slots, MAX_ROOM_SLOTS) } : {}) }),
      this.deps.store.setReprojection(displayId, undefined),
    ]);
    return owner;
  }

  /** The socket `owner` closed: only its own presence goes (a newer socket of the display keeps it online). */
  async displayOffline(displayId: string, owner: string): Promise<void> {
    await this.deps.store.clearPresence(displayId, owner);
  }

  /** How many sources the display's page shows at once (its control socket said so): 1 unless it announced `slots`. */
  async slotCapacity(displayId: string): Promise<number> {
    const presence = (await this.deps.store.listPresence()).find((entry) => entry.displayId === displayId);
    return Math.max(1, Math.min(presence?.slots ?? 1, MAX_ROOM_SLOTS));
  }

  /**
   * offline: no control socket; presenting: booked for a presenter's session
   * (minted and not expired, opening or relaying: the booking is the one busy
   * check); a signage display showing its own autoProject target is idle.
   */
  async displayState(displayId: string): Promise<DisplayState> {
    const { store } = this.deps;
    const [presence, bookings] = await Promise.all([store.listPresence(), store.listBookings(displayId)]);
    if (!presence.some((entry) => entry.displayId === displayId)) return 'offline';
    // A signage display showing its own autoProject target is free for a presenter: it gives way, and comes back after.
    const records = await Promise.all(bookings.map((booking) => store.getSession(booking.sessionId)));
    return records.some((record) => record !== undefined && record.requestedBy?.kind !== 'signage' && record.state !== 'ended') ? 'presenting' : 'idle';
  }
}
