// The decisions behind the native data plane's data sockets: what
// DataChannels decides for a data socket in this process, answered here by
// RPC (docs/native-data-plane.md, "RPC"), with the same checks, the same
// broker calls, the same logs and metrics. The data plane does the I/O.
import type { Logger } from 'pino';
import type { GatewayConfig } from '../config/configSchema.js';
import type { SessionGrant } from '../session/sessionToken.js';
import { SessionError } from '../session/sessionError.js';
import type { SessionBroker } from '../broker/sessionBroker.js';
import type { SessionSample } from '../broker/brokerStore.js';
import type { TargetPolicy } from '../policy/targetPolicy.js';
import type { CertificatePolicy } from '../policy/certificatePolicy.js';
import type { GatewayBus, BusEvent } from '../cluster/gatewayBus.js';
import type { GatewayMetrics, RelayTally } from '../metrics/gatewayMetrics.js';
import type { LookupAll } from '../connect/hostResolver.js';
import { resolveAllowed, judgeServerCertificate } from '../connect/targetConnector.js';
import { SessionRates } from '../channel/sessionRates.js';
import { originAllowed, type HostGuard } from '../api/requestGuards.js';
import type { TokenGuesses } from '../broker/tokenGuesses.js';
import { admitPresenter, presenterFingerprint } from '../channel/presenterAdmission.js';
import type { RpcAnswer } from './dataPlaneRpc.js';

/** What the decisions send the data plane (the RPC's other direction). */
export interface DataPlaneCommands {
  notify(op: string, body: Record<string, unknown>): void;
  request(op: string, body: Record<string, unknown>, deadlineMs: number): Promise<Record<string, unknown>>;
}

export interface NativeDataChannelsDeps {
  config: GatewayConfig;
  broker: SessionBroker;
  policy: TargetPolicy;
  certificates: CertificatePolicy;
  bus: GatewayBus;
  metrics: GatewayMetrics;
  logger: Logger;
  hosts: HostGuard;
  /** The gateway is draining: new data sockets are refused with 503. */
  draining: () => boolean;
  lookup?: LookupAll | undefined;
  /** The token-guess budget a presenter's `present` counts under (as a display's hello). */
  guesses?: TokenGuesses | undefined;
}

/** A session the broker granted here, from `open` to `ended`. */
interface GrantedSession {
  grant: SessionGrant;
  log: Logger;
  /** The address `resolve` answered: the certificate is judged under it. */
  address?: string | undefined;
  secured: boolean;
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
  private readonly rates = new SessionRates();
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

  /** One request from the data plane. */
  async handle(op: string, message: Record<string, unknown>): Promise<RpcAnswer> {
    switch (op) {
      case 'admit': return { ok: this.admit(message) };
      case 'open': return this.open(message);
      case 'resolve': return this.resolve(message);
      case 'certificate': return this.certificate(message);
      case 'present': return this.present(message);
      default:
        this.deps.logger.warn({ event: 'dataplane-rpc-unknown-op', op }, 'a data plane request this gateway does not know');
        return refused(new SessionError('relay', 'internal', `unknown request ${op}`));
    }
  }

  /** One notification from the data plane. */
  notice(op: string, message: Record<string, unknown>): void {
    switch (op) {
      case 'phase': return this.phase(message);
      case 'secured': return this.secured(message);
      case 'ended': return this.ended(message);
      case 'sample': return this.sample(message);
      case 'presenter-ended': return this.presenterEnded(message);
      default: this.deps.logger.warn({ event: 'dataplane-rpc-unknown-op', op }, 'a data plane notification this gateway does not know');
    }
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
  private admit(message: Record<string, unknown>): { status: number } {
    const host = optionalText(message.host);
    const origin = optionalText(message.origin);
    if (!this.deps.hosts.allows(host)) return { status: 421 };
    if (!originAllowed({ headers: { host, origin } }, this.deps.config.listen.allowedOrigins)) {
      this.deps.logger.info({ event: 'origin-refused', origin }, 'websocket from a foreign page refused');
      return { status: 403 };
    }
    if (this.deps.draining()) return { status: 503 };
    return { status: 0 };
  }

  private async open(message: Record<string, unknown>): Promise<RpcAnswer> {
    const sessionId = text(message.sessionId);
    const log = this.deps.logger.child({ sessionId, channel: 'data' });
    let grant: SessionGrant;
    try {
      grant = await this.deps.broker.openSession(sessionId, message.token);
    } catch (error) {
      const refusal = asSessionError(error, log);
      this.rememberRefusal(sessionId, refusal);
      return refused(refusal);
    }
    this.sessions.set(sessionId, { grant, log, secured: false });
    log.info({ event: 'session-opened', displayId: grant.displayId, clientAddress: optionalText(message.clientAddress) }, 'data socket opened');
    // The first sample at once (not awaited): from here the display's booking is a short lease, renewed each second.
    this.record([{ sessionId, displayId: grant.displayId, ...ZERO_FIGURES, bytesPerSecond: 0, framesPerSecond: 0, sampledAt: Date.now() }]);
    // A browser source's server leg is its presenter page's socket (docs/browser-presenter.md): the data plane joins them.
    return { ok: grant.source === 'browser' ? { displayId: grant.displayId, presenter: true } : { displayId: grant.displayId } };
  }

  /**
   * A presenter page's first message on its socket, whole (`message`: its
   * text; absent when it sent binary), judged as the Node engine judges it
   * (channel/presenterAdmission.ts). The answer: how long it may wait for
   * its display, and what the display's `secured` will say of the leg.
   */
  private async present(message: Record<string, unknown>): Promise<RpcAnswer> {
    const sessionId = text(message.sessionId);
    const log = this.deps.logger.child({ sessionId, channel: 'presenter' });
    try {
      const admitted = await admitPresenter(this.deps, sessionId, optionalText(message.message), optionalText(message.clientAddress));
      this.presenters.add(sessionId);
      log.info({ event: 'presenter-waiting' }, 'presenter page connected: waiting for the display');
      const { certificate, publicKey } = admitted;
      // The token lives this long: a display that has not opened its session by then never will.
      const waitMs = Math.max(0, admitted.grant.expiresAt - Date.now()) + this.deps.config.timeouts.requestMs;
      return { ok: { waitMs, certificates: certificate === undefined ? [] : [certificate], publicKey, fingerprint: presenterFingerprint(certificate) } };
    } catch (error) {
      return refused(asSessionError(error, log));
    }
  }

  /** A presenter's socket ended: its error logged and counted as the Node engine's presenter channel does. */
  private presenterEnded(message: Record<string, unknown>): void {
    const sessionId = text(message.sessionId);
    this.presenters.delete(sessionId);
    const log = this.deps.logger.child({ sessionId, channel: 'presenter' });
    const reported = endError(message.error);
    if (!reported) {
      // how a joined page's session ended is the display's session's log line; a page that left on its own, the data plane's
      log.debug({ event: 'presenter-ended', reason: optionalText(message.reason) }, 'presenter socket ended');
      return;
    }
    this.deps.metrics.errors.inc({ phase: reported.phase, code: reported.code });
    if (reported.code === 'internal') log.error({ internal: reported.internal }, 'internal error');
    else log.info({ event: 'presenter-error', phase: reported.phase, code: reported.code }, reported.message);
  }

  private async resolve(message: Record<string, unknown>): Promise<RpcAnswer> {
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
      return { ok: { host, port, address: session.address } };
    } catch (error) {
      session.refusal = asSessionError(error, session.log);
      return refused(session.refusal);
    }
  }

  private async certificate(message: Record<string, unknown>): Promise<RpcAnswer> {
    const session = this.granted(message, 'tls');
    if (session instanceof SessionError) return refused(session);
    try {
      // Judged under the grant's target and the address we allowed, not whatever the message names.
      const address = session.address;
      if (address === undefined) throw new SessionError('tls', 'internal', undefined, {}, { reason: 'certificate before resolve' });
      const trust = await judgeServerCertificate(this.deps.certificates, session.grant.target, address, {
        fingerprint: text(message.fingerprint), caVerified: message.caVerified === true, caError: optionalText(message.caError),
      });
      return { ok: { trust } };
    } catch (error) {
      session.refusal = asSessionError(error, session.log);
      return refused(session.refusal);
    }
  }

  private phase(message: Record<string, unknown>): void {
    const { phase, ms } = message;
    if (typeof phase === 'string' && HANDSHAKE_PHASES.has(phase) && typeof ms === 'number' && Number.isFinite(ms) && ms >= 0) {
      this.deps.metrics.handshake.observe({ phase }, ms / 1000);
    }
  }

  private secured(message: Record<string, unknown>): void {
    const session = this.sessions.get(text(message.sessionId));
    if (!session || session.secured) return;
    session.secured = true;
    const { grant, log } = session;
    log.info({
      event: 'secured', target: grant.source === 'browser' ? 'browser' : `${grant.target.host}:${grant.target.port}`, address: message.address,
      protocol: message.protocol, tls: message.tlsVersion, trust: message.trust, fingerprint: message.fingerprint,
    }, 'server leg secured');
    this.deps.metrics.activeSessions.inc();
    this.deps.metrics.sessionsTotal.inc();
    this.deps.broker.sessionSecured(grant.sessionId).catch((error: unknown) => log.warn({ err: error }, 'the broker could not record the session as active'));
  }

  private ended(message: Record<string, unknown>): void {
    const sessionId = text(message.sessionId);
    const reason = optionalText(message.reason) ?? 'error';
    const seconds = typeof message.seconds === 'number' ? message.seconds : undefined;
    const reported = endError(message.error);
    // Refused before the broker granted anything (a second socket for a
    // granted session among them): that socket's end is not the session's.
    const beforeGrant = reported !== undefined && reported.phase === 'open' && reported.code !== 'gateway-busy';
    const session = beforeGrant ? undefined : this.sessions.get(sessionId);
    const log = session?.log ?? this.deps.logger.child({ sessionId, channel: 'data' });
    const known = session ? session.refusal : this.takeRefusal(sessionId);
    const internal = { ...reported?.internal, ...(known?.code === reported?.code ? known?.internal : {}) };
    const { metrics } = this.deps;
    if (reported) {
      metrics.errors.inc({ phase: reported.phase, code: reported.code });
      if (session?.secured) log.info({ event: 'session-ended', reason: 'error', code: reported.code, detail: reported.detail, internal, seconds }, reported.message);
      else if (reported.code === 'internal') log.error({ internal }, 'internal error');
      else log.info({ event: 'session-error', phase: reported.phase, code: reported.code, detail: reported.detail, internal }, reported.message);
    } else if (session?.secured) {
      log.info({ event: 'session-ended', reason, seconds }, 'session ended');
    } else {
      log.info({ event: 'client-gone', reason }, 'display left during the handshake');
    }
    if (!session) return;
    if (session.secured) metrics.activeSessions.dec();
    this.sessions.delete(sessionId);
    this.rates.forget(sessionId);
    this.deps.broker.sessionEnded(session.grant, reported ? reported.code : reason).catch((error: unknown) => log.warn({ err: error }, 'the broker could not record the session end'));
  }

  /**
   * Once a second: every granted session's figures to the broker (their
   * bookings renewed, the admin's live view), the relay's tallies and
   * latency observations into the metrics.
   */
  private sample(message: Record<string, unknown>): void {
    const now = Date.now();
    const samples: SessionSample[] = [];
    for (const entry of Array.isArray(message.sessions) ? message.sessions as unknown[] : []) {
      if (typeof entry !== 'object' || entry === null) continue;
      const figures = entry as Record<string, unknown>;
      const session = this.sessions.get(text(figures.sessionId));
      if (!session) continue;
      const { sessionId, displayId } = session.grant;
      if (!session.secured) {
        samples.push({ sessionId, displayId, ...ZERO_FIGURES, bytesPerSecond: 0, framesPerSecond: 0, sampledAt: now });
        continue;
      }
      const totals = {
        bytesToDisplay: count(figures.bytesToDisplay), bytesToServer: count(figures.bytesToServer),
        pdusToDisplay: count(figures.pdusToDisplay), framesToDisplay: count(figures.framesToDisplay),
      };
      samples.push({ sessionId, displayId, ...totals, ...this.rates.next(sessionId, totals, now), sampledAt: now });
    }
    this.record(samples);
    this.addTally(message.tally);
    this.addLatency(message.latency);
  }

  private record(samples: SessionSample[]): void {
    if (samples.length === 0) return;
    this.deps.broker.sampleSessions(samples).catch((error: unknown) => this.deps.logger.debug({ err: error }, 'session sample not recorded'));
  }

  private addTally(tally: unknown): void {
    if (typeof tally !== 'object' || tally === null) return;
    const values = tally as Record<string, unknown>;
    const { relayTally } = this.deps.metrics;
    for (const field of TALLY_FIELDS) relayTally[field] += count(values[field]);
  }

  private addLatency(latency: unknown): void {
    if (typeof latency !== 'object' || latency === null) return;
    const { bounds, counts, sum } = latency as Record<string, unknown>;
    if (!Array.isArray(counts) || counts.every((value) => value === 0)) return;
    try {
      this.deps.metrics.relayLatency.addCounts(bounds as number[], counts as number[], sum as number);
    } catch (error) {
      this.deps.logger.warn({ err: error, event: 'dataplane-latency-refused' }, "the data plane's latency counts do not fit the histogram: dropped");
    }
  }

  private granted(message: Record<string, unknown>, phase: 'connect' | 'tls'): GrantedSession | SessionError {
    const sessionId = text(message.sessionId);
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
    // As in this process's engine: an admin's stop ends a relaying session, or a presenter page waiting for its display; a handshake runs to its end.
    if (event.kind === 'stop-session' && (this.sessions.get(event.sessionId)?.secured || this.presenters.has(event.sessionId))) {
      this.commands?.notify('stop', { sessionId: event.sessionId, reason: 'stopped' });
    }
  }
}

/** A refused decision's answer: the error as the display gets it. */
function refused(error: SessionError): RpcAnswer {
  return { error: { phase: error.phase, code: error.code, message: error.message, detail: error.detail } };
}

const ZERO_FIGURES = { bytesToDisplay: 0, bytesToServer: 0, pdusToDisplay: 0, framesToDisplay: 0 } as const;

/** A decision's failure as the display gets it; anything not a SessionError is an internal error, logged here. */
function asSessionError(error: unknown, log: Logger): SessionError {
  if (error instanceof SessionError) return error;
  log.error({ err: error }, 'internal error');
  return new SessionError('relay', 'internal', undefined, {}, { error: String(error) });
}

interface ReportedError { phase: string; code: string; message: string; detail: unknown; internal: Record<string, unknown> }

function endError(value: unknown): ReportedError | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const fields = value as Record<string, unknown>;
  const internal = typeof fields.internal === 'object' && fields.internal !== null ? fields.internal as Record<string, unknown> : {};
  return { phase: text(fields.phase), code: text(fields.code), message: text(fields.message), detail: fields.detail ?? {}, internal };
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

function optionalText(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** A tally or total from the data plane: a whole, non-negative number, or 0. */
function count(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : 0;
}
