// TPKT (RFC 1006) framing: the unit the gateway relays whole, so every packet
// the load test sends is one TPKT PDU. Reading them back (counting replies)
// is the protocol package's PduStreamCounter / countWholePdus.

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
