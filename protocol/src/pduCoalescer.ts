// Groups whole PDUs into WebSocket-sized frames without copying: PDUs that
// lie back to back in the same memory become one view of it. A PDU is never
// split, and a frame never exceeds maxFrameBytes.
import { viewLike } from './byteViews.js';

export interface PduBatch<Bytes extends Uint8Array = Uint8Array> {
  /** One or more whole PDUs, back to back. */
  readonly data: Bytes;
  readonly pduCount: number;
}

function adjacent(a: Uint8Array, b: Uint8Array): boolean {
  return a.buffer === b.buffer && a.byteOffset + a.length === b.byteOffset;
}

/** Every PDU must be at most maxFrameBytes long (the framer guarantees it). */
export function coalescePdus<Bytes extends Uint8Array>(pdus: readonly Bytes[], maxFrameBytes: number): PduBatch<Bytes>[] {
  const batches: PduBatch<Bytes>[] = [];
  let first: Bytes | undefined;
  let last: Bytes | undefined;
  let bytes = 0;
  let count = 0;
  const flush = (): void => {
    if (first === undefined || last === undefined) return;
    const data = count === 1 ? first : viewLike(first, first.byteOffset, bytes);
    batches.push({ data, pduCount: count });
  };
  for (const pdu of pdus) {
    if (pdu.length > maxFrameBytes) {
      throw new RangeError(`pdu of ${pdu.length} bytes cannot fit a ${maxFrameBytes}-byte frame`);
    }
    if (last !== undefined && adjacent(last, pdu) && bytes + pdu.length <= maxFrameBytes) {
      last = pdu;
      bytes += pdu.length;
      count++;
      continue;
    }
    flush();
    first = pdu;
    last = pdu;
    bytes = pdu.length;
    count = 1;
  }
  flush();
  return batches;
}
