import { randomBytes } from 'node:crypto';
import type { WebSocket } from 'ws';
import type { Logger } from 'pino';
import type { GatewayConfig, Credentials, TargetConfig } from '../config/configSchema.js';
import type { DisplayDirectory } from '../session/displayDirectory.js';
import { SessionTokenSigner } from '../session/sessionToken.js';
import { SessionError } from '../session/sessionError.js';
import type { GatewayBus, BusEvent } from '../cluster/gatewayBus.js';
import type { GatewayMetrics } from '../metrics/gatewayMetrics.js';
import { KIOSK_PROTOCOL_VERSION, parseKioskControlMessage, type AssistanceSettings, type SessionSettings } from '@lanterna/protocol';
import { HandshakeReader } from './handshakeReader.js';
import { closeWithError, sendJson } from './closeWithError.js';
import { ReprojectBackoff } from './reprojectBackoff.js';

interface ControlConnection { socket: WebSocket; owner: string; displayId: string }

export interface ProjectionRequest {
  displayId: string;
  target: TargetConfig;
  credentials?: Credentials | undefined;
  settings?: SessionSettings | undefined;
  /** A Remote Assistance invitation the client answers instead of credentials. */
  assistance?: AssistanceSettings | undefined;
}

/** The displays' control sockets: authentication, heartbeats, and pushing `project`/`stop` to them. */
export class ControlChannels {
  private readonly connections = new Map<string, ControlConnection>();
  private readonly backoff: ReprojectBackoff;

  constructor(private readonly deps: {
    config: GatewayConfig;
    directory: DisplayDirectory;
    signer: SessionTokenSigner;
    bus: GatewayBus;
    metrics: GatewayMetrics;
    logger: Logger;
  }) {
    this.backoff = new ReprojectBackoff(deps.config.timeouts.reprojectMs, deps.config.timeouts.reprojectMaxMs);
    deps.bus.subscribe((event) => this.onBusEvent(event));
  }

  async handle(socket: WebSocket, displayId: string): Promise<void> {
    const { config, directory, logger } = this.deps;
    const log = logger.child({ displayId, channel: 'control' });
    const reader = new HandshakeReader(socket);
    const first = await reader.next(config.timeouts.helloMs);
    reader.detach();
    if (first === 'closed') return;
    if (first === 'timeout') {
      closeWithError(socket, new SessionError('hello', 'timeout', `no hello within ${config.timeouts.helloMs} ms`, { phase: 'hello' }));
      return;
    }
    const parsed = first.kind === 'text' ? parseKioskControlMessage(first.text) : undefined;
    const hello = parsed?.ok ? parsed.message : undefined;
    if (hello?.type !== 'hello') {
      closeWithError(socket, new SessionError('hello', 'bad-message', 'the first message must be a hello'));
      return;
    }
    if (hello.protocol !== KIOSK_PROTOCOL_VERSION) {
      closeWithError(socket, new SessionError('hello', 'bad-message', `protocol ${String(hello.protocol)} is not supported`, { supported: [KIOSK_PROTOCOL_VERSION] }));
      return;
    }
    const display = directory.authenticate(displayId, hello.token);
    if (!display) {
      log.warn({ event: 'auth-failed' }, 'display authentication failed');
      closeWithError(socket, new SessionError('hello', 'unauthorized'));
      return;
    }
    const owner = randomBytes(8).toString('hex');
    this.deps.bus.publish({ kind: 'display-claimed', displayId, owner });
    const previous = this.connections.get(displayId);
    if (previous) closeWithError(previous.socket, new SessionError('hello', 'replaced'));
    const connection: ControlConnection = { socket, owner, displayId };
    this.connections.set(displayId, connection);
    this.deps.metrics.displaysOnline.inc();
    log.info({ event: 'display-online', client: hello.client }, 'display online');
    sendJson(socket, {
      type: 'welcome', protocol: KIOSK_PROTOCOL_VERSION,
      display: { id: display.id, name: display.name ?? display.id }, heartbeatMs: config.timeouts.heartbeatMs,
    });

    this.keepAlive(connection);
    socket.on('message', (data, isBinary) => {
      const parsed = isBinary ? undefined : parseKioskControlMessage((data as Buffer).toString('utf8'));
      if (parsed?.ok && parsed.message.type === 'bye') { socket.close(1000, 'bye'); return; }
      closeWithError(socket, new SessionError('hello', 'bad-message', 'unexpected message on the control socket'));
    });
    socket.once('close', () => {
      if (this.connections.get(displayId) === connection) this.connections.delete(displayId);
      this.deps.metrics.displaysOnline.dec();
      log.info({ event: 'display-offline' }, 'display offline');
    });
    if (display.autoProject) {
      const { credentials, ...target } = display.autoProject;
      this.backoff.forget(displayId);
      this.backoff.projected(displayId);
      this.project({ displayId, target, credentials });
    }
  }

  /** Mints a session for a display and tells it (wherever its control socket lives). Returns the session id. */
  project(request: ProjectionRequest): string {
    const sessionId = SessionTokenSigner.newSessionId();
    const sessionToken = this.deps.signer.sign({
      sessionId, displayId: request.displayId, target: request.target,
      expiresAt: Date.now() + this.deps.config.timeouts.sessionTokenMs,
    });
    this.deps.bus.publish({
      kind: 'project', displayId: request.displayId,
      message: {
        type: 'project', sessionId, sessionToken,
        target: { name: request.target.name ?? `${request.target.host}:${request.target.port}`, host: request.target.host, port: request.target.port },
        ...(request.credentials ? { credentials: request.credentials } : {}),
        ...(request.settings ?? request.assistance ? { settings: { ...request.settings, ...(request.assistance ? { assistance: request.assistance } : {}) } } : {}),
      },
    });
    return sessionId;
  }

  isOnline(displayId: string): boolean {
    return this.connections.has(displayId);
  }

  closeAll(code: number, reason: string): void {
    for (const { socket } of this.connections.values()) socket.close(code, reason);
  }

  private keepAlive(connection: ControlConnection): void {
    let missed = 0;
    connection.socket.on('pong', () => { missed = 0; });
    const timer = setInterval(() => {
      if (missed >= 2) {
        this.deps.logger.warn({ displayId: connection.displayId, event: 'display-dead' }, 'display missed two heartbeats');
        connection.socket.terminate();
        return;
      }
      missed += 1;
      connection.socket.ping();
    }, this.deps.config.timeouts.heartbeatMs);
    timer.unref();
    connection.socket.once('close', () => clearInterval(timer));
  }

  private onBusEvent(event: BusEvent): void {
    switch (event.kind) {
      case 'project': {
        const connection = this.connections.get(event.displayId);
        if (connection) sendJson(connection.socket, event.message);
        break;
      }
      case 'display-claimed': {
        const connection = this.connections.get(event.displayId);
        if (connection && connection.owner !== event.owner) closeWithError(connection.socket, new SessionError('hello', 'replaced'));
        break;
      }
      case 'stop-session': {
        const connection = this.connections.get(event.displayId);
        if (connection) sendJson(connection.socket, { type: 'stop', sessionId: event.sessionId, reason: event.reason });
        break;
      }
      case 'session-ended': {
        const display = this.deps.directory.get(event.displayId);
        if (!display?.autoProject || !this.connections.has(event.displayId)) break;
        const { credentials, ...target } = display.autoProject;
        const delayMs = this.backoff.delayAfterEnd(event.displayId);
        setTimeout(() => {
          if (!this.connections.has(event.displayId)) return;
          this.backoff.projected(event.displayId);
          this.project({ displayId: event.displayId, target, credentials });
        }, delayMs).unref();
        break;
      }
    }
  }
}
