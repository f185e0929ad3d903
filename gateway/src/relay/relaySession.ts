import type { TLSSocket } from 'node:tls';
import type { WebSocket, RawData } from 'ws';
import { PduFramer, splitWholePdus, FramingError, framingModeFor, nextFramingMode, parseKioskDataMessage, type FramingMode, type PongMessage } from '@lanterna/protocol';
import { SessionError } from '../session/sessionError.js';
import type { GatewayMetrics } from '../metrics/gatewayMetrics.js';

/** Pings closer together than this get no answer (the display sends one every few seconds). */
const MIN_PING_INTERVAL_MS = 200;

export interface RelayOptions {
  highWaterBytes: number;
  lowWaterBytes: number;
  maxFrameBytes: number;
  idleTimeoutMs: number;
  /** NLA sessions start with DER TSRequests (and, for HYBRID_EX, the early authorization result). */
  protocol: 'ssl' | 'hybrid' | 'hybrid-ex';
}

export type RelayEnd =
  | { reason: 'server-closed' | 'client-closed' | 'stopped' | 'gateway-shutdown' }
  | { reason: 'error'; error: SessionError };

/**
 * One session's pump: TLS plaintext → whole-PDU frames → WebSocket, and back.
 * Backpressure: when the kiosk's socket holds more than highWaterBytes, stop
 * reading the server (TCP then pushes back on it) until it drains below
 * lowWaterBytes; the same the other way with the TLS socket's own buffer.
 */
export class RelaySession {
  private readonly toClient: PduFramer<Buffer>;
  private clientMode: FramingMode;
  private serverPaused = false;
  private clientPaused = false;
  private ended = false;
  private lastActivity = Date.now();
  private lastPong = 0;
  private idleTimer: NodeJS.Timeout | undefined;
  private endResolve!: (end: RelayEnd) => void;
  readonly done: Promise<RelayEnd>;

  constructor(
    private readonly server: TLSSocket,
    private readonly client: WebSocket,
    private readonly options: RelayOptions,
    private readonly metrics: GatewayMetrics,
  ) {
    this.toClient = new PduFramer<Buffer>({
      mode: framingModeFor(options.protocol, 'server-to-client'),
      maxFrameBytes: options.maxFrameBytes,
      allocate: (length) => Buffer.allocUnsafe(length),
    });
    this.clientMode = framingModeFor(options.protocol, 'client-to-server');
    this.done = new Promise((resolve) => { this.endResolve = resolve; });
  }

  start(): void {
    this.server.on('data', (chunk: Buffer) => this.fromServer(chunk));
    this.server.on('drain', () => this.resumeClient());
    this.server.once('end', () => this.finish({ reason: 'server-closed' }));
    this.server.once('close', () => this.finish({ reason: 'server-closed' }));
    this.server.once('error', (error: Error) => this.finish({ reason: 'error', error: new SessionError('relay', 'server-error', undefined, { error: error.message }) }));
    this.client.on('message', (data, isBinary) => this.fromClient(data, isBinary));
    this.client.once('close', () => this.finish({ reason: 'client-closed' }));
    this.scheduleIdleCheck();
    this.server.resume();
  }

  /** Ends the session from outside (admin stop, gateway drain). */
  stop(reason: 'stopped' | 'gateway-shutdown'): void {
    this.finish({ reason });
  }

  private fromServer(chunk: Buffer): void {
    const readAt = performance.now();
    this.lastActivity = Date.now();
    let batches: Buffer[];
    try {
      batches = this.toClient.push(chunk);
    } catch (error) {
      this.finish({ reason: 'error', error: asSessionError(error, 'server') });
      return;
    }
    const { bytes, pdus, frames, copies } = this.metrics;
    for (const batch of batches) {
      this.client.send(batch, { binary: true }, (error) => {
        if (error) return;
        this.metrics.relayLatency.observe((performance.now() - readAt) / 1000);
        if (this.serverPaused && this.client.bufferedAmount <= this.options.lowWaterBytes) this.resumeServer();
      });
      frames.inc({ direction: 'to-kiosk' });
    }
    bytes.inc({ direction: 'to-kiosk' }, chunk.length);
    const stats = this.toClient.takeStats();
    if (stats.pdus > 0) pdus.inc({ direction: 'to-kiosk' }, stats.pdus);
    if (stats.copiedBytes > 0) copies.inc(stats.copiedBytes);
    if (!this.serverPaused && this.client.bufferedAmount > this.options.highWaterBytes) {
      this.serverPaused = true;
      this.server.pause();
      this.metrics.pauses.inc();
    }
  }

  private resumeServer(): void {
    if (!this.serverPaused || this.ended) return;
    this.serverPaused = false;
    this.server.resume();
  }

  private fromClient(data: RawData, isBinary: boolean): void {
    if (!isBinary) {
      this.controlFromClient(data);
      return;
    }
    this.lastActivity = Date.now();
    const frame = data as Buffer; // binaryType "nodebuffer": one Buffer per message
    let pdus: Buffer[];
    try {
      pdus = splitWholePdus(frame, this.clientMode);
    } catch (error) {
      this.finish({ reason: 'error', error: asSessionError(error, 'client') });
      return;
    }
    // The client's first TPKT (MCS Connect-Initial) ends NLA: from then on only TPKT and fast-path.
    if (this.clientMode !== 'rdp') {
      for (const pdu of pdus) this.clientMode = nextFramingMode(this.clientMode, pdu);
      if (this.clientMode === 'rdp') this.toClient.setMode('rdp');
    }
    this.metrics.bytes.inc({ direction: 'to-server' }, frame.length);
    this.metrics.pdus.inc({ direction: 'to-server' }, pdus.length);
    this.metrics.frames.inc({ direction: 'to-server' });
    if (!this.server.write(frame) && !this.clientPaused) {
      this.clientPaused = true;
      this.client.pause();
      this.metrics.pauses.inc();
    }
  }

  private resumeClient(): void {
    if (!this.clientPaused || this.ended) return;
    this.clientPaused = false;
    this.client.resume();
  }

  private controlFromClient(data: RawData): void {
    const parsed = parseKioskDataMessage((data as Buffer).toString('utf8'));
    const message = parsed.ok ? parsed.message : undefined;
    if (message?.type === 'close') {
      this.finish({ reason: 'client-closed' });
      return;
    }
    // The display times its round trip to the gateway (the HUD's latency). A ping
    // is not RDP traffic, so it does not keep an idle session alive, and only its
    // number is echoed: nothing else the display sent is reflected.
    if (message?.type === 'ping') {
      this.pingAnswer(message.t);
      return;
    }
    this.finish({ reason: 'error', error: new SessionError('relay', 'bad-message', 'the display sent an unexpected control message during the session') });
  }

  /** At most one pong per MIN_PING_INTERVAL_MS: a flood of pings costs the gateway nothing more. */
  private pingAnswer(t: number): void {
    const now = Date.now();
    if (now - this.lastPong < MIN_PING_INTERVAL_MS) return;
    this.lastPong = now;
    if (this.client.readyState === this.client.OPEN) this.client.send(JSON.stringify({ type: 'pong', t } satisfies PongMessage));
  }

  private scheduleIdleCheck(): void {
    if (this.options.idleTimeoutMs <= 0) return;
    const due = this.lastActivity + this.options.idleTimeoutMs - Date.now();
    this.idleTimer = setTimeout(() => {
      if (Date.now() - this.lastActivity >= this.options.idleTimeoutMs) {
        this.finish({ reason: 'error', error: new SessionError('relay', 'timeout', `no traffic for ${this.options.idleTimeoutMs} ms`, { phase: 'relay' }) });
      } else {
        this.scheduleIdleCheck();
      }
    }, Math.max(due, 1000));
    this.idleTimer.unref();
  }

  private finish(end: RelayEnd): void {
    if (this.ended) return;
    this.ended = true;
    clearTimeout(this.idleTimer);
    this.server.removeAllListeners('data');
    this.server.destroy();
    this.endResolve(end);
  }
}

function asSessionError(error: unknown, side: 'server' | 'client'): SessionError {
  if (error instanceof FramingError) {
    const code = error.code === 'pdu-too-large' ? 'pdu-too-large' : side === 'server' ? 'server-error' : 'pdu-invalid';
    const who = side === 'server' ? "the presenter's computer" : 'the display';
    return new SessionError('relay', code, `${who} sent a malformed RDP message: ${error.message}`, { side });
  }
  return new SessionError('relay', 'internal', undefined, { error: String(error) });
}
