// The broker: which displays exist and which are online, which sessions were
// minted and how they went, and the projection decisions (may this request
// go there, is the display free, mint the session and its token, project a
// signage display again and when, resume a display whose gateway died). It
// holds no socket and no timer: the control and data socket adapters
// (../channel) and the admin API (../api) call it, its state sits in a
// BrokerStore, and what other workers and gateways must act on leaves as
// BrokerEvents.
import { randomBytes } from 'node:crypto';
import type { Credentials, TargetConfig } from '../config/configSchema.js';
import { SessionTokenSigner, type SessionGrant } from '../session/sessionToken.js';
import { SessionError } from '../session/sessionError.js';
import type { SealedBox } from '../session/sealedBox.js';
import { desktopForPanel, type AssistanceSettings, type Desktop, type DesktopPreference, type Panel, type SessionSettings } from '@lanterna/protocol';
import type { TargetPolicy } from '../policy/targetPolicy.js';
import type { InvitationErrorCode } from '../assistance/raInvitation.js';
import { DisplayDirectory, newDisplayToken, tokenDigest, tokenMatches } from './displayDirectory.js';
import type {
  AuditAction, AuditInput, AuditPage, BrokerStore, DisplayFigures, DisplayRecord, DisplaySound, PinConflict, ProjectionIntent, Requester, SessionRecord, SessionSample,
} from './brokerStore.js';
import { DEFAULT_DISPLAY_SOUND } from './brokerStore.js';
import type { PublishEvent } from './brokerEvents.js';
import { MAX_ROOM_SLOTS } from '@lanterna/protocol';
import { newPresenceOwner } from './presenceOwner.js';
import { afterSessionEnd, projectedAt } from './reprojectBackoff.js';
import { checkTarget, chooseInvitationTarget, type ResolveTarget } from './targetChoice.js';

/** A session the relay stops sampling for this long is lost (its gateway died): its booking lapses. */
export const SESSION_LEASE_MS = 3000;

export interface ProjectionRequest {
  displayId: string;
  target: TargetConfig;
  credentials?: Credentials | undefined;
  settings?: SessionSettings | undefined;
  /** A Remote Assistance invitation the client answers instead of credentials. */
  assistance?: AssistanceSettings | undefined;
  requestedBy?: Requester | undefined;
  /** The presenter page is the server (its socket joins the display's session); `target` is then BROWSER_TARGET. */
  browser?: boolean | undefined;
  /** The presenter's request (roomRequests.ts) it answers; its session then has the request's id. */
  requestId?: string | undefined;
}

/**
 * What a browser-source session names as its target: a label for the
 * display's `project` message and the admin's views, never dialled.
 */
export const BROWSER_TARGET = { host: 'browser', port: 3389, name: "the presenter's browser" } as const;

/** A request from outside (the admin API): a target, or an invitation to choose one from. */
export interface ProjectionAsk {
  displayId: string;
  target?: TargetConfig | undefined;
  assistance?: AssistanceSettings | undefined;
  credentials?: Credentials | undefined;
  settings?: SessionSettings | undefined;
  /**
   * Refuse when the display is offline or already presenting: a presenter
   * asking over the LAN (WS-Discovery Connect) may not take a room over; the
   * admin API may.
   */
  exclusive?: boolean | undefined;
  /** No target: the presenter page's own socket is the server leg (docs/browser-presenter.md). */
  browser?: boolean | undefined;
}

export type ProjectionRefusal = 'unknown-display' | 'display-offline' | 'display-busy' | 'target-forbidden' | InvitationErrorCode;

/**
 * offline: no control socket; presenting: a presenter's session minted (and
 * not expired), opening or relaying; a signage display showing its own
 * autoProject target is idle.
 */
export type DisplayState = 'offline' | 'idle' | 'presenting';

export type ProjectionOutcome =
  | { ok: true; sessionId: string; target: { host: string; port: number } }
  | { ok: false; code: ProjectionRefusal; reason: string };

export interface DisplayView {
  id: string;
  name: string;
  location?: string | undefined;
  managedBy: 'config' | 'api';
  online: boolean;
  /** The session the display is booked for (showing, or about to). */
  sessionId?: string | undefined;
  /** The admin's volume and mute for it. */
  sound: DisplaySound;
  /** What an admin fixed of its desktop (size, scale). */
  desktop?: DesktopPreference | undefined;
  /** The panel the display last reported, and the desktop its sessions ask for on it. */
  panel?: (Panel & { at: number }) | undefined;
  sessionDesktop?: Desktop | undefined;
}

export type DisplayChangeRefusal = 'unknown-display' | 'display-exists' | 'config-managed';

export type DisplayChange<T> = { ok: true; value: T } | { ok: false; code: DisplayChangeRefusal; reason: string };

/** What a display that just came online should get: nothing, or a check again later (its old session may still live). */
export interface ReadyOutcome {
  action: 'none' | 'signage' | 'resumed' | 'wait';
  retryInMs?: number | undefined;
}

export interface BrokerTimeouts {
  /** How long a minted session's token opens it. */
  sessionTokenMs: number;
  /** Pause before a signage display is projected again; doubles while sessions fail at once. */
  reprojectMs: number;
  reprojectMaxMs: number;
  /** A display back online this soon after its session was last seen alive gets it projected again. */
  resumeGraceMs?: number | undefined;
}

export interface BrokerDeps {
  directory: DisplayDirectory;
  store: BrokerStore;
  signer: SessionTokenSigner;
  policy: TargetPolicy;
  /** Resolves a target's name for the policy check, with its own deadline. */
  resolveTarget: ResolveTarget;
  publish: PublishEvent;
  timeouts: BrokerTimeouts;
  /** Seals what a resume needs (credentials); without it nothing is kept and nothing resumes. */
  sealer?: SealedBox | undefined;
  clock?: () => number;
  /** This gateway instance's tag (presenceOwner.ts): presences it records name it. */
  instanceTag?: string | undefined;
}

const DEFAULT_RESUME_GRACE_MS = 60_000;

/** Who did it, as the audit log writes it. */
export function actorName(requester: Requester | undefined): string {
  if (!requester) return 'gateway';
  return requester.address ? `${requester.kind}@${requester.address}` : requester.kind;
}

export class SessionBroker {
  private readonly clock: () => number;
  private seeded: Promise<void> | undefined;

  constructor(private readonly deps: BrokerDeps) {
    this.clock = deps.clock ?? Date.now;
  }

  // Displays

  /**
   * Writes the configuration's displays into the store (they win over what
   * the store had under their ids) and drops config displays that left the
   * file. Runs once, before the first display operation.
   */
  seedDisplays(): Promise<void> {
    this.seeded ??= (async () => {
      const { store, directory } = this.deps;
      const now = this.clock();
      const existing = new Map((await store.listDisplays()).map((display) => [display.id, display]));
      // an admin's volume and mute, and the panel (the display's own report), outlive a restart: the file sets neither
      await Promise.all(directory.seeds(now).map((seed) => {
        const before = existing.get(seed.id);
        return store.putDisplay({ ...seed, createdAt: before?.createdAt ?? now, ...(before?.sound ? { sound: before.sound } : {}), ...(before?.panel ? { panel: before.panel } : {}) }, 'upsert');
      }));
      await Promise.all([...existing.values()]
        .filter((display) => display.managedBy === 'config' && !directory.get(display.id))
        .map((display) => store.deleteDisplay(display.id)));
    })();
    // A failed seed (store down at start) is tried again next time.
    this.seeded.catch(() => { this.seeded = undefined; });
    return this.seeded;
  }

  async authenticateDisplay(displayId: string, token: unknown): Promise<DisplayRecord | undefined> {
    await this.seedDisplays();
    const record = await this.deps.store.getDisplay(displayId);
    return record && tokenMatches(record, token) ? record : undefined;
  }

  async listDisplays(): Promise<DisplayView[]> {
    await this.seedDisplays();
    const { store } = this.deps;
    const [displays, presence] = await Promise.all([store.listDisplays(), store.listPresence()]);
    const online = new Set(presence.map((entry) => entry.displayId));
    const bookings = await Promise.all(displays.map((display) => store.getBooking(display.id, 0)));
    return displays
      .map((display, index) => ({
        id: display.id, name: display.name, location: display.location, managedBy: display.managedBy,
        online: online.has(display.id), sessionId: bookings[index]?.sessionId, sound: display.sound ?? DEFAULT_DISPLAY_SOUND,
        desktop: display.desktop, panel: display.panel,
        sessionDesktop: display.panel ? desktopForPanel(display.panel, display.desktop) : undefined,
      }))
      .sort((a, b) => a.id.localeCompare(b.id));
  }

  /** A display made through the admin API; its token is returned once and only its digest is kept. */
  async createDisplay(input: { id?: string | undefined; name: string; location?: string | undefined; desktop?: DesktopPreference | undefined }, by?: Requester): Promise<DisplayChange<{ display: DisplayRecord; token: string }>> {
    await this.seedDisplays();
    const now = this.clock();
    const id = input.id ?? displayIdFromName(input.name);
    const token = newDisplayToken();
    const display: DisplayRecord = { id, name: input.name, location: input.location, ...(input.desktop ? { desktop: input.desktop } : {}), tokenDigest: tokenDigest(token), managedBy: 'api', createdAt: now, updatedAt: now };
    if (!await this.deps.store.putDisplay(display, 'create')) return { ok: false, code: 'display-exists', reason: `a display "${id}" exists already` };
    await this.audit(by, 'display-created', { displayId: id, detail: { name: input.name, ...(input.location ? { location: input.location } : {}) } });
    return { ok: true, value: { display, token } };
  }

  /** Renames, moves and/or fixes the desktop of a display made through the API (`desktop: null` gives it back to the panel). */
  async updateDisplay(displayId: string, change: { name?: string | undefined; location?: string | undefined; desktop?: DesktopPreference | null | undefined }, by?: Requester): Promise<DisplayChange<DisplayRecord>> {
    const found = await this.apiDisplay(displayId);
    if (!found.ok) return found;
    const before = found.value;
    const { desktop: _dropped, ...rest } = before;
    const desktop = change.desktop === undefined ? before.desktop : change.desktop ?? undefined;
    const after: DisplayRecord = { ...rest, ...(desktop ? { desktop } : {}), name: change.name ?? before.name, location: change.location ?? before.location, updatedAt: this.clock() };
    if (!await this.deps.store.putDisplay(after, 'replace')) return unknownDisplay(displayId);
    const desktopChanged = JSON.stringify(after.desktop ?? {}) !== JSON.stringify(before.desktop ?? {});
    if (after.name !== before.name || after.location !== before.location || desktopChanged) {
      this.deps.publish({ kind: 'display-changed', displayId, name: after.name, location: after.location, desktop: after.desktop });
    }
    if (desktopChanged) await this.audit(by, 'display-resized', { displayId, detail: { from: desktopWords(before.desktop), to: desktopWords(after.desktop) } });
    if (after.name !== before.name) await this.audit(by, 'display-renamed', { displayId, detail: { from: before.name, to: after.name } });
    if (after.location !== before.location) await this.audit(by, 'display-moved', { displayId, detail: { from: before.location ?? '', to: after.location ?? '' } });
    return { ok: true, value: after };
  }

  /**
   * The presenter's permission for people at the display to control the
   * computer (issue 30), kept on the session's record in the store (every
   * worker and gateway reads the same). Both relay engines hear it at once
   * (`touch-changed`: the gate on input PDUs) and the display's page with the
   * next `layout` (its mark on the slot). Audited when it changes. Undefined:
   * the session is unknown or over.
   */
  async setTouch(displayId: string, sessionId: string, allowed: boolean, by?: Requester): Promise<SessionRecord | undefined> {
    const before = await this.deps.store.getSession(sessionId);
    if (before?.displayId !== displayId) return undefined;
    const after = await this.deps.store.setTouch(sessionId, allowed);
    if (!after) return undefined;
    this.deps.publish({ kind: 'touch-changed', displayId, sessionId, allowed });
    this.deps.publish({ kind: 'slots-changed', displayId });
    if ((before.touch === true) !== allowed) await this.audit(by, allowed ? 'touch-allowed' : 'touch-revoked', { displayId, sessionId });
    return after;
  }

  /** Whether the session's presenter lets the display control the computer now (false when unknown). */
  async touchAllowed(sessionId: string): Promise<boolean> {
    return (await this.deps.store.getSession(sessionId))?.touch === true;
  }

  /**
   * An admin's volume and/or mute for any display (configured ones too: the
   * file does not set sound). Kept in the store, so every gateway of a farm
   * reads the same; the worker holding the display's control socket sends it
   * to the page (`sound-changed`).
   */
  async setDisplaySound(displayId: string, change: { volume?: number | undefined; muted?: boolean | undefined }, by?: Requester): Promise<DisplayChange<DisplaySound>> {
    await this.seedDisplays();
    const before = await this.deps.store.getDisplay(displayId);
    if (!before) return unknownDisplay(displayId);
    const was = before.sound ?? DEFAULT_DISPLAY_SOUND;
    const sound: DisplaySound = { volume: change.volume ?? was.volume, muted: change.muted ?? was.muted };
    if (!await this.deps.store.putDisplay({ ...before, sound, updatedAt: this.clock() }, 'replace')) return unknownDisplay(displayId);
    this.deps.publish({ kind: 'sound-changed', displayId, volume: sound.volume, muted: sound.muted });
    if (sound.volume !== was.volume || sound.muted !== was.muted) await this.audit(by, 'sound-changed', { displayId, detail: { volume: sound.volume, muted: sound.muted } });
    return { ok: true, value: sound };
  }

  /** The display's volume and mute now (what its page is sent on welcome). */
  async displaySound(displayId: string): Promise<DisplaySound> {
    return (await this.deps.store.getDisplay(displayId))?.sound ?? DEFAULT_DISPLAY_SOUND;
  }

  /**
   * A display's `panel` report: kept on its record (both stores) when it
   * differs from the last one, so the admin sees it and what its sessions ask
   * for. Config and API displays alike: the panel is the display's own word.
   */
  async recordPanel(displayId: string, panel: Panel): Promise<boolean> {
    const before = await this.deps.store.getDisplay(displayId);
    if (!before) return false;
    if (before.panel) {
      const { at: _at, ...last } = before.panel;
      if (JSON.stringify(last) === JSON.stringify(panel)) return false;
    }
    return this.deps.store.putDisplay({ ...before, panel: { ...panel, at: this.clock() } }, 'replace');
  }

  /** Deletes a display made through the API; its control socket is closed and its session stopped. */
  async deleteDisplay(displayId: string, by?: Requester): Promise<DisplayChange<null>> {
    const found = await this.apiDisplay(displayId);
    if (!found.ok) return found;
    const bookings = await this.deps.store.listBookings(displayId);
    if (!await this.deps.store.deleteDisplay(displayId)) return unknownDisplay(displayId);
    this.deps.publish({ kind: 'display-revoked', displayId });
    for (const booking of bookings) this.deps.publish({ kind: 'stop-session', displayId, sessionId: booking.sessionId, reason: 'the display was deleted' });
    await this.audit(by, 'display-deleted', { displayId, detail: { name: found.value.name } });
    return { ok: true, value: null };
  }

  /** A new token for a display made through the API: shown once; the display's socket with the old one is closed. */
  async rotateDisplayToken(displayId: string, by?: Requester): Promise<DisplayChange<{ token: string }>> {
    const found = await this.apiDisplay(displayId);
    if (!found.ok) return found;
    const token = newDisplayToken();
    if (!await this.deps.store.putDisplay({ ...found.value, tokenDigest: tokenDigest(token), updatedAt: this.clock() }, 'replace')) return unknownDisplay(displayId);
    this.deps.publish({ kind: 'display-revoked', displayId });
    await this.audit(by, 'display-token-rotated', { displayId });
    return { ok: true, value: { token } };
  }

  private async apiDisplay(displayId: string): Promise<DisplayChange<DisplayRecord>> {
    await this.seedDisplays();
    const record = await this.deps.store.getDisplay(displayId);
    if (!record) return unknownDisplay(displayId);
    if (record.managedBy === 'config') {
      return { ok: false, code: 'config-managed', reason: `display "${displayId}" is defined in the configuration file: change it there` };
    }
    return { ok: true, value: record };
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

  getSession(sessionId: string): Promise<SessionRecord | undefined> {
    return this.deps.store.getSession(sessionId);
  }

  /**
   * A control socket authenticated for the display: it takes the display over
   * (any other socket of it, on any worker, is replaced) and its signage
   * backoff starts again. Returns the owner id that tells the sockets apart.
   */
  async displayOnline(displayId: string, slots = 1): Promise<string> {
    const owner = newPresenceOwner(this.deps.instanceTag);
    this.deps.publish({ kind: 'display-claimed', displayId, owner });
    await Promise.all([
      this.deps.store.setPresence({ displayId, owner, since: this.clock(), ...(slots > 1 ? { slots: Math.min(slots, MAX_ROOM_SLOTS) } : {}) }),
      this.deps.store.setReprojection(displayId, undefined),
    ]);
    return owner;
  }

  async displayOffline(displayId: string, owner: string): Promise<void> {
    await this.deps.store.clearPresence(displayId, owner);
  }

  /** How many sources the display's page shows at once (its control socket said so): 1 unless it announced `slots`. */
  async slotCapacity(displayId: string): Promise<number> {
    const presence = (await this.deps.store.listPresence()).find((entry) => entry.displayId === displayId);
    return Math.max(1, Math.min(presence?.slots ?? 1, MAX_ROOM_SLOTS));
  }

  /**
   * A display is online: if it was showing a session whose gateway died (the
   * session's booking lapsed without an end, within the grace period), that
   * projection is minted again to the same target; if the old session may
   * still live, ask again when its lease would lapse; else a signage display
   * gets its projection. `retry` is the later check: it never starts signage.
   */
  async displayReady(displayId: string, retry = false): Promise<ReadyOutcome> {
    // Each slot's source comes back into its own slot; the display waits for the slowest lease.
    const outcomes = await Promise.all(Array.from({ length: MAX_ROOM_SLOTS }, (_, slot) => this.slotReady(displayId, slot)));
    const waits = outcomes.filter((outcome) => outcome.action === 'wait').map((outcome) => outcome.retryInMs ?? 0);
    if (waits.length > 0) return { action: 'wait', retryInMs: Math.max(...waits) };
    if (outcomes.some((outcome) => outcome.action === 'resumed')) return { action: 'resumed' };
    if (outcomes.some((outcome) => outcome.action === 'none' && outcome.held === true)) return { action: 'none' };
    if (retry) return { action: 'none' };
    return (await this.projectSignage(displayId)) ? { action: 'signage' } : { action: 'none' };
  }

  /** One slot of displayReady: its intent resumed, waited for, or forgotten; `held`: another session holds the slot. */
  private async slotReady(displayId: string, slot: number): Promise<ReadyOutcome & { held?: boolean }> {
    const { store } = this.deps;
    const intent = await store.getIntent(displayId, slot);
    if (!intent) return { action: 'signage' };
    const [record, booking] = await Promise.all([store.getSession(intent.sessionId), store.getBooking(displayId, slot)]);
    const now = this.clock();
    if (booking && booking.sessionId !== intent.sessionId) return { action: 'none', held: true };
    if (booking && record?.state !== 'minted') return { action: 'wait', retryInMs: Math.max(booking.until - now, 0) + 100 };
    const lastAlive = record?.stats?.sampledAt ?? record?.securedAt ?? record?.claimedAt ?? intent.since;
    const grace = this.deps.timeouts.resumeGraceMs ?? DEFAULT_RESUME_GRACE_MS;
    if (record && record.state !== 'ended' && now - lastAlive <= grace) {
      const resumed = await this.resume(intent);
      if (resumed) return { action: 'resumed' };
    }
    await store.clearIntent(displayId, intent.sessionId);
    return { action: 'signage' };
  }

  private async resume(intent: ProjectionIntent): Promise<boolean> {
    const secrets = this.deps.sealer?.open(intent.sealed) as Pick<ProjectionRequest, 'credentials' | 'settings' | 'assistance'> | undefined;
    if (!secrets) return false;
    const sessionId = SessionTokenSigner.newSessionId();
    const slot = intent.slot ?? 0;
    const booked = await this.deps.store.bookDisplay(
      { displayId: intent.displayId, sessionId, until: this.clock() + this.deps.timeouts.sessionTokenMs, ...(slot === 0 ? {} : { slot }) },
      { replacing: intent.sessionId },
    );
    if (!booked.ok) return false;
    await this.mint(sessionId, { displayId: intent.displayId, target: intent.target, ...secrets, requestedBy: intent.requestedBy, requestId: intent.requestId }, slot);
    if (intent.requestId !== undefined) await this.followRequest(intent.requestId, sessionId);
    this.deps.publish({ kind: 'stop-session', displayId: intent.displayId, sessionId: intent.sessionId, reason: 'resumed elsewhere' });
    await this.deps.store.updateSession(intent.sessionId, { state: 'ended', endedAt: this.clock(), endReason: 'gateway-lost' });
    await this.audit(undefined, 'projection-resumed', { displayId: intent.displayId, sessionId, detail: { previous: intent.sessionId, slot } });
    return true;
  }

  /** A resumed source's request now names its new session (its presenter's status follows it). */
  private async followRequest(requestId: string, sessionId: string): Promise<void> {
    const request = await this.deps.store.getRoomRequest(requestId);
    if (request?.state === 'on-screen') await this.deps.store.updateRoomRequest(requestId, ['on-screen'], { ...request, sessionId });
  }

  // Projection

  /**
   * A request from outside (admin API, WS-Discovery Connect): the display must
   * exist, the target pass the policy, and the display be free — booked
   * atomically, so of two requests for one display through two gateways one wins.
   */
  async requestProjection(ask: ProjectionAsk, requestedBy?: Requester): Promise<ProjectionOutcome> {
    const outcome = await this.decideProjection(ask, requestedBy);
    if (outcome.ok) {
      await this.audit(requestedBy, 'projection-requested', { displayId: ask.displayId, sessionId: outcome.sessionId, detail: { target: `${outcome.target.host}:${outcome.target.port}` } });
    } else {
      await this.audit(requestedBy, 'projection-refused', { displayId: ask.displayId, detail: { code: outcome.code, reason: outcome.reason } });
    }
    return outcome;
  }

  private async decideProjection(ask: ProjectionAsk, requestedBy: Requester | undefined): Promise<ProjectionOutcome> {
    const check = await this.checkProjection(ask, requestedBy);
    if (!check.ok) return check;
    const { request } = check;
    const joined = await this.joinFreeSlot(request);
    if (!joined) {
      return { ok: false, code: 'display-busy', reason: `display "${ask.displayId}" is showing another presentation in every slot: stop one first` };
    }
    return { ok: true, sessionId: joined.sessionId, target: { host: request.target.host, port: request.target.port } };
  }

  /** The session the display is booked for when it is the display's own signage (a presenter may take its place). */
  private async signageSession(displayId: string): Promise<string | undefined> {
    const booking = await this.deps.store.getBooking(displayId, 0);
    if (!booking) return undefined;
    const record = await this.deps.store.getSession(booking.sessionId);
    return record?.requestedBy?.kind === 'signage' ? booking.sessionId : undefined;
  }

  /**
   * Projects a request checkProjection passed, if the display is still free
   * (or shows its signage): booked atomically like requestProjection.
   */
  async projectIfFree(request: ProjectionRequest): Promise<string | undefined> {
    return (await this.joinFreeSlot(request))?.sessionId;
  }

  /**
   * Books the display's lowest free slot (a signage session's counts as free:
   * it gives way) and mints the session there; undefined when every slot the
   * display's page can show is held. The session's id is the request's, when
   * it answers one (its presenter's stop token then names it).
   */
  async joinFreeSlot(request: ProjectionRequest): Promise<{ sessionId: string; slot: number } | undefined> {
    const sessionId = request.requestId ?? SessionTokenSigner.newSessionId();
    const capacity = await this.slotCapacity(request.displayId);
    const booked = await this.deps.store.bookFreeSlot(
      { displayId: request.displayId, sessionId, until: this.clock() + this.deps.timeouts.sessionTokenMs },
      capacity, await this.signageSession(request.displayId),
    );
    if (!booked.ok) return undefined;
    await this.mint(sessionId, request, booked.slot);
    return { sessionId, slot: booked.slot };
  }

  /**
   * Take-over: the session in `slot` gives its place to this request. Booked
   * as a compare-and-set on the holder the caller saw (`holder`), so two
   * take-overs of one slot at once leave one winner; the holder is stopped
   * with the words `reason` (after `beforeStop`). Undefined when the slot changed hands meanwhile.
   */
  async takeOverSlot(
    request: ProjectionRequest, slot: number, holder: string | undefined, reason: string,
    beforeStop?: (holder: string) => Promise<void>,
  ): Promise<{ sessionId: string; slot: number } | undefined> {
    const sessionId = request.requestId ?? SessionTokenSigner.newSessionId();
    const booked = await this.deps.store.bookDisplay(
      { displayId: request.displayId, sessionId, until: this.clock() + this.deps.timeouts.sessionTokenMs, ...(slot === 0 ? {} : { slot }) },
      { replacing: holder },
    );
    if (!booked.ok) return undefined;
    if (holder !== undefined) {
      // Its intent goes (it must not come back into the slot on a resume) and its relay stops wherever it runs.
      await this.deps.store.clearIntent(request.displayId, holder);
      // Whoever took the slot says so on the holder's request before its relay's end can say only "stopped".
      await beforeStop?.(holder);
      this.stopSession(request.displayId, holder, reason);
    }
    await this.mint(sessionId, request, slot);
    return { sessionId, slot };
  }

  /**
   * The decision of requestProjection without the booking and minting: the
   * display exists and the target (or the invitation's first allowed address)
   * passes the policy. Presenter requests check this before they use up the room PIN.
   */
  async checkProjection(ask: ProjectionAsk, requestedBy?: Requester): Promise<{ ok: true; request: ProjectionRequest } | { ok: false; code: ProjectionRefusal; reason: string }> {
    await this.seedDisplays();
    if (!await this.deps.store.getDisplay(ask.displayId)) return unknownDisplay(ask.displayId);
    // No room PIN here: presenters (page, API, WS-Discovery Connect) come through
    // PresenterProjections, which checks it before this and uses it up after.
    if (ask.exclusive) {
      const state = await this.displayState(ask.displayId);
      if (state === 'offline') return { ok: false, code: 'display-offline', reason: 'the display is switched off or not connected to the gateway' };
      if (state === 'presenting') return { ok: false, code: 'display-busy', reason: 'the display is showing another presentation; ask its presenter to stop first' };
    }
    // A presenter page is no network address: no target policy, no name to resolve, no TCP.
    if (ask.browser === true) {
      return { ok: true, request: { displayId: ask.displayId, target: { ...BROWSER_TARGET }, settings: ask.settings, requestedBy, browser: true } };
    }
    const { policy, resolveTarget } = this.deps;
    const choice = ask.assistance
      ? await chooseInvitationTarget(policy, resolveTarget, ask.assistance)
      : await checkTarget(policy, resolveTarget, ask.target?.host ?? '', ask.target?.port ?? 0);
    if (!choice.allowed) return { ok: false, code: choice.code, reason: choice.reason };
    const target = ask.target ?? choice.target;
    return { ok: true, request: { displayId: ask.displayId, target, credentials: ask.credentials, settings: ask.settings, assistance: ask.assistance, requestedBy } };
  }

  /**
   * Mints a session and its single-use token and tells the display (wherever
   * its control socket lives), booking the display for it whoever held it
   * (signage owns its display). The target
   * is checked again when the data socket connects: that check is the one
   * that counts.
   */
  async project(request: ProjectionRequest): Promise<string> {
    const sessionId = SessionTokenSigner.newSessionId();
    await this.deps.store.bookDisplay({ displayId: request.displayId, sessionId, until: this.clock() + this.deps.timeouts.sessionTokenMs }, { force: true });
    await this.mint(sessionId, request);
    return sessionId;
  }

  private async mint(sessionId: string, request: ProjectionRequest, slot = 0): Promise<void> {
    const now = this.clock();
    const expiresAt = now + this.deps.timeouts.sessionTokenMs;
    const sessionToken = this.deps.signer.sign({ sessionId, displayId: request.displayId, target: request.target, expiresAt, ...(request.browser === true ? { source: 'browser' as const } : {}) });
    const { host, port, name } = request.target;
    const { store, sealer } = this.deps;
    await store.putSession({
      sessionId, displayId: request.displayId, target: { host, port, name }, state: 'minted', mintedAt: now, expiresAt,
      ...(request.requestedBy ? { requestedBy: request.requestedBy } : {}),
      ...(slot === 0 ? {} : { slot }), ...(request.requestId === undefined ? {} : { requestId: request.requestId }),
    });
    // A browser source cannot be resumed through another gateway: its presenter socket ends with this one.
    if (sealer && request.browser !== true) {
      await store.setIntent({
        displayId: request.displayId, sessionId, target: { host, port, name }, since: now, requestedBy: request.requestedBy,
        ...(slot === 0 ? {} : { slot }), ...(request.requestId === undefined ? {} : { requestId: request.requestId }),
        sealed: sealer.seal({ credentials: request.credentials, settings: request.settings, assistance: request.assistance }),
      });
    }
    this.deps.publish({
      kind: 'project', displayId: request.displayId,
      message: {
        type: 'project', sessionId, sessionToken,
        target: { name: name ?? `${host}:${port}`, host, port },
        ...(request.credentials ? { credentials: request.credentials } : {}),
        ...(request.settings ?? request.assistance ? { settings: { ...request.settings, ...(request.assistance ? { assistance: request.assistance } : {}) } } : {}),
        // The display keeps the room PIN in view over its own signage (it gives way to presenters); the control channel drops it for displays that did not ask.
        ...(request.requestedBy?.kind === 'signage' ? { signage: true } : {}),
        // The control channel sends it only to displays that announced `slots` (and slot 0 needs no word).
        ...(slot === 0 ? {} : { slot }),
        // A browser presenter's page is the server: the display's touch is a laser pointer there (issue 30).
        ...(request.browser === true ? { source: 'browser' as const } : {}),
      },
    });
    this.deps.publish({ kind: 'slots-changed', displayId: request.displayId });
  }

  /** Projects a signage display (autoProject) and notes when, for the backoff; no-op for other displays and while a presenter has it. */
  async projectSignage(displayId: string): Promise<string | undefined> {
    const autoProject = this.deps.directory.get(displayId)?.autoProject;
    if (!autoProject) return undefined;
    // A presenter has the display (WS-Discovery Connect): signage waits until that session ends.
    if (await this.displayState(displayId) === 'presenting') return undefined;
    const { store } = this.deps;
    await store.setReprojection(displayId, projectedAt(await store.getReprojection(displayId), this.clock()));
    const { credentials, touch, ...target } = autoProject;
    const sessionId = await this.project({ displayId, target, credentials, requestedBy: { kind: 'signage' } });
    // Allowed before the display connects: the engine reads it from the store when the session is secured.
    if (touch === true) await this.setTouch(displayId, sessionId, true, { kind: 'signage' });
    return sessionId;
  }

  /** A session of the display ended: how long to wait before projecting it again, or undefined for no signage. */
  async reprojectionDelay(displayId: string): Promise<number | undefined> {
    if (!this.deps.directory.get(displayId)?.autoProject) return undefined;
    const { store, timeouts } = this.deps;
    const { delayMs, state } = afterSessionEnd(await store.getReprojection(displayId), this.clock(), { baseMs: timeouts.reprojectMs, maxMs: timeouts.reprojectMaxMs });
    await store.setReprojection(displayId, state);
    return delayMs;
  }

  /** A slot of the display was freed or changed outside a session's own end: its page hears the layout again. */
  slotsChanged(displayId: string): void {
    this.deps.publish({ kind: 'slots-changed', displayId });
  }

  stopSession(displayId: string, sessionId: string, reason: string): void {
    this.deps.publish({ kind: 'stop-session', displayId, sessionId, reason });
  }

  /** An administrator ends a session, wherever it relays; false when the store knows no such live session. */
  async endSession(sessionId: string, by?: Requester): Promise<boolean> {
    const record = await this.deps.store.getSession(sessionId);
    if (!record || record.state === 'ended') return false;
    // Its presenter's status says who ended it (the relay's end would say only "stopped").
    const request = record.requestId === undefined ? undefined : await this.deps.store.getRoomRequest(record.requestId);
    if (request?.state === 'on-screen') {
      await this.deps.store.updateRoomRequest(request.requestId, ['on-screen'], { ...request, state: 'ended', decidedAt: this.clock(), decidedBy: actorName(by), reason: `ended by ${actorName(by)}` });
    }
    this.stopSession(record.displayId, sessionId, 'stopped by an administrator');
    await this.audit(by, 'session-ended-by-admin', { displayId: record.displayId, sessionId });
    return true;
  }

  // Sessions

  /**
   * A data socket presents its session token: the signature, the session it
   * names, its lifetime, and the one claim per session across every worker
   * sharing the store. Throws the SessionError to close the socket with.
   */
  async openSession(sessionId: string, token: unknown): Promise<SessionGrant> {
    return this.claim(sessionId, token, undefined);
  }

  /**
   * A presenter page's socket presents its presenter token: signed like a
   * session token, for this session's presenter leg only, and claimed once
   * (apart from the display's claim of the same session).
   */
  async openPresenterLeg(sessionId: string, token: unknown): Promise<SessionGrant> {
    return this.claim(sessionId, token, 'presenter');
  }

  /** The presenter socket's single-use token for a browser-source session, valid as long as the display's. */
  presenterToken(grant: { sessionId: string; displayId: string }): { token: string; expiresAt: number } {
    const expiresAt = this.clock() + this.deps.timeouts.sessionTokenMs;
    const token = this.deps.signer.sign({ ...grant, target: { ...BROWSER_TARGET }, expiresAt, source: 'browser', leg: 'presenter' });
    return { token, expiresAt };
  }

  private async claim(sessionId: string, token: unknown, leg: 'presenter' | undefined): Promise<SessionGrant> {
    const check = this.deps.signer.verify(typeof token === 'string' ? token : '', this.clock());
    if (!check.ok) {
      if (check.reason === 'expired') throw new SessionError('open', 'unknown-session', 'the session has expired');
      throw new SessionError('open', 'unauthorized', 'the session token is not valid');
    }
    if (check.grant.sessionId !== sessionId) throw new SessionError('open', 'unauthorized', 'the session token belongs to another session');
    // A display's token does not open a presenter's socket, nor the other way round.
    if (check.grant.leg !== leg) throw new SessionError('open', 'unauthorized', leg ? 'not a presenter token' : 'a presenter token does not open a data socket');
    let first: boolean;
    try {
      first = await this.deps.store.claimSession(sessionId, check.grant.expiresAt, leg);
    } catch (error) {
      // Fail closed: a token that cannot be claimed opens nothing.
      throw new SessionError('open', 'internal', undefined, {}, { error: (error as Error).message });
    }
    if (!first) throw new SessionError('open', 'unauthorized', 'the session token was already used');
    return check.grant;
  }

  async sessionSecured(sessionId: string): Promise<void> {
    const now = this.clock();
    const record = await this.deps.store.updateSession(sessionId, { state: 'active', securedAt: now });
    if (record?.state === 'active') {
      await this.audit(record.requestedBy, 'projection-started', { displayId: record.displayId, sessionId, detail: { setupMs: now - record.mintedAt } });
    }
  }

  /**
   * The session is over (any reason): its booking is released and, unless the
   * gateway is shutting down (the display may resume through another), the
   * display's intent is forgotten. The display's worker hears of it to
   * project signage again.
   */
  async sessionEnded(grant: SessionGrant, reason: string): Promise<void> {
    const { store } = this.deps;
    this.deps.publish({ kind: 'session-ended', displayId: grant.displayId, sessionId: grant.sessionId });
    const record = await store.updateSession(grant.sessionId, { state: 'ended', endedAt: this.clock(), endReason: reason });
    // A drain keeps the request on screen: the session comes back into its slot through another gateway.
    if (record?.requestId !== undefined && reason !== 'gateway-shutdown') await this.requestEnded(record.requestId, grant.sessionId, reason);
    this.deps.publish({ kind: 'slots-changed', displayId: grant.displayId });
    await Promise.all([
      store.releaseDisplay(grant.displayId, grant.sessionId),
      reason === 'gateway-shutdown' ? Promise.resolve() : store.clearIntent(grant.displayId, grant.sessionId),
      this.audit(undefined, 'projection-ended', { displayId: grant.displayId, sessionId: grant.sessionId, detail: { reason, ...(record?.securedAt ? { seconds: Math.round((this.clock() - record.securedAt) / 1000) } : {}) } }),
    ]);
  }

  /**
   * The request a session answered is over with it, unless someone already
   * said why (a moderator's end, a take-over): then their words stay.
   */
  private async requestEnded(requestId: string, sessionId: string, reason: string): Promise<void> {
    const { store } = this.deps;
    const request = await store.getRoomRequest(requestId);
    if (request?.state !== 'on-screen' || request.sessionId !== sessionId) return;
    const ended = await store.updateRoomRequest(requestId, ['on-screen'], {
      ...request, state: 'ended', decidedAt: this.clock(), decidedBy: 'gateway', reason: endedInWords(reason),
    });
    if (ended) await this.audit(undefined, 'room-source-ended', { displayId: request.displayId, sessionId, detail: { request: requestId, slot: request.slot ?? 0, reason: endedInWords(reason) } });
  }

  /** The relay's per-second figures of the sessions it carries; their bookings are renewed for SESSION_LEASE_MS. */
  sampleSessions(samples: SessionSample[]): Promise<void> {
    return this.deps.store.sampleSessions(samples, this.clock() + SESSION_LEASE_MS);
  }

  /** A display's report on what it showed of its session (its control socket's `figures`): kept only for that display's live session. */
  recordShown(sessionId: string, displayId: string, figures: Omit<DisplayFigures, 'reportedAt'>): Promise<boolean> {
    return this.deps.store.recordShown(sessionId, displayId, { ...figures, reportedAt: this.clock() });
  }

  listSessions(): Promise<SessionRecord[]> {
    return this.deps.store.listSessions();
  }

  // Audit log and certificate pins

  async audit(by: Requester | undefined, action: AuditAction, fields: Omit<AuditInput, 'at' | 'actor' | 'action'> = {}): Promise<void> {
    await this.deps.store.appendAudit({ at: this.clock(), actor: actorName(by), action, ...fields });
  }

  listAudit(query: { before?: number | undefined; limit: number }): Promise<AuditPage> {
    return this.deps.store.listAudit(query);
  }

  listPinConflicts(): Promise<PinConflict[]> {
    return this.deps.store.listPinConflicts();
  }

  /** An admin cleared a pin (the pin store has forgotten it): its conflict goes too. */
  async pinCleared(key: string, by?: Requester): Promise<void> {
    await this.deps.store.clearPinConflicts([key]);
    await this.audit(by, 'pin-cleared', { detail: { key } });
  }

  /** A server's certificate differs from its first-use pin: kept for the admin to see and clear. */
  async pinChanged(conflicts: PinConflict[]): Promise<void> {
    await this.deps.store.recordPinConflicts(conflicts);
    await Promise.all(conflicts.map((conflict) => this.audit(undefined, 'pin-changed', {
      displayId: conflict.displayId, detail: { key: conflict.key, pinned: conflict.pinned, seen: conflict.seen },
    })));
  }
}

/** Why a source left the screen, in words for its presenter's page and the audit log. */
export function endedInWords(reason: string): string {
  switch (reason) {
    case 'stopped': return 'stopped';
    case 'server-closed': return 'the presenting computer ended the session';
    case 'client-closed': return 'the display closed the session';
    case 'expired': return 'the display did not open the session in time';
    case 'gateway-lost': return 'its gateway was lost';
    default: return `ended with an error (${reason})`;
  }
}

function unknownDisplay(displayId: string): { ok: false; code: 'unknown-display'; reason: string } {
  return { ok: false, code: 'unknown-display', reason: `no display "${displayId}"` };
}

/** An id for a display the admin named but gave no id: the name's letters and a short random tail. */
function displayIdFromName(name: string): string {
  const slug = name.toLowerCase().normalize('NFKD').replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 48);
  return `${slug || 'display'}-${randomBytes(3).toString('hex')}`;
}

/** A display's desktop preference in the audit log's words ("3840×2160, 200 %", "the panel's size, scale by size"). */
function desktopWords(desktop: DesktopPreference | undefined): string {
  const size = desktop?.width !== undefined && desktop.height !== undefined ? `${desktop.width}×${desktop.height}` : "the panel's size";
  return `${size}, ${desktop?.scale === undefined ? 'scale by size' : `${desktop.scale} %`}`;
}
