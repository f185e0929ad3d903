// Requests that name the size of their answer, so one echo host can serve a
// fleet of displays with mixed traffic (KW v1's 90 B answers beside KW v2.2's
// 1669 B and bursts of large ones). The size rides in the two bytes after the
// X.224 Data TPDU header; 0 asks for the request echoed back.
import { buildTpktPdu, MAX_PDU_BYTES, MIN_PDU_BYTES } from './tpktPdu.js';

const SIZE_OFFSET = MIN_PDU_BYTES;
/** The smallest request that can carry a size. */
export const MIN_SIZED_REQUEST_BYTES = SIZE_OFFSET + 2;

export function buildSizedRequest(requestBytes: number, replyBytes: number): Buffer {
  if (requestBytes < MIN_SIZED_REQUEST_BYTES) throw new RangeError(`a sized request needs at least ${MIN_SIZED_REQUEST_BYTES} bytes, got ${requestBytes}`);
  if (replyBytes !== 0 && (replyBytes < MIN_PDU_BYTES || replyBytes > MAX_PDU_BYTES)) throw new RangeError(`reply size must be 0 (echo) or ${MIN_PDU_BYTES}..${MAX_PDU_BYTES}, got ${replyBytes}`);
  const pdu = buildTpktPdu(requestBytes);
  pdu.writeUInt16BE(replyBytes, SIZE_OFFSET);
  return pdu;
}

/** The answer size a request asks for; 0 (echo) when it is too short to carry one. */
export function requestedReplyBytes(pdu: Uint8Array): number {
  if (pdu.length < MIN_SIZED_REQUEST_BYTES) return 0;
  return ((pdu[SIZE_OFFSET] ?? 0) << 8) | (pdu[SIZE_OFFSET + 1] ?? 0);
}
