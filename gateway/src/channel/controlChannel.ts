import type { WebSocket, RawData } from 'ws';
import type { Logger } from 'pino';
import type { GatewayConfig } from '../config/configSchema.js';
import { SessionError } from '../session/sessionError.js';
import type { DisplayRegistry } from '../broker/displayRegistry.js';
import type { OnlineDisplays } from '../broker/onlineDisplays.js';
import type { ProjectionDesk } from '../broker/projectionDesk.js';
import type { SessionLifecycle } from '../broker/sessionLifecycle.js';
import type { SessionResume } from '../broker/sessionResume.js';
import type { GatewayBus, BusEvent } from '../cluster/gatewayBus.js';
import type { GatewayMetrics } from '../metrics/gatewayMetrics.js';
import { FIGURES_MIN_INTERVAL_MS, GATEWAY_FEATURES, KIOSK_FEATURES, KIOSK_PROTOCOL_VERSION, LASER_MIN_INTERVAL_MS, parseKioskControlMessage, type FiguresMessage, type LaserMessage, type PanelMessage } from '@lanterna/protocol';
import { HandshakeReader } from './handshakeReader.js';
import { closeWithError, sendJson } from './closeWithError.js';
import type { RoomAnnouncer } from './roomAnnouncer.js';
import type { TokenGuesses } from '../broker/tokenGuesses.js';
import type { RoomView } from '../broker/roomRequests.js';
import { MAX_ROOM_SLOTS, type LayoutMessage } from '@lanterna/protocol';

interface ControlConnection {
  socket: WebSocket;
  owner: string;
  displayId: string;
  /** The optional messages and fields the display announced in its hello (KIOSK_FEATURES). */
  features: ReadonlySet<string>;
  /** When its last `figures` report was taken, and whether the store is still writing it: one at a time, at most one per FIGURES_MIN_INTERVAL_MS. */
  figuresAt: number;
  figuresPending: boolean;
  /** Likewise for `panel` reports: one write at a time, at most one per PANEL_MIN_INTERVAL_MS. */
  panelAt: number;
  panelPending: boolean;
  /** When its last `laser` was relayed (at most one per LASER_MIN_INTERVAL_MS), and the sessions its last `layout` named: a display points at its own sources only. */
  laserAt: number;
  sessions: ReadonlySet<string>;
}

/** A display reports its panel when it changes (debounced by the page); faster reports are dropped. */
const PANEL_MIN_INTERVAL_MS = 1000;

/**
 * The displays' control sockets: authentication, heartbeats, and carrying the
 * broker's `project`/`stop` to them. Decisions (who may project, when a
 * signage display is projected again) are the broker's; this adapter holds
 * the sockets and the timers.
 */
export class ControlChannels {
  private readonly connections = new Map<string, ControlConnection>();

  constructor(private readonly deps: {
    config: GatewayConfig;
    /** The display's token, sound and panel. */
    displays: Pick<DisplayRegistry, 'authenticateDisplay' | 'displaySound' | 'recordPanel'>;
    presence: Pick<OnlineDisplays, 'displayOnline' | 'displayOffline'>;
    /** What a display that came online shows: a resumed session, or its signage. */
    resume: Pick<SessionResume, 'displayReady'>;
    /** A signage display projected again after its session ended. */
    projections: Pick<ProjectionDesk, 'reprojectionDelay' | 'projectSignage'>;
    sessions: Pick<SessionLifecycle, 'recordShown'>;
    bus: GatewayBus;
    metrics: GatewayMetrics;
    logger: Logger;
    /** Display tokens are counted with every other token check (broker/tokenGuesses.ts); none: not counted (tests of other things). */
    guesses?: TokenGuesses | undefined;
    /** The socket's token was accepted (the listener's pending budget lets it go). */
    onAuthenticated?: ((socket: WebSocket) => void) | undefined;
    /** Sends the room PIN to displays that ask for it; the presenter page's address for a display reached at a Host. */
    rooms?: { announcer: RoomAnnouncer; presenterUrl: (displayId: string, host: string | undefined) => string } | undefined;
    /** The room's slots and layout, for displays that announced `slots` (broker/roomRequests.ts). */
    roomView?: ((displayId: string) => Promise<RoomView>) | undefined;
  }) {
    deps.bus.subscribe((event) => this.onBusEvent(event));
  }

  /**
   * `host`: the Host the display reached the gateway at (its presenter page's
   * address by default); `address`: the client's (trusted proxies resolved),
   * which its token check counts under.
   */
  async handle(socket: WebSocket, displayId: string, host?: string, address?: string): Promise<void> {
    const { config, displays, presence, logger } = this.deps;
    const log = logger.child({ displayId, channel: 'control' });
    const reader = new HandshakeReader(socket);
    const first = await reader.next(config.timeouts.helloMs);
    reader.detach();
    if (first === 'closed') return;
    if (first === 'timeout') {
      closeWithError(socket, new SessionError('hello', 'timeout', `no hello within ${config.timeouts.helloMs} ms`, { phase: 'hello' }));
      return;
    }
    if (first === 'interrupted') {
      closeWithError(socket, new SessionError('hello', 'bad-message', 'the display sent more than a hello before the welcome'));
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
    // Messages that arrive while the broker checks and records the display are not lost: listen first.
    const onMessage = (data: RawData, isBinary: boolean): void => {
      const parsed = isBinary ? undefined : parseKioskControlMessage((data as Buffer).toString('utf8'));
      if (parsed?.ok && parsed.message.type === 'bye') { socket.close(1000, 'bye'); return; }
      // Figures only after the welcome that announced the gateway reads them, from the socket that holds the display.
      const current = this.connections.get(displayId);
      if (parsed?.ok && parsed.message.type === 'figures' && current?.socket === socket) { this.onFigures(current, parsed.message); return; }
      if (parsed?.ok && parsed.message.type === 'panel' && current?.socket === socket) { this.onPanel(current, parsed.message); return; }
      if (parsed?.ok && parsed.message.type === 'laser' && current?.socket === socket) { this.onLaser(current, parsed.message); return; }
      closeWithError(socket, new SessionError('hello', 'bad-message', 'unexpected message on the control socket'));
    };
    socket.on('message', onMessage);
    let display: Awaited<ReturnType<DisplayRegistry['authenticateDisplay']>>;
    let owner: string;
    try {
      display = await displays.authenticateDisplay(displayId, hello.token);
      const verdict = await this.deps.guesses?.check(address, 'display', display !== undefined);
      if (verdict?.allowed === false) {
        const retryAfterSeconds = Math.max(1, Math.ceil(verdict.retryAfterMs / 1000));
        log.warn({ event: 'token-guesses-locked', address, retryAfterSeconds }, 'too many wrong tokens from this address: hello refused');
        closeWithError(socket, new SessionError('hello', 'rate-limited', `too many wrong tokens from this address: try again in ${retryAfterSeconds} s`, { retryAfterSeconds }));
        return;
      }
      if (!display) {
        log.warn({ event: 'auth-failed' }, 'display authentication failed');
        closeWithError(socket, new SessionError('hello', 'unauthorized'));
        return;
      }
      this.deps.onAuthenticated?.(socket);
      // A page that shows several sources at once says so; the broker then fills up to MAX_ROOM_SLOTS slots for it.
      owner = await presence.displayOnline(displayId, hello.features?.includes(KIOSK_FEATURES.slots) ? MAX_ROOM_SLOTS : 1);
    } catch (error) {
      log.error({ err: error }, 'the broker could not record the display');
      closeWithError(socket, new SessionError('hello', 'internal'));
      return;
    }
    if (socket.readyState !== socket.OPEN) {
      void presence.displayOffline(displayId, owner).catch((error: unknown) => log.error({ err: error }, 'the broker could not record the display offline'));
      return;
    }
    const previous = this.connections.get(displayId);
    if (previous) closeWithError(previous.socket, new SessionError('hello', 'replaced'));
    const connection: ControlConnection = { socket, owner, displayId, features: new Set(hello.features ?? []), figuresAt: -Infinity, figuresPending: false, panelAt: -Infinity, panelPending: false, laserAt: -Infinity, sessions: new Set() };
    this.connections.set(displayId, connection);
    this.deps.metrics.displaysOnline.inc();
    log.info({ event: 'display-online', client: hello.client }, 'display online');
    sendJson(socket, {
      type: 'welcome', protocol: KIOSK_PROTOCOL_VERSION,
      display: {
        id: display.id, name: display.name, ...(display.location === undefined ? {} : { location: display.location }),
        ...(display.desktop === undefined ? {} : { desktop: display.desktop }),
      },
      heartbeatMs: config.timeouts.heartbeatMs,
      features: [GATEWAY_FEATURES.figures, GATEWAY_FEATURES.panel, GATEWAY_FEATURES.laser, ...(this.deps.config.ink.saving ? [GATEWAY_FEATURES.inkSave] : [])],
    });
    const { rooms } = this.deps;
    if (rooms && hello.features?.includes(KIOSK_FEATURES.room)) rooms.announcer.attach(socket, displayId, rooms.presenterUrl(displayId, host));
    if (connection.features.has(KIOSK_FEATURES.sound)) this.sendSound(connection);

    this.sendLayout(connection);

    this.keepAlive(connection);
    socket.once('close', () => {
      if (this.connections.get(displayId) === connection) this.connections.delete(displayId);
      this.deps.metrics.displaysOnline.dec();
      log.info({ event: 'display-offline' }, 'display offline');
      void presence.displayOffline(displayId, owner).catch((error: unknown) => log.error({ err: error }, 'the broker could not record the display offline'));
    });
    this.whenReady(connection, false);
  }

  /**
   * Asks the broker what the display that just came online should show (its
   * lost session again, or its signage); when its old session may still be
   * alive elsewhere, asks again once that session's lease would have lapsed.
   */
  private whenReady(connection: ControlConnection, retry: boolean): void {
    const { resume, logger } = this.deps;
    resume.displayReady(connection.displayId, retry).then((outcome) => {
      logger.debug({ displayId: connection.displayId, event: 'display-ready', retry, ...outcome }, 'display ready');
      if (outcome.action === 'resumed') logger.info({ displayId: connection.displayId, event: 'projection-resumed' }, 'projection resumed after its gateway was lost');
      if (outcome.retryInMs === undefined) return;
      setTimeout(() => {
        if (this.connections.get(connection.displayId) === connection) this.whenReady(connection, true);
      }, outcome.retryInMs).unref();
    }).catch((error: unknown) => logger.error({ err: error, displayId: connection.displayId }, 'projection on display ready failed'));
  }

  /**
   * A display's report on its session, for the admin's live view. Capped per
   * socket: one store write at a time, at most one report per
   * FIGURES_MIN_INTERVAL_MS; faster ones are dropped without an answer (a
   * display cannot make the gateway write faster than that).
   */
  private onFigures(connection: ControlConnection, message: FiguresMessage): void {
    const now = performance.now();
    if (connection.figuresPending || now - connection.figuresAt < FIGURES_MIN_INTERVAL_MS) return;
    connection.figuresAt = now;
    connection.figuresPending = true;
    const { sessionId, intervalMs, presents, frames, messages, bytes, sound } = message;
    // Frames are presents that brought new pixels: never more than the presents.
    const newPictures = frames === undefined ? {} : { frames: Math.min(frames, presents) };
    this.deps.sessions.recordShown(sessionId, connection.displayId, { intervalMs, presents, ...newPictures, messages, bytes, ...(sound ? { sound } : {}) })
      .catch((error: unknown) => this.deps.logger.debug({ err: error, displayId: connection.displayId, sessionId }, 'display figures not recorded'))
      .finally(() => { connection.figuresPending = false; });
  }

  /** The room as it stands, to a display that announced `slots` (others are sent nothing new). */
  private sendLayout(connection: ControlConnection): void {
    const { roomView, logger } = this.deps;
    if (!roomView || !connection.features.has(KIOSK_FEATURES.slots)) return;
    roomView(connection.displayId).then((view) => {
      if (this.connections.get(connection.displayId) !== connection) return;
      connection.sessions = new Set(view.slots.map((slot) => slot.sessionId));
      const message: LayoutMessage = {
        type: 'layout', layout: view.layout, large: view.large, mode: view.mode,
        slots: view.slots.map((slot) => ({ slot: slot.slot, sessionId: slot.sessionId, label: slot.label, ...slot.rect, ...(slot.touch ? { touch: true } : {}) })),
      };
      sendJson(connection.socket, message);
    }).catch((error: unknown) => logger.warn({ err: error, displayId: connection.displayId }, 'the room layout could not be read'));
  }

  /**
   * A finger on a browser presenter's picture (issue 30): relayed on the bus
   * to the presenter's page (api/laserFeed.ts), for the display's own sources
   * only, at most one per LASER_MIN_INTERVAL_MS (faster ones are dropped
   * without an answer, except a lift, which always goes).
   */
  private onLaser(connection: ControlConnection, message: LaserMessage): void {
    if (!connection.sessions.has(message.sessionId)) return;
    const now = performance.now();
    if (message.down && now - connection.laserAt < LASER_MIN_INTERVAL_MS) return;
    connection.laserAt = now;
    this.deps.bus.publish({ kind: 'laser', displayId: connection.displayId, sessionId: message.sessionId, x: message.x, y: message.y, down: message.down });
  }

  /** The display's volume and mute as the store has them (on welcome: an admin may have set them while it was away). */
  private sendSound(connection: ControlConnection): void {
    this.deps.displays.displaySound(connection.displayId).then((sound) => {
      if (this.connections.get(connection.displayId) === connection) sendJson(connection.socket, { type: 'sound', volume: sound.volume, muted: sound.muted });
    }).catch((error: unknown) => this.deps.logger.error({ err: error, displayId: connection.displayId }, 'the display\'s sound could not be read'));
  }

  /** A display's panel (docs/kiosk-protocol.md): capped like figures, kept by the broker when it changed. */
  private onPanel(connection: ControlConnection, message: PanelMessage): void {
    const now = performance.now();
    if (connection.panelPending || now - connection.panelAt < PANEL_MIN_INTERVAL_MS) return;
    connection.panelAt = now;
    connection.panelPending = true;
    const { width, height, devicePixelRatio, orientation } = message.panel;
    this.deps.logger.info({ displayId: connection.displayId, event: 'display-panel', width, height, devicePixelRatio, orientation }, 'display panel');
    this.deps.displays.recordPanel(connection.displayId, message.panel)
      .catch((error: unknown) => this.deps.logger.debug({ err: error, displayId: connection.displayId }, 'display panel not recorded'))
      .finally(() => { connection.panelPending = false; });
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

  /** Asks the broker when to project a signage display again, and does it then if the same socket still holds it. */
  private async reprojectLater(connection: ControlConnection): Promise<void> {
    const { projections } = this.deps;
    const delayMs = await projections.reprojectionDelay(connection.displayId);
    if (delayMs === undefined) return;
    setTimeout(() => {
      if (this.connections.get(connection.displayId) !== connection) return;
      void projections.projectSignage(connection.displayId).catch((error: unknown) => this.deps.logger.error({ err: error, displayId: connection.displayId }, 'signage projection failed'));
    }, delayMs).unref();
  }

  private onBusEvent(event: BusEvent): void {
    switch (event.kind) {
      case 'project': {
        const connection = this.connections.get(event.displayId);
        if (!connection) break;
        // A newer optional field goes only to displays that said they read it (docs/kiosk-protocol.md "Versioning").
        const { signage, slot, ...message } = event.message;
        const slots = connection.features.has(KIOSK_FEATURES.slots);
        // A page that shows one source is never sent a second slot's session (the broker books no more than one for it).
        if (slot !== undefined && slot > 0 && !slots) break;
        sendJson(connection.socket, {
          ...message,
          ...(signage !== undefined && connection.features.has(KIOSK_FEATURES.signage) ? { signage } : {}),
          ...(slots ? { slot: slot ?? 0 } : {}),
        });
        break;
      }
      case 'slots-changed': {
        const connection = this.connections.get(event.displayId);
        if (connection) this.sendLayout(connection);
        break;
      }
      case 'display-claimed': {
        const connection = this.connections.get(event.displayId);
        if (connection && connection.owner !== event.owner) closeWithError(connection.socket, new SessionError('hello', 'replaced'));
        break;
      }
      case 'stop-session': {
        // After every other subscriber of this event: the relay engine ends the
        // session first (the native one by RPC), so its server leg (a
        // presenter page) hears `stopped`, not the display's close racing it
        setImmediate(() => {
          const connection = this.connections.get(event.displayId);
          if (connection) sendJson(connection.socket, { type: 'stop', sessionId: event.sessionId, reason: event.reason });
        });
        break;
      }
      case 'display-revoked': {
        const connection = this.connections.get(event.displayId);
        if (connection) closeWithError(connection.socket, new SessionError('hello', 'unauthorized', 'the display was deleted or its token replaced'));
        break;
      }
      case 'session-ended': {
        const connection = this.connections.get(event.displayId);
        if (connection) void this.reprojectLater(connection).catch((error: unknown) => this.deps.logger.error({ err: error, displayId: event.displayId }, 'signage reprojection failed'));
        break;
      }
      case 'room-changed':
        void this.deps.rooms?.announcer.refresh(event.displayId);
        break;
      case 'display-changed': {
        const connection = this.connections.get(event.displayId);
        if (!connection?.features.has(KIOSK_FEATURES.display)) break;
        const display = {
          id: event.displayId, name: event.name, ...(event.location === undefined ? {} : { location: event.location }),
          ...(event.desktop === undefined ? {} : { desktop: event.desktop }),
        };
        sendJson(connection.socket, { type: 'display', display });
        break;
      }
      case 'sound-changed': {
        const connection = this.connections.get(event.displayId);
        if (connection?.features.has(KIOSK_FEATURES.sound)) sendJson(connection.socket, { type: 'sound', volume: event.volume, muted: event.muted });
        break;
      }
    }
  }
}
