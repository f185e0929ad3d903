// Binds a RelayCore to its two sockets: the server leg (TLS to the RDP server,
// or a presenter page's socket as a Duplex, presenterSocketStream.ts) and the
// kiosk's WebSocket. Everything the pump decides lives in relayCore.ts; this
// file only translates socket events into core inputs and core outputs into
// socket calls. Text frames on the data socket (ping, close) are not RDP and
// never reach the pump: they go to the owner's handler.
import type { Duplex } from 'node:stream';
import type { WebSocket, RawData } from 'ws';
import type { GatewayMetrics } from '../metrics/gatewayMetrics.js';
import { SessionError } from '../session/sessionError.js';
import { RelayCore, type RelayEnd, type RelayMeter, type RelayOptions, type RelayOutput } from './relayCore.js';
import { SendLatencyQueue } from './sendLatencyQueue.js';

export type { RelayEnd, RelayOptions } from './relayCore.js';

/** Idle checks closer together than this are not worth a timer. */
const MIN_IDLE_CHECK_MS = 1000;
const BINARY = { binary: true } as const;

/** A session's totals since it started relaying (read once a second for the admin's live view). */
export interface RelayFigures {
  bytesToDisplay: number;
  bytesToServer: number;
  pdusToDisplay: number;
  framesToDisplay: number;
}

export class RelaySession implements RelayOutput, RelayMeter {
  readonly done: Promise<RelayEnd>;
  /** Plain counters: a few additions per pump, no allocation, no timer. */
  readonly figures: RelayFigures = { bytesToDisplay: 0, bytesToServer: 0, pdusToDisplay: 0, framesToDisplay: 0 };
  private readonly core: RelayCore;
  private readonly sent = new SendLatencyQueue();
  /** When the chunk being pumped was read (for the relay latency histogram). */
  private readAt = 0;
  private idleTimer: NodeJS.Timeout | undefined;
  private endResolve!: (end: RelayEnd) => void;

  constructor(
    private readonly server: Duplex,
    private readonly client: WebSocket,
    options: RelayOptions,
    private readonly metrics: GatewayMetrics,
    /** Text frames from the kiosk during the relay (session control, not RDP). */
    private readonly onText: (data: Buffer) => void,
    /** The server's raw socket's queued, unwritten bytes (TLS legs: what OpenSSL wrote beneath the TLS socket's own count). */
    private readonly serverWriteQueued: () => number = () => 0,
  ) {
    this.core = new RelayCore(options, this, this);
    this.done = new Promise((resolve) => { this.endResolve = resolve; });
  }

  start(): void {
    this.server.on('data', this.onServerData);
    this.server.on('drain', this.onServerDrain);
    this.server.once('end', this.onServerClosed);
    this.server.once('close', this.onServerClosed);
    this.server.once('error', this.onServerError);
    this.client.on('message', this.onClientMessage);
    // before any other listener: the session ends with its reason before a socket-wide guard cuts the socket
    this.client.prependListener('ping', this.onClientPing);
    this.client.once('close', this.onClientClosed);
    this.scheduleIdleCheck(this.core.tick());
    // The server may have gone between the handshake and now: its close event is already past.
    if (this.server.destroyed) {
      this.core.serverClosed();
      return;
    }
    this.server.resume();
  }

  /** Ends the session from outside: the kiosk's close, an admin stop, the drain. */
  stop(reason: 'client-closed' | 'stopped' | 'gateway-shutdown'): void {
    this.core.stop(reason);
  }

  fail(error: SessionError): void {
    this.core.fail(error);
  }

  /** The presenter's permission (issue 30): the display's input PDUs reach the server, or are dropped (the default). */
  setInputAllowed(allowed: boolean): void {
    this.core.setInputAllowed(allowed);
  }

  /** A session control reply (pong) to the kiosk, beside the relayed PDUs. */
  sendText(text: string): void {
    if (!this.core.isEnded && this.client.readyState === this.client.OPEN) {
      this.client.send(text);
      this.core.overCap('client', this.client.bufferedAmount);
    }
  }

  // Socket events → core inputs. Bound once per session: no closure per message.

  private readonly onServerData = (chunk: Buffer): void => {
    if (this.core.serverWriteQueued(this.serverWriteQueued())) return;
    this.readAt = performance.now();
    this.core.serverData(chunk);
    this.core.clientBuffered(this.client.bufferedAmount);
  };

  private readonly onServerDrain = (): void => this.core.serverDrained();
  private readonly onServerClosed = (): void => this.core.serverClosed();
  /** A leg that knows why it failed (a presenter page that broke the framing) says so; a socket error is `server-error`. */
  private readonly onServerError = (error: Error): void => {
    if (error instanceof SessionError) this.core.fail(error);
    else this.core.serverFailed(error.message);
  };
  private readonly onClientClosed = (): void => this.core.clientClosed();
  /** ws answered the ping already (its autoPong): one more frame for a display that may not read. */
  private readonly onClientPing = (): void => { this.core.overCap('client', this.client.bufferedAmount); };

  private readonly onClientMessage = (data: RawData, isBinary: boolean): void => {
    // binaryType "nodebuffer": one Buffer per message
    if (isBinary) this.core.clientFrame(data as Buffer);
    else this.onText(data as Buffer);
  };

  private readonly onSent = (error?: Error): void => {
    const readAt = this.sent.shift();
    if (error || readAt === undefined) return;
    this.metrics.relayLatency.observe((performance.now() - readAt) / 1000);
    this.core.clientBuffered(this.client.bufferedAmount);
  };

  private readonly onIdleCheck = (): void => this.scheduleIdleCheck(this.core.tick());

  private scheduleIdleCheck(dueInMs: number | undefined): void {
    if (dueInMs === undefined) return;
    this.idleTimer = setTimeout(this.onIdleCheck, Math.max(dueInMs, MIN_IDLE_CHECK_MS));
    this.idleTimer.unref();
  }

  // Core outputs → socket calls.

  sendToClient(frame: Buffer): void {
    this.sent.push(this.readAt);
    this.client.send(frame, BINARY, this.onSent);
  }

  writeToServer(frame: Buffer): boolean {
    const taken = this.server.write(frame);
    if (!taken) this.core.overCap('server', this.server.writableLength);
    return taken;
  }

  pauseServer(): void {
    this.server.pause();
  }

  resumeServer(): void {
    this.server.resume();
  }

  pauseClient(): void {
    this.client.pause();
  }

  resumeClient(): void {
    this.client.resume();
  }

  end(end: RelayEnd): void {
    clearTimeout(this.idleTimer);
    this.server.off('data', this.onServerData);
    this.client.off('message', this.onClientMessage);
    this.client.off('ping', this.onClientPing);
    this.server.destroy();
    this.endResolve(end);
  }

  // Counters: plain additions, taken into the Prometheus counters when they are read (gatewayMetrics.ts).

  toKiosk(bytes: number, pdus: number, frames: number, copiedBytes: number): void {
    const { figures } = this;
    const tally = this.metrics.relayTally;
    figures.bytesToDisplay += bytes;
    figures.pdusToDisplay += pdus;
    figures.framesToDisplay += frames;
    tally.bytesToKiosk += bytes;
    tally.pdusToKiosk += pdus;
    tally.framesToKiosk += frames;
    tally.copiedBytes += copiedBytes;
  }

  toServer(bytes: number, pdus: number): void {
    const tally = this.metrics.relayTally;
    this.figures.bytesToServer += bytes;
    tally.bytesToServer += bytes;
    tally.pdusToServer += pdus;
    tally.framesToServer += 1;
  }

  paused(): void {
    this.metrics.relayTally.pauses += 1;
  }
}
