// A meeting room's decisions (issue 29): where a presenter's request goes
// (a free slot, the queue, or a take-over), what the moderator decides (accept
// into a slot, decline, end a source, the layout and which source is large,
// the mode, the host), and where each request stands for its presenter's page.
// Every decision is a compare-and-set in the store, so two gateways (or two
// moderators) deciding at once leave one outcome, and every decision leaves
// an audit entry in words. No sockets, no timers.
import { MAX_ROOM_SLOTS, ROOM_LAYOUTS, slotRects, type RoomLayout, type RoomMode } from '@lanterna/protocol';
import type { SealedBox } from '../session/sealedBox.js';
import { SessionTokenSigner } from '../session/sessionToken.js';
import type { BrokerStore, DisplayBooking, Requester, RoomRequest, RoomSettings, SessionRecord } from './brokerStore.js';
import type { PublishEvent } from './brokerEvents.js';
import { actorName, type AuditLog } from './auditLog.js';
import type { ProjectionRequest } from './sessionMint.js';
import type { ProjectionDesk } from './projectionDesk.js';
import type { OnlineDisplays } from './onlineDisplays.js';
import type { SessionLifecycle } from './sessionLifecycle.js';

/** Most requests one display's queue holds; past it a request is refused `queue-full`. */
export const MAX_WAITING_REQUESTS = 8;

export const DEFAULT_ROOM_SETTINGS: Omit<RoomSettings, 'updatedAt'> = { mode: 'open', layout: 'grid', large: 0 };

/** What a presenter's request became when it was made. */
export type RoomEntry =
  | { readonly ok: true; readonly state: 'on-screen'; readonly requestId: string; readonly sessionId: string; readonly slot: number; readonly tookOver?: string | undefined }
  | { readonly ok: true; readonly state: 'waiting'; readonly requestId: string; readonly position: number }
  | { readonly ok: false; readonly code: 'display-busy' | 'queue-full'; readonly reason: string };

/** A moderator's decision that could not be made. */
export type RoomRefusal = { readonly ok: false; readonly code: 'no-request' | 'not-waiting' | 'room-full' | 'bad-slot' | 'not-host'; readonly reason: string };

/** One slot as the admin and the display see it. */
export interface SlotView {
  readonly slot: number;
  readonly sessionId: string;
  readonly label: string;
  readonly requestId?: string | undefined;
  readonly state?: SessionRecord['state'] | undefined;
  readonly since?: number | undefined;
  readonly host: boolean;
  /** Its presenter lets people at the display control the computer (issue 30). */
  readonly touch: boolean;
  /** Fractions of the panel (protocol's slotRects). */
  readonly rect: { x: number; y: number; width: number; height: number };
}

export interface RoomView {
  readonly displayId: string;
  readonly mode: RoomMode;
  readonly layout: RoomLayout;
  readonly large: number;
  readonly hostRequestId?: string | undefined;
  /** How many sources the display's page shows at once now. */
  readonly capacity: number;
  readonly slots: SlotView[];
  /** Waiting requests, oldest first (no secrets: the sealed request stays in the store). */
  readonly queue: PublicRequest[];
}

/** A request without what it carries sealed. */
export type PublicRequest = Omit<RoomRequest, 'sealed'> & { readonly position?: number | undefined };

export interface RoomRequestsDeps {
  /** Books and mints a source's session: a free slot, or a take-over. */
  projections: Pick<ProjectionDesk, 'joinFreeSlot' | 'takeOverSlot'>;
  presence: Pick<OnlineDisplays, 'slotCapacity'>;
  sessions: Pick<SessionLifecycle, 'stopSession'>;
  auditLog: AuditLog;
  store: BrokerStore;
  /** Seals the waiting request (credentials) until the moderator accepts it; without it a moderated room cannot queue. */
  sealer?: SealedBox | undefined;
  publish: PublishEvent;
  clock?: () => number;
}

/** The label a source shows: the name the presenter gave, else the computer's. */
function labelOf(request: ProjectionRequest, name: string | undefined): string {
  const label = name ?? request.requestedBy?.name ?? request.target.name ?? request.target.host;
  return label.slice(0, 100);
}

function publicRequest(request: RoomRequest, position?: number): PublicRequest {
  const { sealed: _sealed, ...rest } = request;
  return position === undefined ? rest : { ...rest, position };
}

export class RoomRequests {
  private readonly clock: () => number;

  constructor(private readonly deps: RoomRequestsDeps) {
    this.clock = deps.clock ?? Date.now;
  }

  async settings(displayId: string): Promise<RoomSettings> {
    return (await this.deps.store.getRoomSettings(displayId)) ?? { ...DEFAULT_ROOM_SETTINGS, updatedAt: 0 };
  }

  /**
   * A presenter's request that passed the PIN and the target policy. Open
   * room (or an administrator asking): the lowest free slot, else with
   * `takeOver` the named slot (or the one showing longest) changes hands,
   * else `display-busy`. Moderated room: the request waits in the queue.
   */
  async enter(request: ProjectionRequest, options: { name?: string | undefined; takeOver?: boolean | undefined; slot?: number | undefined; admin?: boolean | undefined }): Promise<RoomEntry> {
    const { store, projections, auditLog } = this.deps;
    const settings = await this.settings(request.displayId);
    const requestId = SessionTokenSigner.newSessionId();
    const now = this.clock();
    const base: RoomRequest = {
      requestId, displayId: request.displayId, state: 'waiting', at: now, label: labelOf(request, options.name),
      requestedBy: request.requestedBy, target: request.browser === true ? 'browser' : `${request.target.host}:${String(request.target.port)}`,
      ...(options.takeOver === true ? { takeOver: true } : {}),
    };
    const actor = actorName(request.requestedBy);
    if (settings.mode === 'moderated' && options.admin !== true) {
      if (!this.deps.sealer) return { ok: false, code: 'display-busy', reason: 'this gateway cannot keep a request waiting (no session secret)' };
      const waiting: RoomRequest = { ...base, sealed: this.deps.sealer.seal(request) };
      if (!await store.createRoomRequest(waiting, MAX_WAITING_REQUESTS)) {
        return { ok: false, code: 'queue-full', reason: `${String(MAX_WAITING_REQUESTS)} requests already wait for this display's moderator` };
      }
      const position = (await this.queue(request.displayId)).findIndex((entry) => entry.requestId === requestId) + 1;
      await auditLog.record(request.requestedBy, 'room-request-queued', { displayId: request.displayId, detail: { request: requestId, label: base.label, words: `${actor} asked to present "${base.label}" and waits for the moderator (place ${String(position)})` } });
      return { ok: true, state: 'waiting', requestId, position };
    }
    const withId: ProjectionRequest = { ...request, requestId };
    // The record first, so the session's end always finds it.
    const onScreen: RoomRequest = { ...base, state: 'on-screen', sessionId: requestId };
    if (!await store.createRoomRequest(onScreen, MAX_WAITING_REQUESTS)) return { ok: false, code: 'queue-full', reason: 'the gateway keeps too many requests' };
    const joined = await projections.joinFreeSlot(withId);
    if (joined) {
      await store.updateRoomRequest(requestId, ['on-screen'], { ...onScreen, slot: joined.slot });
      await auditLog.record(request.requestedBy, 'room-request-accepted', { displayId: request.displayId, sessionId: requestId, detail: { request: requestId, slot: joined.slot, words: `${actor} joined free slot ${String(joined.slot + 1)} as "${base.label}" (open room)` } });
      return { ok: true, state: 'on-screen', requestId, sessionId: joined.sessionId, slot: joined.slot };
    }
    if (options.takeOver === true) {
      const victim = await this.takeOverTarget(request.displayId, options.slot);
      if (victim) {
        const words = `taken over by "${base.label}" (${actor})`;
        const taken = await projections.takeOverSlot(withId, victim.slot ?? 0, victim.sessionId, `taken over by ${base.label}`, (holder) => this.sourceReplaced(holder, actor, words));
        if (taken) {
          await store.updateRoomRequest(requestId, ['on-screen'], { ...onScreen, slot: taken.slot });
          await auditLog.record(request.requestedBy, 'room-slot-taken-over', { displayId: request.displayId, sessionId: requestId, detail: { request: requestId, slot: taken.slot, previous: victim.sessionId, words: `${actor} took slot ${String(taken.slot + 1)} over as "${base.label}" (open room)` } });
          return { ok: true, state: 'on-screen', requestId, sessionId: taken.sessionId, slot: taken.slot, tookOver: victim.sessionId };
        }
      }
    }
    await store.updateRoomRequest(requestId, ['on-screen'], { ...onScreen, state: 'ended', decidedAt: this.clock(), decidedBy: 'gateway', reason: 'every slot was taken' });
    return { ok: false, code: 'display-busy', reason: `display "${request.displayId}" shows a presentation in every slot it has: ask with takeOver to replace one` };
  }

  /** The slot a take-over replaces: the one asked for, else the source that has been on screen longest; never the host's. */
  private async takeOverTarget(displayId: string, slot: number | undefined): Promise<DisplayBooking | undefined> {
    const [bookings, settings] = await Promise.all([this.deps.store.listBookings(displayId), this.settings(displayId)]);
    const sessions = await Promise.all(bookings.map((booking) => this.deps.store.getSession(booking.sessionId)));
    const candidates = bookings
      .map((booking, index) => ({ booking, session: sessions[index] }))
      .filter(({ session }) => session?.requestId === undefined || session.requestId !== settings.hostRequestId)
      .filter(({ booking }) => slot === undefined || (booking.slot ?? 0) === slot)
      .sort((a, b) => (a.session?.mintedAt ?? 0) - (b.session?.mintedAt ?? 0));
    return candidates[0]?.booking;
  }

  /** The request of a session that lost its slot says who took it. */
  private async sourceReplaced(sessionId: string, actor: string, words: string): Promise<void> {
    const record = await this.deps.store.getSession(sessionId);
    if (record?.requestId === undefined) return;
    const request = await this.deps.store.getRoomRequest(record.requestId);
    if (request?.state !== 'on-screen') return;
    await this.deps.store.updateRoomRequest(request.requestId, ['on-screen'], { ...request, state: 'ended', decidedAt: this.clock(), decidedBy: actor, reason: words });
  }

  /** The moderator lets a waiting request on screen: into `slot` (taking it over when held), else the lowest free slot. */
  async accept(displayId: string, requestId: string, slot: number | undefined, by: Requester): Promise<{ ok: true; request: PublicRequest } | RoomRefusal> {
    const { store, projections, presence, auditLog } = this.deps;
    const request = await store.getRoomRequest(requestId);
    if (request?.displayId !== displayId) return { ok: false, code: 'no-request', reason: `no request "${requestId}" for display "${displayId}"` };
    if (request.state !== 'waiting' || request.sealed === undefined) return { ok: false, code: 'not-waiting', reason: `the request is ${request.state}, not waiting` };
    const opened = this.deps.sealer?.open(request.sealed) as ProjectionRequest | undefined;
    if (!opened) return { ok: false, code: 'no-request', reason: 'the request cannot be opened by this gateway (another session secret?)' };
    const capacity = await presence.slotCapacity(displayId);
    if (slot !== undefined && slot >= capacity) return { ok: false, code: 'bad-slot', reason: `the display shows ${String(capacity)} source${capacity === 1 ? '' : 's'} at once: slots 0..${String(capacity - 1)}` };
    // The decision is taken first (one moderator wins), then the slot; a slot that cannot be had puts the request back.
    const actor = actorName(by);
    const taking = await store.updateRoomRequest(requestId, ['waiting'], { ...request, state: 'on-screen', sessionId: requestId, decidedAt: this.clock(), decidedBy: actor });
    if (!taking) return { ok: false, code: 'not-waiting', reason: 'another moderator decided first' };
    const withId: ProjectionRequest = { ...opened, requestId };
    let placed: { sessionId: string; slot: number } | undefined;
    let previous: string | undefined;
    if (slot === undefined) {
      placed = await projections.joinFreeSlot(withId);
    } else {
      previous = (await store.getBooking(displayId, slot))?.sessionId;
      const words = `replaced by "${request.label}" (${actor})`;
      placed = await projections.takeOverSlot(withId, slot, previous, words, (holder) => this.sourceReplaced(holder, actor, words));
    }
    if (!placed) {
      await store.updateRoomRequest(requestId, ['on-screen'], request);
      return { ok: false, code: 'room-full', reason: 'every slot is taken: name the slot to replace, or end a source first' };
    }
    const onScreen = await store.updateRoomRequest(requestId, ['on-screen'], { ...taking, slot: placed.slot, sealed: undefined }) ?? taking;
    await auditLog.record(by, 'room-request-accepted', {
      displayId, sessionId: requestId,
      detail: { request: requestId, slot: placed.slot, words: `${actor} accepted "${request.label}" into slot ${String(placed.slot + 1)}${previous === undefined ? '' : ', replacing the source there'}` },
    });
    return { ok: true, request: publicRequest(onScreen) };
  }

  /** The moderator says no to a waiting request. */
  async decline(displayId: string, requestId: string, reason: string | undefined, by: Requester): Promise<{ ok: true; request: PublicRequest } | RoomRefusal> {
    const request = await this.deps.store.getRoomRequest(requestId);
    if (request?.displayId !== displayId) return { ok: false, code: 'no-request', reason: `no request "${requestId}" for display "${displayId}"` };
    const actor = actorName(by);
    const declined = await this.deps.store.updateRoomRequest(requestId, ['waiting'], {
      ...request, state: 'declined', sealed: undefined, decidedAt: this.clock(), decidedBy: actor, reason: reason ?? 'declined by the moderator',
    });
    if (!declined) return { ok: false, code: 'not-waiting', reason: `the request is ${request.state}, not waiting` };
    await this.deps.auditLog.record(by, 'room-request-declined', { displayId, detail: { request: requestId, words: `${actor} declined "${request.label}"${reason ? `: ${reason}` : ''}` } });
    return { ok: true, request: publicRequest(declined) };
  }

  /** The presenter takes a waiting request back. */
  async withdraw(displayId: string, requestId: string, by: Requester | undefined): Promise<PublicRequest | undefined> {
    const request = await this.deps.store.getRoomRequest(requestId);
    if (request?.displayId !== displayId) return undefined;
    const withdrawn = await this.deps.store.updateRoomRequest(requestId, ['waiting'], {
      ...request, state: 'withdrawn', sealed: undefined, decidedAt: this.clock(), decidedBy: actorName(by), reason: 'withdrawn by the presenter',
    });
    if (withdrawn) await this.deps.auditLog.record(by, 'room-request-withdrawn', { displayId, detail: { request: requestId, words: `"${request.label}" stopped waiting` } });
    return withdrawn ? publicRequest(withdrawn) : undefined;
  }

  /** The moderator (or the presenter) ends a source on screen: its request says by whom before its relay stops. */
  async endSource(displayId: string, slot: number, by: Requester, words?: string): Promise<{ ok: true; sessionId: string } | RoomRefusal> {
    const booking = await this.deps.store.getBooking(displayId, slot);
    if (!booking) return { ok: false, code: 'bad-slot', reason: `slot ${String(slot)} shows nothing` };
    const actor = actorName(by);
    const why = words ?? `ended by ${actor}`;
    await this.sourceReplaced(booking.sessionId, actor, why);
    this.deps.sessions.stopSession(displayId, booking.sessionId, why);
    await this.deps.auditLog.record(by, 'room-source-ended', { displayId, sessionId: booking.sessionId, detail: { slot, words: `${actor} ended the source in slot ${String(slot + 1)}` } });
    return { ok: true, sessionId: booking.sessionId };
  }

  /** The admin changes the room: mode, layout, the large slot, the host (null: none). */
  async change(displayId: string, change: { mode?: RoomMode | undefined; layout?: RoomLayout | undefined; large?: number | undefined; hostRequestId?: string | null | undefined }, by: Requester): Promise<RoomSettings> {
    const before = await this.settings(displayId);
    const after: RoomSettings = {
      mode: change.mode ?? before.mode,
      layout: change.layout && (ROOM_LAYOUTS as readonly string[]).includes(change.layout) ? change.layout : before.layout,
      large: change.large !== undefined && change.large >= 0 && change.large < MAX_ROOM_SLOTS ? change.large : before.large,
      ...(change.hostRequestId === null ? {} : { hostRequestId: change.hostRequestId ?? before.hostRequestId }),
      updatedAt: this.clock(),
    };
    await this.deps.store.putRoomSettings(displayId, after);
    const actor = actorName(by);
    const { auditLog } = this.deps;
    if (after.mode !== before.mode) await auditLog.record(by, 'room-mode-changed', { displayId, detail: { from: before.mode, to: after.mode, words: `${actor} made the room ${after.mode}` } });
    if (after.layout !== before.layout || after.large !== before.large) {
      await auditLog.record(by, 'room-layout-changed', { displayId, detail: { layout: after.layout, large: after.large, words: `${actor} set the layout to ${after.layout}, slot ${String(after.large + 1)} large` } });
    }
    if (after.hostRequestId !== before.hostRequestId) {
      await auditLog.record(by, 'room-host-changed', { displayId, detail: { host: after.hostRequestId ?? '', words: after.hostRequestId ? `${actor} made request ${after.hostRequestId} the room's host` : `${actor} took the host's role back` } });
    }
    this.deps.publish({ kind: 'slots-changed', displayId });
    return after;
  }

  /** Whether the request (its presenter shows its stop token) is the room's host. */
  async isHost(displayId: string, requestId: string): Promise<boolean> {
    const settings = await this.settings(displayId);
    return settings.hostRequestId !== undefined && settings.hostRequestId === requestId;
  }

  async queue(displayId: string): Promise<PublicRequest[]> {
    const requests = await this.deps.store.listRoomRequests(displayId);
    return requests.filter((request) => request.state === 'waiting').sort((a, b) => a.at - b.at).map((request, index) => publicRequest(request, index + 1));
  }

  /** Where a request stands, for its presenter; its place in the queue while it waits. */
  async status(displayId: string, requestId: string): Promise<PublicRequest | undefined> {
    const request = await this.deps.store.getRoomRequest(requestId);
    if (request?.displayId !== displayId) return undefined;
    if (request.state !== 'waiting') return publicRequest(request);
    const position = (await this.queue(displayId)).findIndex((entry) => entry.requestId === requestId) + 1;
    return publicRequest(request, position);
  }

  /** The room as the admin and the display see it. */
  async view(displayId: string): Promise<RoomView> {
    const { store, presence } = this.deps;
    const [settings, bookings, capacity, queue] = await Promise.all([this.settings(displayId), store.listBookings(displayId), presence.slotCapacity(displayId), this.queue(displayId)]);
    const sessions = await Promise.all(bookings.map((booking) => store.getSession(booking.sessionId)));
    const requests = await Promise.all(sessions.map((session) => (session?.requestId === undefined ? Promise.resolve(undefined) : store.getRoomRequest(session.requestId))));
    const rects = slotRects(settings.layout, bookings.map((booking) => booking.slot ?? 0), settings.large);
    const slots = bookings.map((booking, index): SlotView => {
      const session = sessions[index];
      const request = requests[index];
      const slot = booking.slot ?? 0;
      const rect = rects.find((entry) => entry.slot === slot) ?? { x: 0, y: 0, width: 0, height: 0 };
      return {
        slot, sessionId: booking.sessionId,
        label: request?.label ?? session?.requestedBy?.name ?? session?.target.name ?? session?.target.host ?? '',
        requestId: session?.requestId, state: session?.state, since: session?.mintedAt,
        host: session?.requestId !== undefined && session.requestId === settings.hostRequestId,
        touch: session?.touch === true && session.state !== 'ended',
        rect: { x: rect.x, y: rect.y, width: rect.width, height: rect.height },
      };
    });
    return {
      displayId, mode: settings.mode, layout: settings.layout, large: settings.large, capacity, slots, queue,
      ...(settings.hostRequestId === undefined ? {} : { hostRequestId: settings.hostRequestId }),
    };
  }
}
