// Reads exactly one TPKT PDU from a stream during a handshake, with a size cap
// and a deadline, and hands back whatever arrived after it: the protocol
// package's capped read over the stream's 'data' events.
import type { Duplex } from 'node:stream';
import { eventByteSource, readOnePdu } from '@lanterna/protocol';

export interface FirstPdu { pdu: Buffer; rest: Buffer }

/** Leaves the stream paused, with nothing read past `rest`. */
export async function readFirstPdu(stream: Duplex, maxBytes: number, timeoutMs: number): Promise<FirstPdu> {
  const source = eventByteSource<Buffer>(stream);
  let read: FirstPdu;
  let unread: Buffer[];
  try {
    read = await readOnePdu(source, { maxBytes, trailing: 'return', signal: AbortSignal.timeout(timeoutMs) });
  } finally {
    stream.pause();
    unread = source.detach();
  }
  return unread.length === 0 ? read : { pdu: read.pdu, rest: Buffer.concat([read.rest, ...unread]) };
}
