// One TPKT (a Connection Request or Confirm) from a socket that is not relaying
// yet, for the test peers and the native-client bridge: the protocol package's
// capped one-PDU read over the socket's events, with a deadline. The socket is
// paused again before TLS starts on it.
import type { Socket } from 'node:net';
import { eventByteSource, readOnePdu } from '@lanterna/protocol';

export async function readOneTpkt(socket: Socket, options: { timeoutMs: number; maxBytes: number }): Promise<Buffer> {
  const source = eventByteSource<Buffer>(socket);
  socket.resume();
  try {
    return (await readOnePdu(source, { maxBytes: options.maxBytes, signal: AbortSignal.timeout(options.timeoutMs) })).pdu;
  } finally {
    socket.pause();
    source.detach();
  }
}
