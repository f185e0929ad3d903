// TPKT (RFC 1006) framing: the unit the gateway relays whole, so every packet
// the load test sends or expects is one TPKT PDU.

export const TPKT_HEADER_BYTES = 4;
/** TPKT + the 3-byte X.224 Data TPDU header an RDP PDU carries. */
export const MIN_PDU_BYTES = 7;
export const MAX_PDU_BYTES = 0xffff;

/**
 * A TPKT PDU of exactly `totalBytes` carrying an X.224 Data TPDU, filled with a
 * recognisable pattern so a corrupted echo shows up in a hexdump.
 */
export function buildTpktPdu(totalBytes: number): Buffer {
  if (!Number.isInteger(totalBytes) || totalBytes < MIN_PDU_BYTES || totalBytes > MAX_PDU_BYTES) {
    throw new RangeError(`pdu size must be an integer in ${MIN_PDU_BYTES}..${MAX_PDU_BYTES}, got ${totalBytes}`);
  }
  const pdu = Buffer.alloc(totalBytes, 0x5a);
  pdu[0] = 0x03;
  pdu[1] = 0x00;
  pdu.writeUInt16BE(totalBytes, 2);
  // X.224 Data TPDU: length indicator 2, code 0xF0, EOT
  pdu[4] = 0x02;
  pdu[5] = 0xf0;
  pdu[6] = 0x80;
  return pdu;
}

/**
 * Counts complete TPKT PDUs in a byte stream that arrives in arbitrary chunks,
 * without copying: the echo host only needs to know how many requests arrived.
 */
export class TpktPduCounter {
  private remainingInPdu = 0;
  private readonly header = Buffer.alloc(TPKT_HEADER_BYTES);
  private headerFill = 0;

  /** Feeds a chunk; returns how many PDUs it completed. Throws on a non-TPKT byte stream. */
  push(chunk: Uint8Array): number {
    let completed = 0;
    let offset = 0;
    while (offset < chunk.length) {
      if (this.remainingInPdu > 0) {
        const take = Math.min(this.remainingInPdu, chunk.length - offset);
        this.remainingInPdu -= take;
        offset += take;
        if (this.remainingInPdu === 0) completed += 1;
        continue;
      }
      const take = Math.min(TPKT_HEADER_BYTES - this.headerFill, chunk.length - offset);
      this.header.set(chunk.subarray(offset, offset + take), this.headerFill);
      this.headerFill += take;
      offset += take;
      if (this.headerFill < TPKT_HEADER_BYTES) break;
      this.headerFill = 0;
      if (this.header[0] !== 0x03) throw new Error(`not a tpkt stream: first byte 0x${(this.header[0] ?? 0).toString(16)}`);
      const length = this.header.readUInt16BE(2);
      if (length < MIN_PDU_BYTES) throw new Error(`tpkt length ${length} is below the minimum`);
      this.remainingInPdu = length - TPKT_HEADER_BYTES;
    }
    return completed;
  }
}

/**
 * Counts the PDUs in one WebSocket message, which the gateway guarantees holds
 * whole PDUs only (possibly several coalesced).
 */
export function countWholePdus(message: Uint8Array): number {
  let count = 0;
  let offset = 0;
  while (offset < message.length) {
    if (message.length - offset < TPKT_HEADER_BYTES || message[offset] !== 0x03) {
      throw new Error(`message holds a partial or non-tpkt pdu at offset ${offset}`);
    }
    const length = ((message[offset + 2] ?? 0) << 8) | (message[offset + 3] ?? 0);
    if (length < MIN_PDU_BYTES || offset + length > message.length) {
      throw new Error(`message holds a partial pdu at offset ${offset} (length ${length})`);
    }
    offset += length;
    count += 1;
  }
  return count;
}
