// Projection requests from presenters (the presenter page's API, a CLI, and
// WS-Discovery's Connect): the admin API's path through the broker and the
// target policy, plus what a presenter must show that an administrator need
// not: the display is online and free, and the room PIN is right. The PIN is
// used up only once everything else has passed, so a refused target or a
// busy display leaves it on the screen.
import type { ListedDisplay, DisplayState } from '@lanterna/protocol';
import { slotPixels } from '@lanterna/protocol';
import type { BrokerStore, Requester, SessionRecord } from './brokerStore.js';
import type { AuditLog } from './auditLog.js';
import type { DisplayRegistry } from './displayRegistry.js';
import type { OnlineDisplays } from './onlineDisplays.js';
import type { ProjectionAsk, ProjectionDesk, ProjectionRefusal } from './projectionDesk.js';
import type { SessionLifecycle } from './sessionLifecycle.js';
import { BROWSER_TARGET } from './sessionMint.js';
import type { PinCheck, RoomPins } from './roomPins.js';
import type { StopTokens } from './stopTokens.js';
import type { PublicRequest, RoomRequests } from './roomRequests.js';

export interface PresenterAsk extends ProjectionAsk {
  /** What the presenter typed; not needed when `admin`. */
  pin?: string | undefined;
  /** The requester's address key (pinAttempts.sourceKey), for the wrong-PIN limit. */
  source: string;
  /** The request carried the admin token: no PIN needed. */
  admin?: boolean | undefined;
  /**
   * Who asks and through what (`presenter`: the presenter page or API;
   * `wsd`: WS-Discovery's Connect), for the audit log and the session's
   * record; the presenter page when not given.
   */
  requestedBy?: Requester | undefined;
  /** The name label the display shows over this source. */
  name?: string | undefined;
  /** Open room, every slot taken: replace a source (the named slot, else the one showing longest). */
  takeOver?: boolean | undefined;
  slot?: number | undefined;
}

export type PresenterRefusalCode = ProjectionRefusal | 'display-offline' | 'display-busy' | 'pin-required' | 'pin-wrong' | 'pin-locked' | 'browser-unsupported' | 'queue-full';

export type PresenterOutcome =
  | {
    readonly ok: true; readonly sessionId: string; readonly displayId: string; readonly stopToken: string; readonly target: { host: string; port: number };
    /** on-screen: its session holds `slot`; waiting: in the moderator's queue at `position` (its session, once accepted, has the id `sessionId`). */
    readonly state: 'on-screen' | 'waiting';
    readonly slot?: number | undefined;
    readonly position?: number | undefined;
    /** For a browser source: the presenter socket's single-use token. */
    readonly presenter?: { readonly token: string; readonly expiresAt: number; readonly desktop?: { readonly width: number; readonly height: number } | undefined } | undefined;
  }
  | {
    readonly ok: false;
    readonly code: PresenterRefusalCode;
    readonly reason: string;
    readonly retryAfterMs?: number | undefined;
    readonly attemptsLeft?: number | undefined;
    /** For a lockout: whose limit (logs tell a guessing attack on a room from one person's typos). */
    readonly scope?: 'display' | 'source' | undefined;
  };

export type ProjectionLookup =
  | { readonly ok: true; readonly session: SessionRecord | undefined; readonly request?: PublicRequest | undefined }
  | { readonly ok: false; readonly code: 'stop-token-wrong' | 'no-projection' | 'bad-request'; readonly reason: string };

export interface PresenterDeps {
  displays: Pick<DisplayRegistry, 'listDisplays'>;
  presence: Pick<OnlineDisplays, 'slotCapacity'>;
  /** The admin API's checks (display, target policy), before the PIN is used. */
  projections: Pick<ProjectionDesk, 'checkProjection'>;
  sessions: Pick<SessionLifecycle, 'listSessions' | 'presenterToken' | 'setTouch' | 'stopSession' | 'slotsChanged'>;
  auditLog: AuditLog;
  store: BrokerStore;
  pins: RoomPins;
  stopTokens: StopTokens;
  /** The room's slots, queue and moderation (issue 29). */
  rooms: RoomRequests;
  clock?: () => number;
  /**
   * Whether this gateway joins a presenter page's socket to a display's
   * session: true, or why not (the native data plane does not yet; nor does
   * a cluster of workers, where the two sockets may land on different
   * processes). Where not, a browser source is refused `browser-unsupported`.
   */
  browserSource?: true | string | undefined;
}

type PresenterRefusal = Extract<PresenterOutcome, { ok: false }>;

/** A refused room PIN as the presenter's refusal. */
function pinRefusal(pin: Extract<PinCheck, { ok: false }>): PresenterRefusal {
  switch (pin.code) {
    case 'pin-required': return { ok: false, code: pin.code, reason: 'the room pin is required' };
    case 'pin-wrong': return { ok: false, code: pin.code, reason: 'the room pin is wrong', attemptsLeft: pin.attemptsLeft };
    case 'pin-locked': return { ok: false, code: pin.code, reason: `too many wrong pins for this ${pin.scope === 'display' ? 'display' : 'source address'}`, retryAfterMs: pin.retryAfterMs, scope: pin.scope };
  }
}

/** A session that holds its display: being set up or relaying (a minted one until its token expires). */
export function holdsDisplay(session: SessionRecord, now: number): boolean {
  return session.state === 'claimed' || session.state === 'active' || (session.state === 'minted' && session.expiresAt > now);
}

export class PresenterProjections {
  private readonly clock: () => number;

  constructor(private readonly deps: PresenterDeps) {
    this.clock = deps.clock ?? Date.now;
  }

  /** Every display and what it is doing; nothing secret (no tokens, PINs, targets or presenters). */
  async listDisplays(): Promise<ListedDisplay[]> {
    const [displays, sessions] = await Promise.all([this.deps.displays.listDisplays(), this.deps.sessions.listSessions()]);
    const now = this.clock();
    // A signage display showing its own target is idle for presenters (displayState says the same).
    const busy = new Set(sessions.filter((session) => holdsDisplay(session, now) && session.requestedBy?.kind !== 'signage').map((session) => session.displayId));
    return displays.map((display) => {
      const state: DisplayState = !display.online ? 'offline' : busy.has(display.id) ? 'presenting' : 'idle';
      return { id: display.id, name: display.name, ...(display.location === undefined ? {} : { location: display.location }), state };
    });
  }

  /**
   * Every request, accepted or refused (a wrong PIN included), leaves an
   * audit entry naming who asked and through what.
   */
  async request(ask: PresenterAsk): Promise<PresenterOutcome> {
    const requestedBy: Requester = ask.requestedBy ?? { kind: ask.admin ? 'admin' : 'presenter' };
    const outcome = await this.decide(ask, requestedBy);
    const via = requestedBy.kind;
    if (outcome.ok) {
      await this.deps.auditLog.record(requestedBy, 'projection-requested', {
        displayId: ask.displayId, sessionId: outcome.sessionId,
        detail: { target: outcome.presenter ? 'browser' : `${outcome.target.host}:${outcome.target.port}`, via, pin: ask.admin ? 'admin' : 'used' },
      });
    } else {
      await this.deps.auditLog.record(requestedBy, 'projection-refused', { displayId: ask.displayId, detail: { code: outcome.code, reason: outcome.reason, via } });
    }
    return outcome;
  }

  private async decide(ask: PresenterAsk, requestedBy: Requester): Promise<PresenterOutcome> {
    const { displays, projections, sessions, pins } = this.deps;
    const display = (await displays.listDisplays()).find((candidate) => candidate.id === ask.displayId);
    if (!display) return { ok: false, code: 'unknown-display', reason: `no display "${ask.displayId}"` };
    if (!display.online) return { ok: false, code: 'display-offline', reason: `display "${ask.displayId}" is not connected` };
    if (ask.browser === true && this.deps.browserSource !== true) {
      return { ok: false, code: 'browser-unsupported', reason: this.deps.browserSource ?? "this gateway does not carry a presenter page's screen" };
    }
    // An open room with every slot taken refuses before the PIN is used (unless the presenter asks to take a slot over).
    const { rooms } = this.deps;
    const settings = await rooms.settings(ask.displayId);
    if ((settings.mode === 'open' || ask.admin === true) && ask.takeOver !== true && !await this.hasFreeSlot(ask.displayId)) {
      return { ok: false, code: 'display-busy', reason: `display "${ask.displayId}" is showing another presentation in every slot` };
    }
    const pin = ask.admin ? undefined : await pins.check(ask.displayId, ask.pin, ask.source);
    if (pin && !pin.ok) return pinRefusal(pin);
    const check = await projections.checkProjection(ask, requestedBy);
    if (!check.ok) return { ok: false, code: check.code, reason: check.reason };
    // Two presenters with the same PIN at the same moment: the store lets one use it.
    if (pin && !(await pins.use(ask.displayId, pin.record))) {
      return { ok: false, code: 'pin-wrong', reason: 'the room pin has just changed', attemptsLeft: undefined };
    }
    const entry = await rooms.enter(check.request, { name: ask.name, takeOver: ask.takeOver, slot: ask.slot, admin: ask.admin });
    if (!entry.ok) return { ok: false, code: entry.code, reason: entry.reason };
    const { host, port } = check.request.target;
    const stopToken = this.deps.stopTokens.sign(ask.displayId, entry.requestId);
    if (entry.state === 'waiting') {
      return { ok: true, state: 'waiting', sessionId: entry.requestId, displayId: ask.displayId, stopToken, target: { host, port }, position: entry.position };
    }
    const presenter = check.request.browser === true
      ? { ...sessions.presenterToken({ sessionId: entry.sessionId, displayId: ask.displayId }), desktop: await this.sourceDesktop(ask.displayId, entry.slot, display.sessionDesktop) }
      : undefined;
    return { ok: true, state: 'on-screen', slot: entry.slot, sessionId: entry.sessionId, displayId: ask.displayId, stopToken, target: { host, port }, presenter };
  }

  /**
   * The pixels a source in `slot` gets on the display: the desktop its
   * sessions ask for on its panel, or the slot's share of it while the room
   * shows several sources (a source the layout hides counts as whole: it may
   * be enlarged any moment). Undefined until the display reports its panel.
   */
  private async sourceDesktop(displayId: string, slot: number, desktop: { width: number; height: number } | undefined): Promise<{ width: number; height: number } | undefined> {
    if (!desktop) return undefined;
    const room = await this.deps.rooms.view(displayId);
    const rect = room.slots.find((entry) => entry.slot === slot)?.rect;
    if (!rect || rect.width <= 0 || rect.height <= 0) return { width: desktop.width, height: desktop.height };
    const pixels = slotPixels({ slot, ...rect }, desktop);
    return { width: pixels.width, height: pixels.height };
  }

  /**
   * A browser source that waited in a moderated room has no presenter socket
   * yet (a token minted when it asked would lapse while it waits): once its
   * request is accepted, and until its page's socket joins, its status hands
   * the page one, minted fresh (single-use all the same: the store lets one
   * presenter leg claim the session).
   */
  async presenterLeg(displayId: string, found: Extract<ProjectionLookup, { ok: true }>): Promise<{ token: string; expiresAt: number; desktop?: { width: number; height: number } | undefined } | undefined> {
    const { session, request } = found;
    if (request?.target !== 'browser' || request.state !== 'on-screen' || !session || session.target.host !== BROWSER_TARGET.host) return undefined;
    if (session.state !== 'minted' && session.state !== 'claimed') return undefined;
    if (!holdsDisplay(session, this.clock())) return undefined;
    const display = (await this.deps.displays.listDisplays()).find((candidate) => candidate.id === displayId);
    const desktop = await this.sourceDesktop(displayId, session.slot ?? 0, display?.sessionDesktop);
    return { ...this.deps.sessions.presenterToken({ sessionId: session.sessionId, displayId }), desktop };
  }

  /** Whether a slot the display's page can show is free (a signage session counts as free: it gives way). */
  private async hasFreeSlot(displayId: string): Promise<boolean> {
    const { presence, store } = this.deps;
    const [capacity, bookings] = await Promise.all([presence.slotCapacity(displayId), store.listBookings(displayId)]);
    const sessions = await Promise.all(bookings.map((booking) => store.getSession(booking.sessionId)));
    const held = bookings.filter((booking, index) => (booking.slot ?? 0) < capacity && sessions[index]?.requestedBy?.kind !== 'signage' && sessions[index]?.state !== 'ended');
    return held.length < capacity;
  }

  /** The projection a stop token names, if it is still this display's. */
  async lookup(displayId: string, stopToken: string | undefined): Promise<ProjectionLookup> {
    const sessionId = this.deps.stopTokens.read(displayId, stopToken);
    if (sessionId === undefined) return { ok: false, code: 'stop-token-wrong', reason: 'the stop token does not belong to a projection on this display' };
    // The id is the request's; its session (once on screen) has the same id until a resume gives it a new one.
    const request = await this.deps.rooms.status(displayId, sessionId);
    const session = await this.deps.store.getSession(request?.sessionId ?? sessionId);
    if (session?.displayId !== displayId && request === undefined) return { ok: false, code: 'no-projection', reason: 'the projection is no longer known' };
    return { ok: true, session: session?.displayId === displayId ? session : undefined, request };
  }

  /** The room's host, shown by its stop token (the admin API named its request the host): it may moderate. */
  async host(displayId: string, stopToken: string | undefined): Promise<{ ok: true; requestId: string } | { ok: false; code: 'stop-token-wrong' | 'not-host'; reason: string }> {
    const requestId = this.deps.stopTokens.read(displayId, stopToken);
    if (requestId === undefined) return { ok: false, code: 'stop-token-wrong', reason: 'the stop token does not belong to a projection on this display' };
    if (!await this.deps.rooms.isHost(displayId, requestId)) return { ok: false, code: 'not-host', reason: "only the room's host (or the admin API) may moderate" };
    return { ok: true, requestId };
  }

  /**
   * The presenter's permission for people at the display to control the
   * computer (issue 30), by the stop token: only for a computer's projection
   * that is on screen (a browser cannot be controlled; a waiting request has
   * no session yet).
   */
  async setTouch(displayId: string, stopToken: string | undefined, allowed: boolean, by: Requester): Promise<ProjectionLookup> {
    const found = await this.lookup(displayId, stopToken);
    if (!found.ok) return found;
    const { session } = found;
    if (!session || session.state === 'ended') return { ok: false, code: 'no-projection', reason: `the request is ${found.request?.state ?? 'gone'}` };
    if (session.target.host === BROWSER_TARGET.host && session.target.name === BROWSER_TARGET.name) {
      return { ok: false, code: 'bad-request', reason: 'a browser cannot be controlled from the display: its touch is a pointer drawn on the picture' };
    }
    const changed = await this.deps.sessions.setTouch(displayId, session.sessionId, allowed, by);
    if (!changed) return { ok: false, code: 'no-projection', reason: 'the projection has ended already' };
    return { ok: true, session: changed, request: found.request };
  }

  /** Stops the projection the stop token names (a waiting request is withdrawn); one that has ended already is `no-projection`. */
  async stop(displayId: string, stopToken: string | undefined, by?: Requester): Promise<ProjectionLookup> {
    const found = await this.lookup(displayId, stopToken);
    if (!found.ok) return found;
    if (found.request?.state === 'waiting') {
      const withdrawn = await this.deps.rooms.withdraw(displayId, found.request.requestId, by);
      if (withdrawn) return { ok: true, session: undefined, request: withdrawn };
    }
    if (!found.session) return { ok: false, code: 'no-projection', reason: `the request is ${found.request?.state ?? 'gone'}` };
    const stopped = await this.end(displayId, found.session);
    return stopped.ok ? { ...stopped, request: await this.deps.rooms.status(displayId, found.request?.requestId ?? found.session.sessionId) } : stopped;
  }

  /**
   * Stops a projection by its session id for someone who shows the room PIN
   * instead of the stop token (WS-Discovery's Disconnect from a presenter
   * that lost it): the PIN is checked under the wrong-PIN limits, like a
   * Connect's, and used up when it stops something.
   */
  async stopWithPin(displayId: string, sessionId: string, pin: string | undefined, source: string): Promise<ProjectionLookup | PresenterRefusal> {
    const check = await this.deps.pins.check(displayId, pin, source);
    if (!check.ok) return pinRefusal(check);
    const session = await this.deps.store.getSession(sessionId);
    if (session?.displayId !== displayId) return { ok: false, code: 'no-projection', reason: 'the projection is no longer known' };
    const stopped = await this.end(displayId, session);
    if (stopped.ok) await this.deps.pins.use(displayId, check.record);
    return stopped;
  }

  private async end(displayId: string, session: SessionRecord): Promise<ProjectionLookup> {
    if (session.state === 'ended') return { ok: false, code: 'no-projection', reason: 'the projection has ended already' };
    // The request says the presenter ended it, before the relay's end (which would say only "stopped") can.
    if (session.requestId !== undefined) {
      const request = await this.deps.store.getRoomRequest(session.requestId);
      if (request?.state === 'on-screen') {
        await this.deps.store.updateRoomRequest(request.requestId, ['on-screen'], { ...request, state: 'ended', decidedAt: this.clock(), decidedBy: 'presenter', reason: 'stopped by the presenter' });
      }
    }
    this.deps.sessions.stopSession(displayId, session.sessionId, 'stopped by the presenter');
    // A session the display has not opened yet has no relay to end it: end its record here, so the display (its slot) is free at once.
    const ended = session.state === 'minted'
      ? await this.deps.store.updateSession(session.sessionId, { state: 'ended', endedAt: this.clock(), endReason: 'stopped' })
      : session;
    if (session.state === 'minted') {
      await this.deps.store.releaseDisplay(displayId, session.sessionId);
      this.deps.sessions.slotsChanged(displayId);
    }
    return { ok: true, session: ended ?? session };
  }
}
