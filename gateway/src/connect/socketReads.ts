import type { Socket } from 'node:net';

/**
 * Reads exactly one TPKT from a socket that is not yet relaying: capped in size,
 * bounded in time, and fails on anything the server sends beyond it (a server
 * must stay silent until the client starts TLS).
 */
export function readOneTpkt(socket: Socket, options: { timeoutMs: number; maxBytes: number }): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    let received = Buffer.alloc(0);
    const timer = setTimeout(() => finish(new ReadError('timeout', `no reply within ${options.timeoutMs} ms`)), options.timeoutMs);
    const onData = (chunk: Buffer): void => {
      received = Buffer.concat([received, chunk]);
      if (received.length >= 4) {
        if (received[0] !== 0x03 || received[1] !== 0x00) {
          finish(new ReadError('invalid', `reply does not start with a TPKT header (first bytes ${received.subarray(0, 4).toString('hex')})`));
          return;
        }
        const length = received.readUInt16BE(2);
        if (length < 7 || length > options.maxBytes) {
          finish(new ReadError('invalid', `reply announces ${length} bytes (allowed 7-${options.maxBytes})`));
          return;
        }
        if (received.length > length) {
          finish(new ReadError('invalid', `server sent ${received.length - length} bytes after its reply`));
          return;
        }
        if (received.length === length) finish(received);
      }
    };
    const onEnd = (): void => finish(new ReadError('closed', 'the server closed the connection before replying'));
    const onError = (error: Error): void => finish(new ReadError('closed', error.message));
    function finish(outcome: Buffer | ReadError): void {
      clearTimeout(timer);
      socket.off('data', onData);
      socket.off('end', onEnd);
      socket.off('error', onError);
      socket.pause();
      if (outcome instanceof ReadError) reject(outcome);
      else resolve(outcome);
    }
    socket.on('data', onData);
    socket.once('end', onEnd);
    socket.once('error', onError);
    socket.resume();
  });
}

export class ReadError extends Error {
  constructor(readonly kind: 'timeout' | 'invalid' | 'closed', message: string) {
    super(message);
    this.name = 'ReadError';
  }
}
