// A session's life after its mint: the data socket's one claim (and the
// presenter page's, for a browser source), secured, sampled once a second
// (which renews its booking's lease), the display's report of what it showed,
// the presenter's touch permission, stopped by an admin or a presenter, and
// ended (booking released, intent forgotten unless the gateway drains, its
// room request closed). Both relay engines report here through one ledger
// (../channel/sessionLedger.ts).
import type { SessionGrant, SessionTokenSigner } from '../session/sessionToken.js';
import { SessionError } from '../session/sessionError.js';
import type { BrokerStore, DisplayFigures, Requester, SessionRecord, SessionSample } from './brokerStore.js';
import type { PublishEvent } from './brokerEvents.js';
import { actorName, type AuditLog } from './auditLog.js';
import { BROWSER_TARGET } from './sessionMint.js';

/** A session the relay stops sampling for this long is lost (its gateway died): its booking lapses. */
export const SESSION_LEASE_MS = 3000;

export interface SessionLifecycleDeps {
  store: BrokerStore;
  signer: SessionTokenSigner;
  publish: PublishEvent;
  auditLog: AuditLog;
  /** How long a presenter token opens its leg (as long as the display's session token). */
  sessionTokenMs: number;
  /** Ms since the epoch; composeBroker gives every part the same one. */
  clock: () => number;
}

export class SessionLifecycle {
  constructor(private readonly deps: SessionLifecycleDeps) {}

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
    const expiresAt = this.deps.clock() + this.deps.sessionTokenMs;
    const token = this.deps.signer.sign({ ...grant, target: { ...BROWSER_TARGET }, expiresAt, source: 'browser', leg: 'presenter' });
    return { token, expiresAt };
  }

  private async claim(sessionId: string, token: unknown, leg: 'presenter' | undefined): Promise<SessionGrant> {
    const check = this.deps.signer.verify(typeof token === 'string' ? token : '', this.deps.clock());
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
    const now = this.deps.clock();
    const record = await this.deps.store.updateSession(sessionId, { state: 'active', securedAt: now });
    if (record?.state === 'active') {
      await this.deps.auditLog.record(record.requestedBy, 'projection-started', { displayId: record.displayId, sessionId, detail: { setupMs: now - record.mintedAt } });
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
    const record = await store.updateSession(grant.sessionId, { state: 'ended', endedAt: this.deps.clock(), endReason: reason });
    // A drain keeps the request on screen: the session comes back into its slot through another gateway.
    if (record?.requestId !== undefined && reason !== 'gateway-shutdown') await this.requestEnded(record.requestId, grant.sessionId, reason);
    this.deps.publish({ kind: 'slots-changed', displayId: grant.displayId });
    await Promise.all([
      store.releaseDisplay(grant.displayId, grant.sessionId),
      reason === 'gateway-shutdown' ? Promise.resolve() : store.clearIntent(grant.displayId, grant.sessionId),
      this.deps.auditLog.record(undefined, 'projection-ended', { displayId: grant.displayId, sessionId: grant.sessionId, detail: { reason, ...(record?.securedAt ? { seconds: Math.round((this.deps.clock() - record.securedAt) / 1000) } : {}) } }),
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
      ...request, state: 'ended', decidedAt: this.deps.clock(), decidedBy: 'gateway', reason: endedInWords(reason),
    });
    if (ended) await this.deps.auditLog.record(undefined, 'room-source-ended', { displayId: request.displayId, sessionId, detail: { request: requestId, slot: request.slot ?? 0, reason: endedInWords(reason) } });
  }

  /** The relay's per-second figures of the sessions it carries; their bookings are renewed for SESSION_LEASE_MS. */
  sampleSessions(samples: SessionSample[]): Promise<void> {
    return this.deps.store.sampleSessions(samples, this.deps.clock() + SESSION_LEASE_MS);
  }

  /** A display's report on what it showed of its session (its control socket's `figures`): kept only for that display's live session. */
  recordShown(sessionId: string, displayId: string, figures: Omit<DisplayFigures, 'reportedAt'>): Promise<boolean> {
    return this.deps.store.recordShown(sessionId, displayId, { ...figures, reportedAt: this.deps.clock() });
  }

  listSessions(): Promise<SessionRecord[]> {
    return this.deps.store.listSessions();
  }

  getSession(sessionId: string): Promise<SessionRecord | undefined> {
    return this.deps.store.getSession(sessionId);
  }

  /** Stops the session wherever it relays (the worker or gateway holding its data socket hears it). */
  stopSession(displayId: string, sessionId: string, reason: string): void {
    this.deps.publish({ kind: 'stop-session', displayId, sessionId, reason });
  }

  /** A slot of the display was freed or changed outside a session's own end: its page hears the layout again. */
  slotsChanged(displayId: string): void {
    this.deps.publish({ kind: 'slots-changed', displayId });
  }

  /** An administrator ends a session, wherever it relays; false when the store knows no such live session (of `displayId`, when named). */
  async endSession(sessionId: string, by?: Requester, displayId?: string): Promise<boolean> {
    const record = await this.deps.store.getSession(sessionId);
    if (!record || record.state === 'ended' || (displayId !== undefined && record.displayId !== displayId)) return false;
    // Its presenter's status says who ended it (the relay's end would say only "stopped").
    const request = record.requestId === undefined ? undefined : await this.deps.store.getRoomRequest(record.requestId);
    if (request?.state === 'on-screen') {
      await this.deps.store.updateRoomRequest(request.requestId, ['on-screen'], { ...request, state: 'ended', decidedAt: this.deps.clock(), decidedBy: actorName(by), reason: `ended by ${actorName(by)}` });
    }
    this.stopSession(record.displayId, sessionId, 'stopped by an administrator');
    await this.deps.auditLog.record(by, 'session-ended-by-admin', { displayId: record.displayId, sessionId });
    return true;
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
    if ((before.touch === true) !== allowed) await this.deps.auditLog.record(by, allowed ? 'touch-allowed' : 'touch-revoked', { displayId, sessionId });
    return after;
  }

  /** Whether the session's presenter lets the display control the computer now (false when unknown). */
  async touchAllowed(sessionId: string): Promise<boolean> {
    return (await this.deps.store.getSession(sessionId))?.touch === true;
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
