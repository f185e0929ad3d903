// Counts the PDUs in one binary frame of the data socket (frames carry whole
// PDUs, one or several). Only lengths are read: this is for the HUD, not a parser.

/** Length of the PDU starting at `offset`, or 0 when the header is not one we know. */
function pduLength(bytes: Uint8Array, offset: number): number {
  const first = bytes[offset];
  if (first === undefined) return 0;
  if (first === 0x03) {
    // TPKT: 03 00 len16be
    return ((bytes[offset + 2] ?? 0) << 8) | (bytes[offset + 3] ?? 0);
  }
  if (first === 0x30) {
    // DER TSRequest during NLA: short or long form length
    const l = bytes[offset + 1] ?? 0;
    if (l < 0x80) return 2 + l;
    const n = l & 0x7f;
    let length = 0;
    for (let i = 0; i < n; i++) length = (length << 8) | (bytes[offset + 2 + i] ?? 0);
    return 2 + n + length;
  }
  if ((first & 0x03) === 0) {
    // fast-path: one length byte, or two when the high bit is set
    const l1 = bytes[offset + 1] ?? 0;
    return l1 & 0x80 ? ((l1 & 0x7f) << 8) | (bytes[offset + 2] ?? 0) : l1;
  }
  return 0;
}

export function countPdus(bytes: Uint8Array): number {
  let count = 0;
  let offset = 0;
  while (offset < bytes.length) {
    const length = pduLength(bytes, offset);
    count += 1;
    if (length <= 0) break;
    offset += length;
  }
  return count;
}
