import type { RawData } from 'ws';
import { parseKioskDataMessage } from '@lanterna/protocol';

export type Incoming = { kind: 'text'; text: string } | { kind: 'binary'; data: Buffer };

/** The socket events the reader listens to (a ws WebSocket, or a stand-in in tests). */
export interface MessageSource {
  on(event: 'message', listener: (data: RawData, isBinary: boolean) => void): unknown;
  on(event: 'close', listener: () => void): unknown;
  off(event: 'message', listener: (data: RawData, isBinary: boolean) => void): unknown;
  off(event: 'close', listener: () => void): unknown;
}

/**
 * What a handshake may hold unread. A kiosk sends at most `open` (or `hello`)
 * and its Connection Request before it hears back; more is a flood.
 */
export interface HandshakeLimits { maxQueuedMessages: number; maxQueuedBytes: number }
export const DEFAULT_HANDSHAKE_LIMITS: HandshakeLimits = { maxQueuedMessages: 4, maxQueuedBytes: 64 * 1024 };

/** Why the reader stopped taking messages: a flood, data while the peer must be silent, or its polite `close`. */
export type Interruption = 'overflow' | 'unexpected' | 'close';

/**
 * Buffers a socket's first messages so handshake code can `await next()` in
 * order, each wait with its own deadline, and never more than the limits.
 * `expectSilence()` marks the stretch where the peer must send nothing (the
 * server leg is being set up): the first message there interrupts at once and
 * is dropped, not kept. Detach before relaying starts.
 */
export class HandshakeReader {
  private readonly queue: { message: Incoming; bytes: number }[] = [];
  private queuedBytes = 0;
  private waiter: ((message: Incoming | 'closed' | 'interrupted') => void) | undefined;
  private closed = false;
  private silent = false;
  private interruption: Interruption | undefined;
  private onInterrupt: ((why: Interruption) => void) | undefined;
  private readonly onMessage = (data: RawData, isBinary: boolean): void => {
    const buffer = data as Buffer;
    this.deliver(isBinary ? { kind: 'binary', data: buffer } : { kind: 'text', text: buffer.toString('utf8') }, buffer.length);
  };
  private readonly onClose = (): void => {
    this.closed = true;
    this.wake('closed');
  };

  constructor(
    private readonly socket: MessageSource,
    private readonly limits: HandshakeLimits = DEFAULT_HANDSHAKE_LIMITS,
  ) {
    socket.on('message', this.onMessage);
    socket.on('close', this.onClose);
  }

  /** Bytes of messages received but not yet read. */
  get bufferedBytes(): number {
    return this.queuedBytes;
  }

  get bufferedMessages(): number {
    return this.queue.length;
  }

  /** Resolves with the next message, 'closed', 'timeout', or 'interrupted' (see `interruption`). */
  next(timeoutMs: number): Promise<Incoming | 'closed' | 'timeout' | 'interrupted'> {
    if (this.interruption) return Promise.resolve('interrupted');
    const queued = this.queue.shift();
    if (queued) {
      this.queuedBytes -= queued.bytes;
      return Promise.resolve(queued.message);
    }
    if (this.closed) return Promise.resolve('closed');
    return new Promise((resolve) => {
      const timer = setTimeout(() => { this.waiter = undefined; resolve('timeout'); }, timeoutMs);
      this.waiter = (message) => { clearTimeout(timer); resolve(message); };
    });
  }

  /** Why the reader was interrupted, if it was. */
  get interrupted(): Interruption | undefined {
    return this.interruption;
  }

  /**
   * From now on the peer must stay silent: its next message calls `onInterrupt`
   * ('close' for a polite close, 'unexpected' for anything else) and is dropped.
   * A message already queued counts at once, the same way.
   */
  expectSilence(onInterrupt: (why: Interruption) => void): void {
    this.silent = true;
    this.onInterrupt = onInterrupt;
    const queued = this.queue[0];
    if (this.interruption) onInterrupt(this.interruption);
    else if (queued) this.interrupt(silenceBroken(queued.message));
  }

  /** Stops listening; returns anything that arrived but was not read (it must be handled by the next owner). */
  detach(): Incoming[] {
    this.socket.off('message', this.onMessage);
    this.socket.off('close', this.onClose);
    this.queuedBytes = 0;
    return this.queue.splice(0).map((item) => item.message);
  }

  private deliver(message: Incoming, bytes: number): void {
    if (this.interruption) return;
    if (this.silent) {
      this.interrupt(silenceBroken(message));
      return;
    }
    const waiter = this.waiter;
    if (waiter) {
      this.waiter = undefined;
      waiter(message);
      return;
    }
    if (this.queue.length + 1 > this.limits.maxQueuedMessages || this.queuedBytes + bytes > this.limits.maxQueuedBytes) {
      this.interrupt('overflow');
      return;
    }
    this.queue.push({ message, bytes });
    this.queuedBytes += bytes;
  }

  private interrupt(why: Interruption): void {
    this.interruption = why;
    this.queue.length = 0;
    this.queuedBytes = 0;
    this.wake('interrupted');
    this.onInterrupt?.(why);
  }

  private wake(outcome: 'closed' | 'interrupted'): void {
    const waiter = this.waiter;
    this.waiter = undefined;
    waiter?.(outcome);
  }
}

/** A polite close is not a protocol violation; anything else sent during the silence is. */
function silenceBroken(message: Incoming): Interruption {
  if (message.kind !== 'text') return 'unexpected';
  const parsed = parseKioskDataMessage(message.text);
  return parsed.ok && parsed.message.type === 'close' ? 'close' : 'unexpected';
}
