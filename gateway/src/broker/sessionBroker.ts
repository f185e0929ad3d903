// The broker: which displays exist and which are online, which sessions were
// minted and how they went, and the projection decisions (may this request
// go there, mint the session and its token, project a signage display again
// and when). It holds no socket and no timer: the control and data socket
// adapters (../channel) and the admin API (../api) call it, its state sits in
// a BrokerStore, and what other workers must act on leaves as BrokerEvents.
import { randomBytes } from 'node:crypto';
import type { Credentials, DisplayConfig, TargetConfig } from '../config/configSchema.js';
import { SessionTokenSigner, type SessionGrant } from '../session/sessionToken.js';
import { SessionError } from '../session/sessionError.js';
import type { AssistanceSettings, SessionSettings } from '@lanterna/protocol';
import type { TargetPolicy } from '../policy/targetPolicy.js';
import type { InvitationErrorCode } from '../assistance/raInvitation.js';
import type { DisplayDirectory } from './displayDirectory.js';
import type { BrokerStore, SessionRecord } from './brokerStore.js';
import type { PublishEvent } from './brokerEvents.js';
import { afterSessionEnd, projectedAt } from './reprojectBackoff.js';
import { checkTarget, chooseInvitationTarget, type ResolveTarget } from './targetChoice.js';

export interface ProjectionRequest {
  displayId: string;
  target: TargetConfig;
  credentials?: Credentials | undefined;
  settings?: SessionSettings | undefined;
  /** A Remote Assistance invitation the client answers instead of credentials. */
  assistance?: AssistanceSettings | undefined;
}

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
  /** The room PIN the presenter typed (WS-Discovery Connect); checked where requestProjection says ROOM PIN. */
  pin?: string | undefined;
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

export interface DisplayView { id: string; name: string; location?: string | undefined; online: boolean }

export interface BrokerTimeouts {
  /** How long a minted session's token opens it. */
  sessionTokenMs: number;
  /** Pause before a signage display is projected again; doubles while sessions fail at once. */
  reprojectMs: number;
  reprojectMaxMs: number;
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
  clock?: () => number;
}

export class SessionBroker {
  private readonly clock: () => number;

  constructor(private readonly deps: BrokerDeps) {
    this.clock = deps.clock ?? Date.now;
  }

  // Displays

  authenticateDisplay(displayId: string, token: unknown): DisplayConfig | undefined {
    return this.deps.directory.authenticate(displayId, token);
  }

  async listDisplays(): Promise<DisplayView[]> {
    const online = new Set((await this.deps.store.listPresence()).map((presence) => presence.displayId));
    return this.deps.directory.list().map((display) => ({
      id: display.id, name: display.name ?? display.id, ...(display.location === undefined ? {} : { location: display.location }), online: online.has(display.id),
    }));
  }

  async displayState(displayId: string): Promise<DisplayState> {
    const [presence, sessions] = await Promise.all([this.deps.store.listPresence(), this.deps.store.listSessions()]);
    if (!presence.some((entry) => entry.displayId === displayId)) return 'offline';
    const now = this.clock();
    // A signage display showing its own autoProject target is free for a presenter: it gives way, and comes back after.
    const signage = this.deps.directory.get(displayId)?.autoProject;
    const busy = sessions.some((record) => record.displayId === displayId
      && !(signage && record.target.host === signage.host && record.target.port === signage.port)
      && (record.state === 'claimed' || record.state === 'active' || (record.state === 'minted' && record.expiresAt > now)));
    return busy ? 'presenting' : 'idle';
  }

  getSession(sessionId: string): Promise<SessionRecord | undefined> {
    return this.deps.store.getSession(sessionId);
  }

  /**
   * A control socket authenticated for the display: it takes the display over
   * (any other socket of it, on any worker, is replaced) and its signage
   * backoff starts again. Returns the owner id that tells the sockets apart.
   */
  async displayOnline(displayId: string): Promise<string> {
    const owner = randomBytes(8).toString('hex');
    this.deps.publish({ kind: 'display-claimed', displayId, owner });
    await Promise.all([
      this.deps.store.setPresence({ displayId, owner, since: this.clock() }),
      this.deps.store.setReprojection(displayId, undefined),
    ]);
    return owner;
  }

  async displayOffline(displayId: string, owner: string): Promise<void> {
    await this.deps.store.clearPresence(displayId, owner);
  }

  // Projection

  /** A request from the admin API: the display must exist and the target pass the policy. */
  async requestProjection(ask: ProjectionAsk): Promise<ProjectionOutcome> {
    const check = await this.checkProjection(ask);
    if (!check.ok) return check;
    const sessionId = await this.project(check.request);
    return { ok: true, sessionId, target: { host: check.request.target.host, port: check.request.target.port } };
  }

  /**
   * The decision of requestProjection without the minting: the display
   * exists and the target (or the invitation's first allowed address) passes
   * the policy. Presenter requests check this before they use up the room PIN.
   */
  async checkProjection(ask: ProjectionAsk): Promise<{ ok: true; request: ProjectionRequest } | { ok: false; code: ProjectionRefusal; reason: string }> {
    if (!this.deps.directory.get(ask.displayId)) return { ok: false, code: 'unknown-display', reason: `no display "${ask.displayId}"` };
    // ROOM PIN: the room-pin work's broker check of `ask.pin` belongs here, before the display's state is read.
    if (ask.exclusive) {
      const state = await this.displayState(ask.displayId);
      if (state === 'offline') return { ok: false, code: 'display-offline', reason: 'the display is switched off or not connected to the gateway' };
      if (state === 'presenting') return { ok: false, code: 'display-busy', reason: 'the display is showing another presentation; ask its presenter to stop first' };
    }
    const { policy, resolveTarget } = this.deps;
    const choice = ask.assistance
      ? await chooseInvitationTarget(policy, resolveTarget, ask.assistance)
      : await checkTarget(policy, resolveTarget, ask.target?.host ?? '', ask.target?.port ?? 0);
    if (!choice.allowed) return { ok: false, code: choice.code, reason: choice.reason };
    const target = ask.target ?? choice.target;
    return { ok: true, request: { displayId: ask.displayId, target, credentials: ask.credentials, settings: ask.settings, assistance: ask.assistance } };
  }

  /**
   * Mints a session and its single-use token and tells the display (wherever
   * its control socket lives). The target is checked again when the data
   * socket connects: that check is the one that counts.
   */
  async project(request: ProjectionRequest): Promise<string> {
    const now = this.clock();
    const sessionId = SessionTokenSigner.newSessionId();
    const expiresAt = now + this.deps.timeouts.sessionTokenMs;
    const sessionToken = this.deps.signer.sign({ sessionId, displayId: request.displayId, target: request.target, expiresAt });
    const { host, port, name } = request.target;
    await this.deps.store.putSession({ sessionId, displayId: request.displayId, target: { host, port, name }, state: 'minted', mintedAt: now, expiresAt });
    this.deps.publish({
      kind: 'project', displayId: request.displayId,
      message: {
        type: 'project', sessionId, sessionToken,
        target: { name: name ?? `${host}:${port}`, host, port },
        ...(request.credentials ? { credentials: request.credentials } : {}),
        ...(request.settings ?? request.assistance ? { settings: { ...request.settings, ...(request.assistance ? { assistance: request.assistance } : {}) } } : {}),
      },
    });
    return sessionId;
  }

  /** Projects a signage display (autoProject) and notes when, for the backoff; no-op for other displays and while a presenter has it. */
  async projectSignage(displayId: string): Promise<string | undefined> {
    const autoProject = this.deps.directory.get(displayId)?.autoProject;
    if (!autoProject) return undefined;
    // A presenter has the display (WS-Discovery Connect): signage waits until that session ends.
    if (await this.displayState(displayId) === 'presenting') return undefined;
    const { store } = this.deps;
    await store.setReprojection(displayId, projectedAt(await store.getReprojection(displayId), this.clock()));
    const { credentials, ...target } = autoProject;
    return this.project({ displayId, target, credentials });
  }

  /** A session of the display ended: how long to wait before projecting it again, or undefined for no signage. */
  async reprojectionDelay(displayId: string): Promise<number | undefined> {
    if (!this.deps.directory.get(displayId)?.autoProject) return undefined;
    const { store, timeouts } = this.deps;
    const { delayMs, state } = afterSessionEnd(await store.getReprojection(displayId), this.clock(), { baseMs: timeouts.reprojectMs, maxMs: timeouts.reprojectMaxMs });
    await store.setReprojection(displayId, state);
    return delayMs;
  }

  stopSession(displayId: string, sessionId: string, reason: string): void {
    this.deps.publish({ kind: 'stop-session', displayId, sessionId, reason });
  }

  // Sessions

  /**
   * A data socket presents its session token: the signature, the session it
   * names, its lifetime, and the one claim per session across every worker
   * sharing the store. Throws the SessionError to close the socket with.
   */
  async openSession(sessionId: string, token: unknown): Promise<SessionGrant> {
    const check = this.deps.signer.verify(typeof token === 'string' ? token : '', this.clock());
    if (!check.ok) {
      if (check.reason === 'expired') throw new SessionError('open', 'unknown-session', 'the session has expired');
      throw new SessionError('open', 'unauthorized', 'the session token is not valid');
    }
    if (check.grant.sessionId !== sessionId) throw new SessionError('open', 'unauthorized', 'the session token belongs to another session');
    let first: boolean;
    try {
      first = await this.deps.store.claimSession(sessionId, check.grant.expiresAt);
    } catch (error) {
      // Fail closed: a token that cannot be claimed opens nothing.
      throw new SessionError('open', 'internal', undefined, {}, { error: (error as Error).message });
    }
    if (!first) throw new SessionError('open', 'unauthorized', 'the session token was already used');
    return check.grant;
  }

  async sessionSecured(sessionId: string): Promise<void> {
    await this.deps.store.updateSession(sessionId, { state: 'active', securedAt: this.clock() });
  }

  /** The session is over (any reason); the display's worker hears of it to project signage again. */
  async sessionEnded(grant: SessionGrant, reason: string): Promise<void> {
    this.deps.publish({ kind: 'session-ended', displayId: grant.displayId, sessionId: grant.sessionId });
    await this.deps.store.updateSession(grant.sessionId, { state: 'ended', endedAt: this.clock(), endReason: reason });
  }

  listSessions(): Promise<SessionRecord[]> {
    return this.deps.store.listSessions();
  }
}
