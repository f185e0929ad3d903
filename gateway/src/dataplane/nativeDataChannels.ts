// The decisions behind the native data plane's data sockets: what
// DataChannels decides for a data socket in this process, answered here by
// RPC (docs/native-data-plane.md, "RPC"), with the same checks, the same
// broker calls, the same logs and metrics. The data plane does the I/O.
import type { Logger } from 'pino';
import type { GatewayConfig } from '../config/configSchema.js';
import type { SessionGrant } from '../session/sessionToken.js';
import { SessionError } from '../session/sessionError.js';
import type { SessionLifecycle } from '../broker/sessionLifecycle.js';
import type { BusEvent } from '../cluster/gatewayBus.js';
import type { RelayTally } from '../metrics/gatewayMetrics.js';
import type { LookupAll } from '../connect/hostResolver.js';
import { resolveAllowed, judgeServerCertificate } from '../connect/targetConnector.js';
import type { SessionLedger, LedgerEntry } from '../channel/sessionLedger.js';
import type { SessionServices } from '../channel/sessionServices.js';
import { originAllowed, type HostGuard } from '../api/requestGuards.js';
import type { TokenGuesses } from '../broker/tokenGuesses.js';
import { admitPresenter, presenterFingerprint } from '../channel/presenterAdmission.js';
import type { ZodMiniType } from 'zod/mini';
import type { RpcAnswer } from './dataPlaneRpc.js';
import {
  RPC_CONTRACT, readMessage,
  type AdmitAnswer, type AdmitRequest, type CertificateAnswer, type CertificateRequest, type DrainRequest, type EndedError, type EndedNotice,
  type OpenAnswer, type OpenRequest, type PhaseNotice, type PresentAnswer, type PresentRequest, type PresenterEndedNotice, type ResolveAnswer,
  type ResolveRequest, type SampleNotice, type SecuredNotice, type StopNotice, type InputNotice,
} from '@lanterna/protocol';

/** What the decisions send the data plane (the RPC's other direction). */
export interface DataPlaneCommands {
  notify(op: 'stop', body: StopNotice): void;
  notify(op: 'input', body: InputNotice): void;
  request(op: 'drain', body: DrainRequest, deadlineMs: number): Promise<Record<string, unknown>>;
}

export interface NativeDataChannelsDeps extends SessionServices {
  config: GatewayConfig;
  /** The session token's one claim, the presenter leg's, and the touch permission when a session is secured. */
  sessions: Pick<SessionLifecycle, 'openSession' | 'openPresenterLeg' | 'touchAllowed'>;
  hosts: HostGuard;
  /** The gateway is draining: new data sockets are refused with 503. */
  draining: () => boolean;
  lookup?: LookupAll | undefined;
  /** The token-guess budget a presenter's `present` counts under (as a display's hello). */
  guesses?: TokenGuesses | undefined;
  /** The broker's calls, metrics and log lines of each session's life (shared with the Node engine). */
  ledger: SessionLedger;
}

/** A session the broker granted here, from `open` to `ended`. */
interface GrantedSession {
  grant: SessionGrant;
  log: Logger;
  /** The address `resolve` answered: the certificate is judged under it. */
  address?: string | undefined;
  secured: boolean;
  /** A `touch-changed` came for it since it was secured (newer than the store read made then). */
  touchHeard?: boolean;
  /**
   * An admin's stop heard before the data plane's `secured` notice: the
   * display may already relay (it hears `secured` from the data plane, the
   * notice comes to us on another pipe), so the stop is sent once it is.
   */
  stopAsked?: boolean;
  /** The last refusal we answered, for its log-only part when `ended` reports it. */
  refusal?: SessionError | undefined;
}

const HANDSHAKE_PHASES = new Set(['connect', 'x224', 'tls']);
const TALLY_FIELDS: readonly (keyof RelayTally)[] = ['bytesToKiosk', 'pdusToKiosk', 'framesToKiosk', 'bytesToServer', 'pdusToServer', 'framesToServer', 'copiedBytes', 'pauses'];
/** Refused opens remembered for their log-only part until `ended` reports them (bounded: a flood of refusals must not grow it). */
const MAX_REMEMBERED_REFUSALS = 1024;
/** A drain's answer may take this long beyond its deadline (the goodbyes, the sockets' close). */
const DRAIN_ANSWER_GRACE_MS = 5000;

export class NativeDataChannels {
  private readonly sessions = new Map<string, GrantedSession>();
  private readonly refusedOpens = new Map<string, SessionError>();
  /** Presenter sockets admitted and not yet ended (a stop reaches them while they wait for their display). */
  private readonly presenters = new Set<string>();
  private commands: DataPlaneCommands | undefined;

  constructor(private readonly deps: NativeDataChannelsDeps) {
    deps.bus.subscribe((event) => this.onBusEvent(event));
  }

  /** Where stops and the drain go: the data plane's channel, once it runs. */
  attach(commands: DataPlaneCommands): void {
    this.commands = commands;
  }

  /** Sessions granted here and not yet ended (handshaking or relaying). */
  get sessionCount(): number {
    return this.sessions.size;
  }

  /** One request from the data plane, read through the contract's schema for its op (protocol's dataPlaneContract.ts). */
  async handle(op: string, message: Record<string, unknown>): Promise<RpcAnswer> {
    const { request } = RPC_CONTRACT;
    switch (op) {
      case 'admit': return this.answerTo(op, request.admit, message, (read) => ({ ok: this.admit(read) }));
      case 'open': return this.answerTo(op, request.open, message, (read) => this.open(read));
      case 'resolve': return this.answerTo(op, request.resolve, message, (read) => this.resolve(read));
      case 'certificate': return this.answerTo(op, request.certificate, message, (read) => this.certificate(read));
      case 'present': return this.answerTo(op, request.present, message, (read) => this.present(read));
      default:
        this.deps.logger.warn({ event: 'dataplane-rpc-unknown-op', op }, 'a data plane request this gateway does not know');
        return refused(new SessionError('relay', 'internal', `unknown request ${op}`));
    }
  }

  /** One notification from the data plane, read through the contract's schema for its op. */
  notice(op: string, message: Record<string, unknown>): void {
    const { notice } = RPC_CONTRACT;
    switch (op) {
      case 'phase': return this.takeNotice(op, notice.phase, message, (read) => this.phase(read));
      case 'secured': return this.takeNotice(op, notice.secured, message, (read) => this.secured(read));
      case 'ended': return this.takeNotice(op, notice.ended, message, (read) => this.ended(read));
      case 'sample': return this.takeNotice(op, notice.sample, message, (read) => this.sample(read));
      case 'presenter-ended': return this.takeNotice(op, notice['presenter-ended'], message, (read) => this.presenterEnded(read));
      default: this.deps.logger.warn({ event: 'dataplane-rpc-unknown-op', op }, 'a data plane notification this gateway does not know');
    }
  }

  /** A request off the contract is the data plane's fault: an internal error for that session, logged with what was wrong. */
  private async answerTo<T>(op: string, schema: ZodMiniType<T>, message: unknown, answer: (read: T) => RpcAnswer | Promise<RpcAnswer>): Promise<RpcAnswer> {
    const read = readMessage(schema, op, message);
    if (read.ok) return answer(read.value);
    this.deps.logger.error({ event: 'dataplane-rpc-off-contract', op }, read.problem);
    return refused(new SessionError('relay', 'internal', undefined, {}, { problem: read.problem }));
  }

  private takeNotice<T>(op: string, schema: ZodMiniType<T>, message: unknown, take: (read: T) => void): void {
    const read = readMessage(schema, op, message);
    if (read.ok) take(read.value);
    else this.deps.logger.error({ event: 'dataplane-rpc-off-contract', op }, read.problem);
  }

  /**
   * Drain: the data plane ends every handshake at once, lets relaying
   * sessions run up to the deadline, then ends them; resolves when every
   * data socket has said goodbye (or the answer is late: logged).
   */
  async drain(deadlineMs: number): Promise<void> {
    try {
      await this.commands?.request('drain', { deadlineMs }, deadlineMs + DRAIN_ANSWER_GRACE_MS);
    } catch (error) {
      this.deps.logger.error({ err: error, event: 'dataplane-drain-failed' }, 'the data plane did not confirm its drain');
    }
  }

  /** The upgrade's checks, as onUpgrade makes them for this process's own sockets. */
  private admit(message: AdmitRequest): AdmitAnswer {
    const { host, origin } = message;
    if (!this.deps.hosts.allows(host)) return { status: 421 };
    if (!originAllowed({ headers: { host, origin } }, this.deps.config.listen.allowedOrigins)) {
      this.deps.logger.info({ event: 'origin-refused', origin }, 'websocket from a foreign page refused');
      return { status: 403 };
    }
    if (this.deps.draining()) return { status: 503 };
    return { status: 0 };
  }

  private async open(message: OpenRequest): Promise<RpcAnswer> {
    const { sessionId } = message;
    const log = this.deps.logger.child({ sessionId, channel: 'data' });
    let grant: SessionGrant;
    try {
      grant = await this.deps.sessions.openSession(sessionId, message.token);
    } catch (error) {
      const refusal = asSessionError(error, log);
      this.rememberRefusal(sessionId, refusal);
      return refused(refusal);
    }
    this.sessions.set(sessionId, { grant, log, secured: false });
    log.info({ event: 'session-opened', displayId: grant.displayId, clientAddress: message.clientAddress }, 'data socket opened');
    this.deps.ledger.opened(grant);
    // A browser source's server leg is its presenter page's socket (docs/browser-presenter.md): the data plane joins them.
    const answer: OpenAnswer = grant.source === 'browser' ? { displayId: grant.displayId, presenter: true } : { displayId: grant.displayId };
    return { ok: answer };
  }

  /**
   * A presenter page's first message on its socket, whole (`message`: its
   * text; absent when it sent binary), judged as the Node engine judges it
   * (channel/presenterAdmission.ts). The answer: how long it may wait for
   * its display, and what the display's `secured` will say of the leg.
   */
  private async present(message: PresentRequest): Promise<RpcAnswer> {
    const { sessionId } = message;
    const log = this.deps.logger.child({ sessionId, channel: 'presenter' });
    try {
      const admitted = await admitPresenter(this.deps, sessionId, message.message, message.clientAddress);
      this.presenters.add(sessionId);
      log.info({ event: 'presenter-waiting' }, 'presenter page connected: waiting for the display');
      const { certificate, publicKey } = admitted;
      // The token lives this long: a display that has not opened its session by then never will.
      const waitMs = Math.max(0, admitted.grant.expiresAt - Date.now()) + this.deps.config.timeouts.requestMs;
      const answer: PresentAnswer = { waitMs, certificates: certificate === undefined ? [] : [certificate], publicKey, fingerprint: presenterFingerprint(certificate) };
      return { ok: answer };
    } catch (error) {
      return refused(asSessionError(error, log));
    }
  }

  /** A presenter's socket ended: its error logged and counted as the Node engine's presenter channel does. */
  private presenterEnded(message: PresenterEndedNotice): void {
    const { sessionId } = message;
    this.presenters.delete(sessionId);
    const log = this.deps.logger.child({ sessionId, channel: 'presenter' });
    const reported = endError(message.error);
    if (!reported) {
      // how a joined page's session ended is the display's session's log line; a page that left on its own, the data plane's
      log.debug({ event: 'presenter-ended', reason: message.reason }, 'presenter socket ended');
      return;
    }
    this.deps.metrics.errors.inc({ phase: reported.phase, code: reported.code });
    if (reported.code === 'internal') log.error({ internal: reported.internal }, 'internal error');
    else log.info({ event: 'presenter-error', phase: reported.phase, code: reported.code }, reported.message);
  }

  private async resolve(message: ResolveRequest): Promise<RpcAnswer> {
    const session = this.granted(message, 'connect');
    if (session instanceof SessionError) return refused(session);
    const { config, policy, lookup } = this.deps;
    // A browser-source session has no target: `open` told the data plane to join its presenter's socket instead.
    if (session.grant.source === 'browser') {
      session.refusal = new SessionError('connect', 'target-forbidden', "a presenter page's session has no target to resolve");
      return refused(session.refusal);
    }
    const { host, port } = session.grant.target;
    try {
      session.address = await resolveAllowed({ target: { host, port }, policy, timeouts: config.timeouts, lookup });
      const answer: ResolveAnswer = { host, port, address: session.address };
      return { ok: answer };
    } catch (error) {
      session.refusal = asSessionError(error, session.log);
      return refused(session.refusal);
    }
  }

  private async certificate(message: CertificateRequest): Promise<RpcAnswer> {
    const session = this.granted(message, 'tls');
    if (session instanceof SessionError) return refused(session);
    try {
      // Judged under the grant's target and the address we allowed, not whatever the message names.
      const address = session.address;
      if (address === undefined) throw new SessionError('tls', 'internal', undefined, {}, { reason: 'certificate before resolve' });
      const trust = await judgeServerCertificate(this.deps.certificates, session.grant.target, address, {
        fingerprint: message.fingerprint, caVerified: message.caVerified, caError: message.caError,
      });
      const answer: CertificateAnswer = { trust };
      return { ok: answer };
    } catch (error) {
      session.refusal = asSessionError(error, session.log);
      return refused(session.refusal);
    }
  }

  private phase(message: PhaseNotice): void {
    const { phase, ms } = message;
    if (HANDSHAKE_PHASES.has(phase) && Number.isFinite(ms)) {
      this.deps.metrics.handshake.observe({ phase }, ms / 1000);
    }
  }

  private secured(message: SecuredNotice): void {
    const session = this.sessions.get(message.sessionId);
    if (!session || session.secured) return;
    session.secured = true;
    const { grant, log } = session;
    log.info({
      event: 'secured', target: grant.source === 'browser' ? 'browser' : `${grant.target.host}:${grant.target.port}`, address: message.address,
      protocol: message.protocol, tls: message.tlsVersion, trust: message.trust, fingerprint: message.fingerprint,
    }, 'server leg secured');
    this.deps.ledger.secured(grant, log);
    if (session.stopAsked === true) this.commands?.notify('stop', { sessionId: grant.sessionId, reason: 'stopped' });
    // The presenter may have allowed control before the display connected; the data plane drops input until told.
    this.deps.sessions.touchAllowed(grant.sessionId).then((allowed) => {
      if (allowed && !session.touchHeard && this.sessions.get(grant.sessionId) === session) this.commands?.notify('input', { sessionId: grant.sessionId, allowed });
    }).catch((error: unknown) => log.warn({ err: error }, 'the presenter\'s touch permission could not be read: input stays off'));
  }

  private ended(message: EndedNotice): void {
    const { sessionId, reason, seconds } = message;
    const reported = endError(message.error);
    // Refused before the broker granted anything (a second socket for a
    // granted session among them): that socket's end is not the session's.
    const beforeGrant = reported !== undefined && reported.phase === 'open' && reported.code !== 'gateway-busy';
    const session = beforeGrant ? undefined : this.sessions.get(sessionId);
    const log = session?.log ?? this.deps.logger.child({ sessionId, channel: 'data' });
    const known = session ? session.refusal : this.takeRefusal(sessionId);
    const error = reported && { ...reported, internal: { ...reported.internal, ...(known?.code === reported.code ? known.internal : {}) } };
    this.deps.ledger.ended(session?.grant, { reason, error, secured: session?.secured ?? false, seconds }, log);
    if (session) this.sessions.delete(sessionId);
  }

  /**
   * Once a second: every granted session's figures to the broker (their
   * bookings renewed, the admin's live view), the relay's tallies and
   * latency observations into the metrics.
   */
  private sample(message: SampleNotice): void {
    const entries: LedgerEntry[] = [];
    for (const figures of message.sessions) {
      const session = this.sessions.get(figures.sessionId);
      if (session) entries.push({ grant: session.grant, totals: session.secured ? figures : undefined });
    }
    this.deps.ledger.sample(entries);
    this.addTally(message.tally);
    this.addLatency(message.latency);
  }

  private addTally(tally: SampleNotice['tally']): void {
    if (!tally) return;
    const { relayTally } = this.deps.metrics;
    for (const field of TALLY_FIELDS) relayTally[field] += tally[field];
  }

  private addLatency(latency: SampleNotice['latency']): void {
    if (!latency) return;
    const { bounds, counts, sum } = latency;
    if (counts.every((value) => value === 0)) return;
    try {
      this.deps.metrics.relayLatency.addCounts(bounds, counts, sum);
    } catch (error) {
      this.deps.logger.warn({ err: error, event: 'dataplane-latency-refused' }, "the data plane's latency counts do not fit the histogram: dropped");
    }
  }

  private granted(message: { readonly sessionId: string }, phase: 'connect' | 'tls'): GrantedSession | SessionError {
    const { sessionId } = message;
    const session = this.sessions.get(sessionId);
    if (session) return session;
    this.deps.logger.error({ sessionId, event: 'dataplane-unknown-session', phase }, 'the data plane asked about a session not opened here');
    return new SessionError(phase, 'internal');
  }

  private rememberRefusal(sessionId: string, refusal: SessionError): void {
    this.refusedOpens.delete(sessionId);
    this.refusedOpens.set(sessionId, refusal);
    if (this.refusedOpens.size > MAX_REMEMBERED_REFUSALS) {
      const oldest = this.refusedOpens.keys().next().value;
      if (oldest !== undefined) this.refusedOpens.delete(oldest);
    }
  }

  private takeRefusal(sessionId: string): SessionError | undefined {
    const refusal = this.refusedOpens.get(sessionId);
    this.refusedOpens.delete(sessionId);
    return refusal;
  }

  private onBusEvent(event: BusEvent): void {
    // As in this process's engine: an admin's stop ends a relaying session, or a presenter page waiting for its display; a handshake runs to its end, then stops.
    if (event.kind === 'stop-session') {
      const session = this.sessions.get(event.sessionId);
      if (session?.secured || this.presenters.has(event.sessionId)) this.commands?.notify('stop', { sessionId: event.sessionId, reason: 'stopped' });
      else if (session) session.stopAsked = true;
    }
    if (event.kind === 'touch-changed') {
      const session = this.sessions.get(event.sessionId);
      if (!session?.secured) return;
      session.touchHeard = true;
      this.commands?.notify('input', { sessionId: event.sessionId, allowed: event.allowed });
    }
  }
}

/** A refused decision's answer: the error as the display gets it. */
function refused(error: SessionError): RpcAnswer {
  return { error: { phase: error.phase, code: error.code, message: error.message, detail: error.detail } };
}

/** A decision's failure as the display gets it; anything not a SessionError is an internal error, logged here. */
function asSessionError(error: unknown, log: Logger): SessionError {
  if (error instanceof SessionError) return error;
  log.error({ err: error }, 'internal error');
  return new SessionError('relay', 'internal', undefined, {}, { error: String(error) });
}

interface ReportedError { phase: string; code: string; message: string; detail: Record<string, unknown>; internal: Record<string, unknown> }

/** Go's nil maps arrive as null: read as empty. */
function endError(error: EndedError | undefined): ReportedError | undefined {
  if (!error) return undefined;
  return { phase: error.phase, code: error.code, message: error.message, detail: error.detail ?? {}, internal: error.internal ?? {} };
}
