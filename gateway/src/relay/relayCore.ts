// One session's pump, sans-I/O: the adapter (relaySession.ts) feeds it what the
// two sockets did and carries out what it asks for. It holds no socket and no
// timer, so every rule below is tested with plain buffers and a fake clock.
//
// Outputs go through a port the adapter implements (`RelayOutput`) rather than
// as returned action lists: the pump runs once per TLS read and per kiosk
// frame, and a port costs no allocation per message.
import { PduFramer, countWholePdus, dropInputPdus, FramingError, framingModeFor, type FramingMode } from '@lanterna/protocol';
import { SessionError } from '../session/sessionError.js';

export interface RelayOptions {
  /** Stop reading the server when the kiosk's socket holds more than this. */
  highWaterBytes: number;
  /** Read the server again once the kiosk's socket holds this or less. */
  lowWaterBytes: number;
  maxFrameBytes: number;
  /** No RDP traffic either way for this long ends the session; 0: never. */
  idleTimeoutMs: number;
  /**
   * What may wait for a side that does not read, what the gateway writes on
   * its own behalf (pongs, TLS answers) included; past it that side is cut
   * with `peer-not-reading`. 0: no cap.
   */
  maxBacklogBytes?: number;
  /**
   * How long the server's socket may hold bytes it has not taken (the kernel
   * full, the write queued) before the session ends with `peer-not-reading`:
   * the write deadline of the server leg. 0 or absent: none.
   */
  writeStallMs?: number;
  /** NLA sessions start with DER TSRequests (and, for HYBRID_EX, the early authorization result). */
  protocol: 'ssl' | 'hybrid' | 'hybrid-ex';
}

export type RelayEnd =
  | { reason: 'server-closed' | 'client-closed' | 'stopped' | 'gateway-shutdown' }
  | { reason: 'error'; error: SessionError };

/** What the pump asks its sockets to do. Nothing is called after `end`. */
export interface RelayOutput {
  /** One WebSocket message of whole PDUs for the kiosk. */
  sendToClient(frame: Buffer): void;
  /** Bytes for the server; false when its write buffer is full (as `Writable.write`). */
  writeToServer(frame: Buffer): boolean;
  pauseServer(): void;
  resumeServer(): void;
  pauseClient(): void;
  resumeClient(): void;
  /** Called once: the session is over; the adapter closes the server leg. */
  end(end: RelayEnd): void;
}

/** Counters the pump reports to, once per input (not per PDU). */
export interface RelayMeter {
  toKiosk(bytes: number, pdus: number, frames: number, copiedBytes: number): void;
  toServer(bytes: number, pdus: number): void;
  /** One side was paused for backpressure. */
  paused(side: 'server' | 'client'): void;
}

export class RelayCore {
  private readonly toClient: PduFramer<Buffer>;
  private clientMode: FramingMode;
  private serverPaused = false;
  private clientPaused = false;
  private ended = false;
  private lastActivity: number;
  private copiedSeen = 0;
  /** Since when the server's socket has held unwritten bytes (undefined: it took everything). */
  private serverStalledSince: number | undefined;
  /** The presenter lets people at the display control the computer (issue 30); off, the display's input PDUs are dropped here. */
  private inputAllowed = false;

  constructor(
    private readonly options: RelayOptions,
    private readonly out: RelayOutput,
    private readonly meter: RelayMeter,
    private readonly clock: () => number = Date.now,
  ) {
    this.toClient = new PduFramer<Buffer>({
      mode: framingModeFor(options.protocol, 'server-to-client'),
      maxFrameBytes: options.maxFrameBytes,
      // A PDU straddling two reads is copied once; as a Buffer, like Buffer.concat made it.
      allocate: (length) => Buffer.allocUnsafe(length),
    });
    this.clientMode = framingModeFor(options.protocol, 'client-to-server');
    this.lastActivity = clock();
  }

  get isEnded(): boolean {
    return this.ended;
  }

  get isServerPaused(): boolean {
    return this.serverPaused;
  }

  get isClientPaused(): boolean {
    return this.clientPaused;
  }

  /** TLS plaintext from the server: whole PDUs go to the kiosk, coalesced; a partial one waits for the rest. */
  serverData(chunk: Buffer): void {
    if (this.ended) return;
    this.lastActivity = this.clock();
    let batches;
    try {
      // Most reads are whole PDUs that fit one frame: sent as they came, with nothing made per read.
      const whole = this.toClient.takeWhole(chunk);
      if (whole > 0) {
        this.out.sendToClient(chunk);
        this.meter.toKiosk(chunk.length, whole, 1, 0);
        return;
      }
      batches = this.toClient.pushBatches(chunk);
    } catch (error) {
      this.finish({ reason: 'error', error: framingFailure(error, 'server') });
      return;
    }
    let pdus = 0;
    for (const batch of batches) {
      this.out.sendToClient(batch.data);
      pdus += batch.pduCount;
    }
    const copied = this.toClient.stats.copiedBytes;
    this.meter.toKiosk(chunk.length, pdus, batches.length, copied - this.copiedSeen);
    this.copiedSeen = copied;
  }

  /**
   * The kiosk socket's buffered bytes, after a send or when it drained: above
   * high water the server is paused (TCP then pushes back on it), at or below
   * low water it is read again.
   */
  clientBuffered(bytes: number): void {
    if (this.ended || this.overCap('client', bytes)) return;
    if (!this.serverPaused && bytes > this.options.highWaterBytes) {
      this.serverPaused = true;
      this.out.pauseServer();
      this.meter.paused('server');
    } else if (this.serverPaused && bytes <= this.options.lowWaterBytes) {
      this.serverPaused = false;
      this.out.resumeServer();
    }
  }

  /**
   * What waits for a side now (the kiosk socket's buffered bytes after a
   * pong, the server socket's after a write): past maxBacklogBytes the
   * session ends with `peer-not-reading`, that side named. True when it ended.
   */
  overCap(side: 'server' | 'client', bytes: number): boolean {
    const limit = this.options.maxBacklogBytes ?? 0;
    if (this.ended || limit <= 0 || bytes <= limit) return this.ended;
    const who = side === 'server' ? "the presenter's computer" : 'the display';
    this.finish({ reason: 'error', error: new SessionError('relay', 'peer-not-reading', `${who} stopped reading and left more than ${limit} bytes unread`, { side }) });
    return true;
  }

  /**
   * The server socket's queued, unwritten bytes, seen on every read from it.
   * A server that sends and never reads makes the gateway's TLS stack answer
   * (key updates) into a queue no cap sees; the write deadline bounds it.
   * True when it ended the session.
   */
  serverWriteQueued(bytes: number): boolean {
    const limit = this.options.writeStallMs ?? 0;
    if (this.ended || limit <= 0) return this.ended;
    if (bytes === 0) {
      this.serverStalledSince = undefined;
      return false;
    }
    const now = this.clock();
    this.serverStalledSince ??= now;
    if (now - this.serverStalledSince < limit) return false;
    this.finish({ reason: 'error', error: new SessionError('relay', 'peer-not-reading', `the presenter's computer took none of the gateway's writes for ${limit} ms`, { side: 'server' }) });
    return true;
  }

  /**
   * The presenter's permission (issue 30): while off (the default, and at
   * once after a revoke) every input PDU the display sends is dropped here,
   * whatever the display page does (protocol's inputPdus.ts).
   */
  setInputAllowed(allowed: boolean): void {
    this.inputAllowed = allowed;
  }

  get isInputAllowed(): boolean {
    return this.inputAllowed;
  }

  /** One binary WebSocket message from the kiosk: it must hold whole PDUs only. */
  clientFrame(frame: Buffer): void {
    if (this.ended) return;
    this.lastActivity = this.clock();
    // Counted, not split: the frame goes to the server whole, so no view per PDU is made.
    let pdus: number;
    try {
      const counted = countWholePdus(frame, this.clientMode);
      pdus = counted.count;
      // The client's first TPKT (MCS Connect-Initial) ends NLA: from then on only TPKT and fast-path.
      if (counted.mode !== this.clientMode) {
        this.clientMode = counted.mode;
        if (this.clientMode === 'rdp') this.toClient.setMode('rdp');
      }
    } catch (error) {
      this.finish({ reason: 'error', error: framingFailure(error, 'client') });
      return;
    }
    if (this.clientMode === 'rdp' && !this.inputAllowed) {
      const filtered = dropInputPdus(frame);
      if (filtered.dropped > 0) {
        if (filtered.frame.length === 0) return;
        frame = Buffer.from(filtered.frame.buffer, filtered.frame.byteOffset, filtered.frame.length);
        pdus -= filtered.dropped;
      }
    }
    this.meter.toServer(frame.length, pdus);
    // the write may have found the server's backlog over its cap (overCap): then the session is over
    if (!this.out.writeToServer(frame) && !this.isEnded && !this.clientPaused) {
      this.clientPaused = true;
      this.out.pauseClient();
      this.meter.paused('client');
    }
  }

  /** The server's write buffer emptied: read the kiosk again. */
  serverDrained(): void {
    if (this.ended || !this.clientPaused) return;
    this.clientPaused = false;
    this.out.resumeClient();
  }

  serverClosed(): void {
    this.finish({ reason: 'server-closed' });
  }

  serverFailed(message: string): void {
    this.finish({ reason: 'error', error: new SessionError('relay', 'server-error', undefined, {}, { error: message }) });
  }

  clientClosed(): void {
    this.finish({ reason: 'client-closed' });
  }

  /** Ends the session from outside: the kiosk said close, an admin stop, the gateway's drain. */
  stop(reason: 'client-closed' | 'stopped' | 'gateway-shutdown'): void {
    this.finish({ reason });
  }

  /** Ends the session with an error found outside the pump (a bad control message). */
  fail(error: SessionError): void {
    this.finish({ reason: 'error', error });
  }

  /**
   * Checks the idle deadline. Returns the milliseconds until the next check is
   * due, or undefined when none is (ended, or no idle timeout).
   */
  tick(): number | undefined {
    if (this.ended || this.options.idleTimeoutMs <= 0) return undefined;
    const idleFor = this.clock() - this.lastActivity;
    if (idleFor >= this.options.idleTimeoutMs) {
      this.finish({ reason: 'error', error: new SessionError('relay', 'timeout', `no traffic for ${this.options.idleTimeoutMs} ms`, { phase: 'relay' }) });
      return undefined;
    }
    return this.options.idleTimeoutMs - idleFor;
  }

  private finish(end: RelayEnd): void {
    if (this.ended) return;
    this.ended = true;
    // A paused kiosk socket could not read the close handshake that follows.
    if (this.clientPaused) {
      this.clientPaused = false;
      this.out.resumeClient();
    }
    this.out.end(end);
  }
}

/** The kiosk protocol's words for a malformed PDU from either side. */
export function framingFailure(error: unknown, side: 'server' | 'client'): SessionError {
  if (error instanceof FramingError) {
    const code = error.code === 'pdu-too-large' ? 'pdu-too-large' : side === 'server' ? 'server-error' : 'pdu-invalid';
    const who = side === 'server' ? "the presenter's computer" : 'the display';
    return new SessionError('relay', code, `${who} sent a malformed RDP message: ${error.message}`, { side });
  }
  return new SessionError('relay', 'internal', undefined, {}, { error: String(error) });
}
