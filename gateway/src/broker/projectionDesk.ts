// Projection decisions: may this request go to that display (the display
// exists, the target or the invitation's first allowed address passes the
// policy on resolved addresses, the display is free), which slot it gets
// (booked atomically in the store, so of two requests through two gateways
// one wins), take-overs, forced projections (signage) and when a signage
// display is projected again. Minting is sessionMint.ts's.
import type { Credentials, TargetConfig } from '../config/configSchema.js';
import { SessionTokenSigner } from '../session/sessionToken.js';
import type { TargetPolicy } from '../policy/targetPolicy.js';
import type { InvitationErrorCode } from '../assistance/raInvitation.js';
import type { AssistanceSettings, SessionSettings } from '@lanterna/protocol';
import type { DisplayDirectory } from './displayDirectory.js';
import type { BrokerStore, Requester } from './brokerStore.js';
import type { PublishEvent } from './brokerEvents.js';
import type { AuditLog } from './auditLog.js';
import type { BrokerTimeouts } from './brokerParts.js';
import { unknownDisplay, type DisplayRegistry } from './displayRegistry.js';
import type { OnlineDisplays } from './onlineDisplays.js';
import type { SessionLifecycle } from './sessionLifecycle.js';
import { BROWSER_TARGET, type ProjectionRequest, type SessionMint } from './sessionMint.js';
import { afterSessionEnd, projectedAt } from './reprojectBackoff.js';
import { checkTarget, chooseInvitationTarget, type ResolveTarget } from './targetChoice.js';

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

export type ProjectionOutcome =
  | { ok: true; sessionId: string; target: { host: string; port: number } }
  | { ok: false; code: ProjectionRefusal; reason: string };

export interface ProjectionDeskDeps {
  directory: DisplayDirectory;
  store: BrokerStore;
  policy: TargetPolicy;
  /** Resolves a target's name for the policy check, with its own deadline. */
  resolveTarget: ResolveTarget;
  publish: PublishEvent;
  displays: DisplayRegistry;
  presence: OnlineDisplays;
  mint: SessionMint;
  /** A signage display whose configuration lets its touch control the computer allows it here. */
  touch: Pick<SessionLifecycle, 'setTouch'>;
  auditLog: AuditLog;
  timeouts: Pick<BrokerTimeouts, 'sessionTokenMs' | 'reprojectMs' | 'reprojectMaxMs'>;
  /** Ms since the epoch; composeBroker gives every part the same one. */
  clock: () => number;
}

export class ProjectionDesk {
  constructor(private readonly deps: ProjectionDeskDeps) {}

  /**
   * A request from outside (admin API, WS-Discovery Connect): the display must
   * exist, the target pass the policy, and the display be free — booked
   * atomically, so of two requests for one display through two gateways one wins.
   */
  async requestProjection(ask: ProjectionAsk, requestedBy?: Requester): Promise<ProjectionOutcome> {
    const outcome = await this.decideProjection(ask, requestedBy);
    const { auditLog } = this.deps;
    if (outcome.ok) {
      await auditLog.record(requestedBy, 'projection-requested', { displayId: ask.displayId, sessionId: outcome.sessionId, detail: { target: `${outcome.target.host}:${outcome.target.port}` } });
    } else {
      await auditLog.record(requestedBy, 'projection-refused', { displayId: ask.displayId, detail: { code: outcome.code, reason: outcome.reason } });
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

  /**
   * The decision of requestProjection without the booking and minting: the
   * display exists and the target (or the invitation's first allowed address)
   * passes the policy. Presenter requests check this before they use up the room PIN.
   */
  async checkProjection(ask: ProjectionAsk, requestedBy?: Requester): Promise<{ ok: true; request: ProjectionRequest } | { ok: false; code: ProjectionRefusal; reason: string }> {
    if (!await this.deps.displays.getDisplay(ask.displayId)) return unknownDisplay(ask.displayId);
    // No room PIN here: presenters (page, API, WS-Discovery Connect) come through
    // PresenterProjections, which checks it before this and uses it up after.
    if (ask.exclusive) {
      const state = await this.deps.presence.displayState(ask.displayId);
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
    const capacity = await this.deps.presence.slotCapacity(request.displayId);
    const booked = await this.deps.store.bookFreeSlot(
      { displayId: request.displayId, sessionId, until: this.deps.clock() + this.deps.timeouts.sessionTokenMs },
      capacity, await this.signageSession(request.displayId),
    );
    if (!booked.ok) return undefined;
    await this.deps.mint.mint(sessionId, request, booked.slot);
    return { sessionId, slot: booked.slot };
  }

  /** The session the display is booked for when it is the display's own signage (a presenter may take its place). */
  private async signageSession(displayId: string): Promise<string | undefined> {
    const booking = await this.deps.store.getBooking(displayId, 0);
    if (!booking) return undefined;
    const record = await this.deps.store.getSession(booking.sessionId);
    return record?.requestedBy?.kind === 'signage' ? booking.sessionId : undefined;
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
      { displayId: request.displayId, sessionId, until: this.deps.clock() + this.deps.timeouts.sessionTokenMs, ...(slot === 0 ? {} : { slot }) },
      { replacing: holder },
    );
    if (!booked.ok) return undefined;
    if (holder !== undefined) {
      // Its intent goes (it must not come back into the slot on a resume) and its relay stops wherever it runs.
      await this.deps.store.clearIntent(request.displayId, holder);
      // Whoever took the slot says so on the holder's request before its relay's end can say only "stopped".
      await beforeStop?.(holder);
      this.deps.publish({ kind: 'stop-session', displayId: request.displayId, sessionId: holder, reason });
    }
    await this.deps.mint.mint(sessionId, request, slot);
    return { sessionId, slot };
  }

  /**
   * Mints a session and its single-use token and tells the display (wherever
   * its control socket lives), booking the display for it whoever held it
   * (signage owns its display). The target is checked again when the data
   * socket connects: that check is the one that counts.
   */
  async project(request: ProjectionRequest): Promise<string> {
    const sessionId = SessionTokenSigner.newSessionId();
    await this.deps.store.bookDisplay({ displayId: request.displayId, sessionId, until: this.deps.clock() + this.deps.timeouts.sessionTokenMs }, { force: true });
    await this.deps.mint.mint(sessionId, request);
    return sessionId;
  }

  /** Projects a signage display (autoProject) and notes when, for the backoff; no-op for other displays and while a presenter has it. */
  async projectSignage(displayId: string): Promise<string | undefined> {
    const autoProject = this.deps.directory.get(displayId)?.autoProject;
    if (!autoProject) return undefined;
    // A presenter has the display (WS-Discovery Connect): signage waits until that session ends.
    if (await this.deps.presence.displayState(displayId) === 'presenting') return undefined;
    const { store } = this.deps;
    await store.setReprojection(displayId, projectedAt(await store.getReprojection(displayId), this.deps.clock()));
    const { credentials, touch, ...target } = autoProject;
    const sessionId = await this.project({ displayId, target, credentials, requestedBy: { kind: 'signage' } });
    // Allowed before the display connects: the engine reads it from the store when the session is secured.
    if (touch === true) await this.deps.touch.setTouch(displayId, sessionId, true, { kind: 'signage' });
    return sessionId;
  }

  /** A session of the display ended: how long to wait before projecting it again, or undefined for no signage. */
  async reprojectionDelay(displayId: string): Promise<number | undefined> {
    if (!this.deps.directory.get(displayId)?.autoProject) return undefined;
    const { store, timeouts } = this.deps;
    const { delayMs, state } = afterSessionEnd(await store.getReprojection(displayId), this.deps.clock(), { baseMs: timeouts.reprojectMs, maxMs: timeouts.reprojectMaxMs });
    await store.setReprojection(displayId, state);
    return delayMs;
  }
}
