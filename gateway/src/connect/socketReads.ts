// The connect path's side of the protocol package's capped one-PDU read: a
// socket that is not yet relaying, its deadline, and the package's errors as
// this path's ReadError kinds. The socket is paused again before anything
// else reads it (TLS starts on it right after the Confirm).
import type { Socket } from 'node:net';
import { eventByteSource, PduReadError, readOnePdu } from '@lanterna/protocol';

export class ReadError extends Error {
  constructor(readonly kind: 'timeout' | 'invalid' | 'closed' | 'aborted', message: string) {
    super(message);
    this.name = 'ReadError';
  }
}

function readErrorOf(error: PduReadError, deadline: AbortSignal, timeoutMs: number): ReadError {
  switch (error.kind) {
    case 'aborted':
      return deadline.aborted ? new ReadError('timeout', `no reply within ${timeoutMs} ms`) : new ReadError('aborted', 'the read was aborted');
    case 'closed':
      return new ReadError('closed', error.cause instanceof Error ? error.cause.message : 'the server closed the connection before replying');
    default:
      return new ReadError('invalid', error.message);
  }
}

/**
 * Reads exactly one TPKT from a socket that is not yet relaying: capped in size,
 * bounded in time, and fails on anything the server sends beyond it (a server
 * must stay silent until the client starts TLS).
 */
export async function readOneTpkt(socket: Socket, options: { timeoutMs: number; maxBytes: number; signal?: AbortSignal | undefined }): Promise<Buffer> {
  const deadline = AbortSignal.timeout(options.timeoutMs);
  const signal = options.signal ? AbortSignal.any([deadline, options.signal]) : deadline;
  const source = eventByteSource<Buffer>(socket);
  socket.resume();
  let pdu: Buffer;
  let unread = 0;
  try {
    pdu = (await readOnePdu(source, { maxBytes: options.maxBytes, signal })).pdu;
  } catch (error) {
    throw error instanceof PduReadError ? readErrorOf(error, deadline, options.timeoutMs) : error;
  } finally {
    socket.pause();
    unread = source.detach().reduce((bytes, chunk) => bytes + chunk.length, 0);
  }
  if (unread > 0) throw new ReadError('invalid', `server sent ${unread} bytes after its reply`);
  return pdu;
}
