import type { WebSocket } from 'ws';
import type { Logger } from 'pino';
import type { GatewayConfig } from '../config/configSchema.js';
import type { SessionTokenSigner, SessionGrant } from '../session/sessionToken.js';
import { SessionError } from '../session/sessionError.js';
import type { TargetPolicy } from '../policy/targetPolicy.js';
import type { CertificatePolicy } from '../policy/certificatePolicy.js';
import type { GatewayBus, BusEvent } from '../cluster/gatewayBus.js';
import type { GatewayMetrics } from '../metrics/gatewayMetrics.js';
import { connectTarget, NegotiationFailure, type ConnectedTarget } from '../connect/targetConnector.js';
import { RelaySession } from '../relay/relaySession.js';
import { parseKioskDataMessage } from '@lanterna/protocol';
import { HandshakeReader } from './handshakeReader.js';
import { closeWithError, sendJson } from './closeWithError.js';

interface ActiveSession { relay: RelaySession; grant: SessionGrant }

/** Data sockets: token check, the client's Connection Request, the server handshake, then the relay. */
export class DataChannels {
  private readonly active = new Map<string, ActiveSession>();
  /** A token opens one data socket; remembered until it would have expired anyway. */
  private readonly used = new Map<string, number>();
  private readonly shutdown = new AbortController();

  constructor(private readonly deps: {
    config: GatewayConfig;
    signer: SessionTokenSigner;
    policy: TargetPolicy;
    certificates: CertificatePolicy;
    ca?: string | undefined;
    bus: GatewayBus;
    metrics: GatewayMetrics;
    logger: Logger;
  }) {
    deps.bus.subscribe((event) => this.onBusEvent(event));
  }

  get activeCount(): number {
    return this.active.size;
  }

  private readonly inFlight = new Set<Promise<void>>();

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
    try {
      grant = await this.authenticate(reader, sessionId);
      const request = await this.readConnectionRequest(reader);
      if (request === 'close') {
        reader.detach();
        sendJson(socket, { type: 'ended', reason: 'client-closed' });
        socket.close(1000, 'client-closed');
        this.publishEnded(grant);
        return;
      }
      const connected = await this.connect(grant, request, log);
      if (socket.readyState !== socket.OPEN) {
        connected.socket.destroy();
        log.info({ event: 'client-gone' }, 'display left during the handshake');
        this.publishEnded(grant);
        return;
      }
      const leftovers = reader.detach();
      if (leftovers.length > 0) {
        connected.socket.destroy();
        throw new SessionError('request', 'bad-message', 'the display sent data before the server connection was secured');
      }
      await this.relay(socket, connected, grant, log);
    } catch (error) {
      reader.detach();
      const sessionError = error instanceof SessionError ? error : new SessionError('relay', 'internal', undefined, { error: String(error) });
      if (sessionError.code === 'internal') log.error({ err: error }, 'internal error');
      else log.info({ event: 'session-error', phase: sessionError.phase, code: sessionError.code, detail: sessionError.detail }, sessionError.message);
      this.deps.metrics.errors.inc({ phase: sessionError.phase, code: sessionError.code });
      if (error instanceof NegotiationFailure && socket.readyState === socket.OPEN) socket.send(error.confirm);
      closeWithError(socket, sessionError);
      if (grant) this.publishEnded(grant);
    }
  }

  /** Drain: ends every session politely; resolves when all have closed or the deadline passes. */
  async drain(deadlineMs: number): Promise<void> {
    this.shutdown.abort();
    const deadline = Date.now() + deadlineMs;
    while (this.active.size > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
    for (const { relay } of this.active.values()) relay.stop('gateway-shutdown');
    await Promise.all(this.inFlight);
  }

  private async authenticate(reader: HandshakeReader, sessionId: string): Promise<SessionGrant> {
    const { helloMs } = this.deps.config.timeouts;
    const first = await reader.next(helloMs);
    if (first === 'closed') throw new SessionError('open', 'bad-message', 'the display closed before opening the session');
    if (first === 'timeout') throw new SessionError('open', 'timeout', `no open message within ${helloMs} ms`, { phase: 'open' });
    const parsed = first.kind === 'text' ? parseKioskDataMessage(first.text) : undefined;
    const open = parsed?.ok ? parsed.message : undefined;
    if (open?.type !== 'open') throw new SessionError('open', 'bad-message', 'the first message must be open');
    const check = this.deps.signer.verify(open.token);
    if (!check.ok) {
      if (check.reason === 'expired') throw new SessionError('open', 'unknown-session', 'the session has expired');
      throw new SessionError('open', 'unauthorized', 'the session token is not valid');
    }
    if (check.grant.sessionId !== sessionId) throw new SessionError('open', 'unauthorized', 'the session token belongs to another session');
    this.forgetExpiredTokens();
    if (this.used.has(sessionId) || this.active.has(sessionId)) throw new SessionError('open', 'unauthorized', 'the session token was already used');
    this.used.set(sessionId, check.grant.expiresAt);
    return check.grant;
  }

  /** The Connection Request, or 'close' when the display changed its mind politely. */
  private async readConnectionRequest(reader: HandshakeReader): Promise<Buffer | 'close'> {
    const { requestMs } = this.deps.config.timeouts;
    const next = await reader.next(requestMs);
    if (next === 'closed') throw new SessionError('request', 'bad-message', 'the display closed before sending its connection request');
    if (next === 'timeout') throw new SessionError('request', 'timeout', `no connection request within ${requestMs} ms`, { phase: 'request' });
    if (next.kind === 'text') {
      const parsed = parseKioskDataMessage(next.text);
      if (parsed.ok && parsed.message.type === 'close') return 'close';
    }
    if (next.kind !== 'binary') throw new SessionError('request', 'bad-message', 'expected the X.224 connection request as a binary message');
    return next.data;
  }

  private async connect(grant: SessionGrant, connectionRequest: Buffer, log: Logger): Promise<ConnectedTarget> {
    const { config, metrics } = this.deps;
    const connected = await connectTarget({
      target: grant.target,
      connectionRequest,
      policy: this.deps.policy,
      certificates: this.deps.certificates,
      ca: this.deps.ca,
      timeouts: config.timeouts,
      signal: this.shutdown.signal,
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

  private async relay(socket: WebSocket, connected: ConnectedTarget, grant: SessionGrant, log: Logger): Promise<void> {
    const { config, metrics } = this.deps;
    const relay = new RelaySession(connected.socket, socket, { ...config.relay, protocol: connected.secured.protocol }, metrics);
    this.active.set(grant.sessionId, { relay, grant });
    metrics.activeSessions.inc();
    metrics.sessionsTotal.inc();
    const startedAt = Date.now();
    if (this.shutdown.signal.aborted) {
      // Secured after the drain stopped the running sessions (a slow handshake on
      // a loaded machine): end it now, or the drain would wait for it forever.
      relay.stop('gateway-shutdown');
    } else {
      relay.start();
      sendJson(socket, connected.secured);
      socket.send(connected.confirm);
    }
    const end = await relay.done;
    this.active.delete(grant.sessionId);
    metrics.activeSessions.dec();
    const seconds = (Date.now() - startedAt) / 1000;
    if (end.reason === 'error') {
      log.info({ event: 'session-ended', reason: 'error', code: end.error.code, detail: end.error.detail, seconds }, end.error.message);
      metrics.errors.inc({ phase: end.error.phase, code: end.error.code });
      closeWithError(socket, end.error);
    } else {
      log.info({ event: 'session-ended', reason: end.reason, seconds }, 'session ended');
      sendJson(socket, { type: 'ended', reason: end.reason });
      if (socket.readyState === socket.OPEN) socket.close(end.reason === 'gateway-shutdown' ? 1001 : 1000, end.reason);
    }
    this.publishEnded(grant);
  }

  private publishEnded(grant: SessionGrant): void {
    this.deps.bus.publish({ kind: 'session-ended', displayId: grant.displayId, sessionId: grant.sessionId });
  }

  private forgetExpiredTokens(): void {
    const now = Date.now();
    for (const [id, expiresAt] of this.used) if (expiresAt < now) this.used.delete(id);
  }

  private onBusEvent(event: BusEvent): void {
    if (event.kind === 'stop-session') this.active.get(event.sessionId)?.relay.stop('stopped');
  }
}
