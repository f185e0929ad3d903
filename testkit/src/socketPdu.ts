// One PDU (a Connection Request or Confirm) from a socket that is not relaying
// yet, for the test peers and the native-client bridge: framed by the protocol
// package's framer (no length parsing of its own), capped, with a deadline.
import type { Socket } from 'node:net';
import { PduFramer } from '@lanterna/protocol';

export function readOneTpkt(socket: Socket, options: { timeoutMs: number; maxBytes: number }): Promise<Buffer> {
  const framer = new PduFramer<Buffer>({ mode: 'rdp', maxPduBytes: options.maxBytes });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => finish(new Error(`no pdu within ${options.timeoutMs} ms`)), options.timeoutMs);
    const onData = (chunk: Buffer): void => {
      try {
        framer.push(chunk);
      } catch (error) {
        finish(error instanceof Error ? error : new Error(String(error)));
        return;
      }
      const [pdu] = framer.lastPdus();
      if (pdu) finish(Buffer.from(pdu));
    };
    const onEnd = (): void => finish(new Error('the peer closed the connection before a whole pdu'));
    function finish(outcome: Buffer | Error): void {
      clearTimeout(timer);
      socket.off('data', onData);
      socket.off('end', onEnd);
      socket.off('error', finish);
      socket.pause();
      if (outcome instanceof Error) reject(outcome);
      else resolve(outcome);
    }
    socket.on('data', onData);
    socket.once('end', onEnd);
    socket.once('error', finish);
    socket.resume();
  });
}
