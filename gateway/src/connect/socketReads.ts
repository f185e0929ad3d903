import type { Socket } from 'node:net';

/**
 * Reads exactly one TPKT from a socket that is not yet relaying: capped in size,
 * bounded in time, and fails on anything the server sends beyond it (a server
 * must stay silent until the client starts TLS).
 */
export function readOneTpkt(socket: Socket, options: { timeoutMs: number; maxBytes: number; signal?: AbortSignal | undefined }): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const { signal } = options;
    if (signal?.aborted) {
      reject(new ReadError('aborted', 'the read was aborted'));
      return;
    }
    let received = Buffer.alloc(0);
    const timer = setTimeout(() => finish(new ReadError('timeout', `no reply within ${options.timeoutMs} ms`)), options.timeoutMs);
    const onAbort = (): void => finish(new ReadError('aborted', 'the read was aborted'));
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
      signal?.removeEventListener('abort', onAbort);
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
    signal?.addEventListener('abort', onAbort, { once: true });
    socket.resume();
  });
}

export class ReadError extends Error {
  constructor(readonly kind: 'timeout' | 'invalid' | 'closed' | 'aborted', message: string) {
    super(message);
    this.name = 'ReadError';
  }
}
