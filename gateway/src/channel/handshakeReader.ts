import type { WebSocket, RawData } from 'ws';

export type Incoming = { kind: 'text'; text: string } | { kind: 'binary'; data: Buffer };

/**
 * Buffers a socket's first messages so handshake code can `await next()` in
 * order, each wait with its own deadline. Detach before relaying starts.
 */
export class HandshakeReader {
  private readonly queue: Incoming[] = [];
  private waiter: ((message: Incoming | 'closed') => void) | undefined;
  private closed = false;
  private readonly onMessage = (data: RawData, isBinary: boolean): void => {
    const buffer = data as Buffer;
    this.deliver(isBinary ? { kind: 'binary', data: buffer } : { kind: 'text', text: buffer.toString('utf8') });
  };
  private readonly onClose = (): void => {
    this.closed = true;
    const waiter = this.waiter;
    this.waiter = undefined;
    waiter?.('closed');
  };

  constructor(private readonly socket: WebSocket) {
    socket.on('message', this.onMessage);
    socket.on('close', this.onClose);
  }

  /** Resolves with the next message, 'closed', or 'timeout'. */
  next(timeoutMs: number): Promise<Incoming | 'closed' | 'timeout'> {
    const queued = this.queue.shift();
    if (queued) return Promise.resolve(queued);
    if (this.closed) return Promise.resolve('closed');
    return new Promise((resolve) => {
      const timer = setTimeout(() => { this.waiter = undefined; resolve('timeout'); }, timeoutMs);
      this.waiter = (message) => { clearTimeout(timer); resolve(message); };
    });
  }

  /** Stops buffering; returns anything that arrived but was not read (it must be handled by the next owner). */
  detach(): Incoming[] {
    this.socket.off('message', this.onMessage);
    this.socket.off('close', this.onClose);
    return this.queue.splice(0);
  }

  private deliver(message: Incoming): void {
    const waiter = this.waiter;
    if (waiter) {
      this.waiter = undefined;
      waiter(message);
    } else {
      this.queue.push(message);
    }
  }
}
