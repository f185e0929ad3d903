import type { WebSocket } from 'ws';
import type { Logger } from 'pino';
import type { GatewayConfig } from '../config/configSchema.js';
import type { SessionGrant } from '../session/sessionToken.js';
import { SessionError } from '../session/sessionError.js';
import type { SessionLifecycle } from '../broker/sessionLifecycle.js';
import type { BusEvent } from '../cluster/gatewayBus.js';
import type { LookupAll } from '../connect/hostResolver.js';
import { connectTarget, NegotiationFailure } from '../connect/targetConnector.js';
import { RelaySession } from '../relay/relaySession.js';
import { parseKioskDataMessage } from '@lanterna/protocol';
import { HandshakeReader } from './handshakeReader.js';
import { closeWithError, sendJson } from './closeWithError.js';
import { DataSocketControl } from './dataSocketControl.js';
import { raiseMaxPayload } from './frameLimit.js';
import { ledgerError, type SessionLedger, type LedgerEntry } from './sessionLedger.js';
import { joinPresenter, type ServerLeg } from './presenterJoin.js';
import type { PresenterLegs } from './presenterLegs.js';
import type { SessionServices } from './sessionServices.js';

/** touchHeard: a `touch-changed` came for it (newer than the store read made when its relay began). */
interface ActiveSession { relay: RelaySession; grant: SessionGrant; touchHeard: boolean }

/** How often the live sessions' figures go to the broker (and renew their display bookings). */
export const SESSION_SAMPLE_MS = 1000;
/**
 * The sample goes to the broker in this many slices per SESSION_SAMPLE_MS,
 * each session in the slice of its slot: every session at once was one burst
 * a second on the relay's core (with the native engine's Node side, 6–17 ms
 * at 1,600 sessions), as long as the p99 of ten messages a second.
 */
export const SESSION_SAMPLE_SLICES = 10;

/** How a handshake ended early without an error of its own. */
type EarlyEnd = 'client-closed' | 'client-gone';

/** Data sockets: token check, the client's Connection Request, the server handshake, then the relay. */
export class DataChannels {
  private readonly active = new Map<string, ActiveSession>();
  /** An admin's stop that came during the session's handshake: the handshake runs to its end, then the session stops. */
  private readonly stopsAsked = new Set<string>();
  private readonly shutdown = new AbortController();
  private readonly inFlight = new Set<Promise<void>>();
  /** Authenticated sessions, from their handshake to their end: what limits.maxSessions bounds. */
  private admitted = 0;
  /** Woken when the last active session ends (the drain waits on it). */
  private readonly onIdle = new Set<() => void>();
  /** Sessions claimed and still in their server handshake (sampled too: their bookings must not lapse). */
  private readonly handshaking = new Map<string, SessionGrant>();
  private readonly sampler: NodeJS.Timeout;
  /** Each claimed session's slice of the sample, from its handshake to its end. */
  private readonly sampleSlots = new Map<string, number>();
  private nextSlot = 0;
  private nextSlice = 0;

  constructor(private readonly deps: SessionServices & {
    config: GatewayConfig;
    /** The session token's one claim, and the presenter's touch permission when the session is secured. */
    sessions: Pick<SessionLifecycle, 'openSession' | 'touchAllowed'>;
    ca?: string | undefined;
    /** The name resolver for targets (the system's by default). */
    lookup?: LookupAll | undefined;
    /** The socket's session token was accepted (the listener's pending budget lets it go). */
    onAuthenticated?: ((socket: WebSocket) => void) | undefined;
    /** Where browser-source sessions find their presenter page's socket. */
    presenterLegs?: PresenterLegs | undefined;
    /** The broker's calls, metrics and log lines of each session's life (shared with the native engine's decisions). */
    ledger: SessionLedger;
  }) {
    deps.bus.subscribe((event) => this.onBusEvent(event));
    this.sampler = setInterval(() => this.sample(), SESSION_SAMPLE_MS / SESSION_SAMPLE_SLICES);
    this.sampler.unref();
  }

  get activeCount(): number {
    return this.active.size;
  }

  /** Runs one data socket to its end; tracked so a drain can wait for the goodbyes to be sent. */
  handle(socket: WebSocket, sessionId: string): Promise<void> {
    const run = this.run(socket, sessionId).finally(() => this.inFlight.delete(run));
    this.inFlight.add(run);
    return run;
  }

  private async run(socket: WebSocket, sessionId: string): Promise<void> {
    const log = this.deps.logger.child({ sessionId, channel: 'data' });
    const reader = new HandshakeReader(socket);
    let grant: SessionGrant | undefined;
    let admitted = false;
    try {
      grant = await this.authenticate(reader, sessionId);
      this.handshaking.set(sessionId, grant);
      this.sampleSlots.set(sessionId, this.nextSlot);
      this.nextSlot = (this.nextSlot + 1) % SESSION_SAMPLE_SLICES;
      this.deps.ledger.opened(grant);
      this.deps.onAuthenticated?.(socket);
      raiseMaxPayload(socket, this.deps.config.relay.maxFrameBytes);
      if (this.admitted >= this.deps.config.limits.maxSessions) {
        throw new SessionError('open', 'gateway-busy', `the gateway is at its limit of ${this.deps.config.limits.maxSessions} sessions`);
      }
      this.admitted += 1;
      admitted = true;
      const request = await this.readConnectionRequest(reader);
      const connected = request === 'close' ? 'client-closed' : await this.connectWhileSilent(reader, socket, grant, request, log);
      if (connected === 'client-closed') {
        reader.detach();
        sendJson(socket, { type: 'ended', reason: 'client-closed' });
        socket.close(1000, 'client-closed');
        this.deps.ledger.ended(grant, { reason: 'client-closed', secured: false }, log);
        return;
      }
      if (connected === 'client-gone') {
        this.deps.ledger.ended(grant, { reason: 'client-closed', secured: false }, log);
        return;
      }
      await this.relay(socket, connected, grant, log);
    } catch (error) {
      reader.detach();
      const sessionError = error instanceof SessionError ? error : new SessionError('relay', 'internal', undefined, {}, { error: String(error) });
      this.deps.ledger.ended(grant, { reason: 'error', error: { ...ledgerError(sessionError), cause: error }, secured: false }, log);
      if (error instanceof NegotiationFailure && socket.readyState === socket.OPEN) socket.send(error.confirm);
      closeWithError(socket, sessionError);
    } finally {
      this.handshaking.delete(sessionId);
      this.stopsAsked.delete(sessionId);
      this.sampleSlots.delete(sessionId);
      if (admitted) this.admitted -= 1;
    }
  }

  /**
   * Each tick, one slice of the sessions this process carries (each once a
   * second) to the ledger: relaying ones with their figures, ones in their
   * handshake without (their bookings must not lapse either).
   */
  private sample(): void {
    const slice = this.nextSlice;
    this.nextSlice = (this.nextSlice + 1) % SESSION_SAMPLE_SLICES;
    const inSlice = (sessionId: string): boolean => this.sampleSlots.get(sessionId) === slice;
    const entries: LedgerEntry[] = [];
    for (const [sessionId, grant] of this.handshaking) {
      if (!this.active.has(sessionId) && inSlice(sessionId)) entries.push({ grant });
    }
    for (const [sessionId, { relay, grant }] of this.active) {
      if (inSlice(sessionId)) entries.push({ grant, totals: relay.figures });
    }
    this.deps.ledger.sample(entries);
  }

  /**
   * Drain: ends every handshake at once, lets running sessions finish up to
   * the deadline, then ends them; resolves when every socket has said goodbye.
   */
  async drain(deadlineMs: number): Promise<void> {
    this.shutdown.abort();
    await this.untilNoActiveSession(deadlineMs);
    for (const { relay } of this.active.values()) relay.stop('gateway-shutdown');
    await Promise.all(this.inFlight);
    // Sampled until the last session ended: its display stays booked while it drains.
    clearInterval(this.sampler);
  }

  private untilNoActiveSession(deadlineMs: number): Promise<void> {
    if (this.active.size === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.onIdle.delete(done);
        resolve();
      };
      const timer = setTimeout(done, deadlineMs);
      this.onIdle.add(done);
    });
  }

  private async authenticate(reader: HandshakeReader, sessionId: string): Promise<SessionGrant> {
    const { helloMs } = this.deps.config.timeouts;
    const first = await reader.next(helloMs);
    if (first === 'closed') throw new SessionError('open', 'bad-message', 'the display closed before opening the session');
    if (first === 'timeout') throw new SessionError('open', 'timeout', `no open message within ${helloMs} ms`, { phase: 'open' });
    if (first === 'interrupted') throw new SessionError('open', 'bad-message', 'the display sent more than open and its connection request');
    const parsed = first.kind === 'text' ? parseKioskDataMessage(first.text) : undefined;
    const open = parsed?.ok ? parsed.message : undefined;
    if (open?.type !== 'open') throw new SessionError('open', 'bad-message', 'the first message must be open');
    return this.deps.sessions.openSession(sessionId, open.token);
  }

  /** The Connection Request, or 'close' when the display changed its mind politely. */
  private async readConnectionRequest(reader: HandshakeReader): Promise<Buffer | 'close'> {
    const { requestMs } = this.deps.config.timeouts;
    const next = await reader.next(requestMs);
    if (next === 'closed') throw new SessionError('request', 'bad-message', 'the display closed before sending its connection request');
    if (next === 'timeout') throw new SessionError('request', 'timeout', `no connection request within ${requestMs} ms`, { phase: 'request' });
    if (next === 'interrupted') throw new SessionError('request', 'bad-message', 'the display sent more than open and its connection request');
    if (next.kind === 'text') {
      const parsed = parseKioskDataMessage(next.text);
      if (parsed.ok && parsed.message.type === 'close') return 'close';
    }
    if (next.kind !== 'binary') throw new SessionError('request', 'bad-message', 'expected the X.224 connection request as a binary message');
    return next.data;
  }

  /**
   * The server handshake, during which the display must send nothing: its
   * first message ends the handshake at once (a polite `close` politely, data
   * as a protocol violation) and nothing it sends is kept. A display that
   * leaves ends it too.
   */
  private async connectWhileSilent(
    reader: HandshakeReader, socket: WebSocket, grant: SessionGrant, connectionRequest: Buffer, log: Logger,
  ): Promise<ServerLeg | EarlyEnd> {
    const handshake = new AbortController();
    const violation = new SessionError('request', 'bad-message', 'the display sent data before the server connection was secured');
    reader.expectSilence((why) => handshake.abort(why === 'close' ? undefined : violation));
    const onGone = (): void => handshake.abort();
    socket.once('close', onGone);
    // One listener on the gateway's long-lived shutdown signal, removed below
    // (a composite signal per session would stay referenced by it).
    const onShutdown = (): void => handshake.abort(this.shutdown.signal.reason);
    if (this.shutdown.signal.aborted) onShutdown();
    else this.shutdown.signal.addEventListener('abort', onShutdown, { once: true });
    /** How the display ended the handshake early, if it did. */
    const displayEnded = (): EarlyEnd | 'violation' | undefined => {
      if (reader.interrupted === 'close') return 'client-closed';
      if (reader.interrupted) return 'violation';
      return socket.readyState === socket.OPEN ? undefined : 'client-gone';
    };
    try {
      const connected = await this.connect(grant, connectionRequest, handshake.signal, log);
      const early = displayEnded();
      if (early === undefined) return connected;
      connected.socket.destroy();
      connected.ended?.({ reason: 'client-closed' });
      if (early === 'violation') throw violation;
      return early;
    } catch (error) {
      const early = displayEnded();
      if (early === undefined || early === 'violation') throw error;
      return early;
    } finally {
      socket.off('close', onGone);
      this.shutdown.signal.removeEventListener('abort', onShutdown);
      reader.detach();
    }
  }

  private async connect(grant: SessionGrant, connectionRequest: Buffer, signal: AbortSignal, log: Logger): Promise<ServerLeg> {
    const { config, metrics } = this.deps;
    if (grant.source === 'browser') {
      // The presenter page is the server: no target policy, no DNS, no TCP, no TLS of ours, and requireNla does not apply (no NLA towards a page authorised by PIN).
      if (!this.deps.presenterLegs) throw new SessionError('connect', 'internal', undefined, {}, { error: 'no presenter legs on this gateway' });
      const leg = await joinPresenter(grant, connectionRequest, { legs: this.deps.presenterLegs, timeouts: config.timeouts, bytesPerSecond: config.relay.presenterBytesPerSecond, signal });
      log.info({ event: 'secured', target: 'browser', protocol: 'ssl', trust: 'presenter', fingerprint: leg.secured.fingerprint }, 'presenter leg joined');
      return leg;
    }
    const connected = await connectTarget({
      target: grant.target,
      connectionRequest,
      policy: this.deps.policy,
      certificates: this.deps.certificates,
      ca: this.deps.ca,
      timeouts: config.timeouts,
      signal,
      lookup: this.deps.lookup,
      requireNla: config.policy.requireNla,
      onPhase: (phase, ms) => metrics.handshake.observe({ phase }, ms / 1000),
    });
    log.info({
      event: 'secured', target: `${grant.target.host}:${grant.target.port}`, address: connected.address,
      protocol: connected.secured.protocol, tls: connected.secured.tlsVersion, trust: connected.secured.trust,
      fingerprint: connected.secured.fingerprint,
    }, 'server leg secured');
    return connected;
  }

  private async relay(socket: WebSocket, connected: ServerLeg, grant: SessionGrant, log: Logger): Promise<void> {
    const { config, metrics, sessions, ledger } = this.deps;
    const control = new DataSocketControl();
    const relay: RelaySession = new RelaySession(connected.socket, socket, { ...config.relay, protocol: connected.secured.protocol, writeStallMs: config.timeouts.writeMs }, metrics, (data) => {
      const verdict = control.judge(data.toString('utf8'), Date.now());
      switch (verdict.action) {
        case 'pong': relay.sendText(verdict.reply); break;
        case 'close': relay.stop('client-closed'); break;
        case 'fail': relay.fail(verdict.error); break;
        case 'ignore': break;
      }
    }, connected.writeQueued);
    const active: ActiveSession = { relay, grant, touchHeard: false };
    this.active.set(grant.sessionId, active);
    // The presenter may have allowed control before the display connected: the store says (input stays dropped until then).
    sessions.touchAllowed(grant.sessionId).then((allowed) => {
      if (!active.touchHeard) relay.setInputAllowed(allowed);
    }).catch((error: unknown) => log.warn({ err: error }, 'the presenter\'s touch permission could not be read: input stays off'));
    ledger.secured(grant, log);
    const startedAt = Date.now();
    if (this.shutdown.signal.aborted) {
      // Secured after the drain stopped the running sessions (a handshake that
      // finished as the drain began): end it now, or the drain would wait for it.
      relay.stop('gateway-shutdown');
    } else if (this.stopsAsked.has(grant.sessionId)) {
      relay.stop('stopped');
    } else {
      relay.start();
      sendJson(socket, connected.secured);
      socket.send(connected.confirm);
    }
    const end = await relay.done;
    connected.ended?.(end);
    this.active.delete(grant.sessionId);
    const seconds = (Date.now() - startedAt) / 1000;
    ledger.ended(grant, { reason: end.reason, error: end.reason === 'error' ? ledgerError(end.error) : undefined, secured: true, seconds }, log);
    if (end.reason === 'error') {
      closeWithError(socket, end.error);
    } else {
      sendJson(socket, { type: 'ended', reason: end.reason });
      if (socket.readyState === socket.OPEN) socket.close(end.reason === 'gateway-shutdown' ? 1001 : 1000, end.reason);
    }
    if (this.active.size === 0) for (const wake of [...this.onIdle]) wake();
  }

  private onBusEvent(event: BusEvent): void {
    if (event.kind === 'stop-session') {
      const active = this.active.get(event.sessionId);
      if (active) active.relay.stop('stopped');
      else if (this.handshaking.has(event.sessionId)) this.stopsAsked.add(event.sessionId);
    }
    if (event.kind === 'touch-changed') {
      const active = this.active.get(event.sessionId);
      if (!active) return;
      active.touchHeard = true;
      active.relay.setInputAllowed(event.allowed);
    }
  }
}
