// Reads the length of the PDU that starts at a given byte, from its header
// alone: TPKT (RFC 1006 / MS-RDPBCGR 2.2.1.1), fast-path (MS-RDPBCGR
// 2.2.8.1.2 / 2.2.9.1.2), DER TSRequest (MS-CSSP 2.2.1) and the Early User
// Authorization Result (MS-RDPBCGR 2.2.10.2). Pure: no state, no copies.
import { FramingError, hexByte } from './framingError.js';
import { TPKT_VERSION, type FramingMode } from './framingMode.js';

export type PduKind = 'tpkt' | 'fast-path' | 'ts-request' | 'early-user-auth';

export interface PduHeader {
  readonly kind: PduKind;
  /** Whole PDU length in bytes, header included. */
  readonly length: number;
}

/** TPKT header (4) + the shortest X.224 TPDU, a Data TPDU header (3). */
export const MIN_TPKT_LENGTH = 7;
/** The most header bytes any kind needs before its length is known (DER, 4 length bytes). */
export const MAX_HEADER_BYTES = 6;

const DER_SEQUENCE = 0x30;
const EARLY_USER_AUTH_LENGTH = 4;
const EARLY_USER_AUTH_SUCCESS = 0x00;
const EARLY_USER_AUTH_DENIED = 0x05;

/**
 * Length of the PDU at `bytes[start]`, or undefined when fewer than the
 * needed header bytes are available before `end`. `streamOffset` is where
 * `bytes[start]` sits in the stream, for error messages. Throws FramingError.
 */
export function readPduHeader(
  bytes: Uint8Array,
  start: number,
  end: number,
  mode: FramingMode,
  maxPduBytes: number,
  streamOffset: number,
): PduHeader | undefined {
  const available = end - start;
  if (available < 1) return undefined;
  const first = bytes[start] ?? 0;
  const invalid = (message: string): FramingError =>
    new FramingError('pdu-invalid', `${message} at offset ${streamOffset}`, streamOffset);
  const checked = (kind: PduKind, length: number): PduHeader => {
    if (length > maxPduBytes) {
      throw new FramingError(
        'pdu-too-large',
        `${kind} pdu of ${length} bytes exceeds the ${maxPduBytes}-byte limit at offset ${streamOffset}`,
        streamOffset,
      );
    }
    return { kind, length };
  };

  if (first === TPKT_VERSION) {
    if (available < 4) return undefined;
    const reserved = bytes[start + 1] ?? 0;
    if (reserved !== 0) throw invalid(`tpkt reserved byte is ${hexByte(reserved)}, not 0x00,`);
    const length = ((bytes[start + 2] ?? 0) << 8) | (bytes[start + 3] ?? 0);
    if (length < MIN_TPKT_LENGTH) throw invalid(`tpkt length ${length} is below ${MIN_TPKT_LENGTH}`);
    return checked('tpkt', length);
  }

  if (mode === 'rdp') {
    if ((first & 0x03) !== 0) throw invalid(`unknown pdu header byte ${hexByte(first)}`);
    if (available < 2) return undefined;
    const second = bytes[start + 1] ?? 0;
    if ((second & 0x80) === 0) {
      if (second < 2) throw invalid(`fast-path length ${second} is shorter than its header`);
      return checked('fast-path', second);
    }
    if (available < 3) return undefined;
    const length = ((second & 0x7f) << 8) | (bytes[start + 2] ?? 0);
    if (length < 3) throw invalid(`fast-path length ${length} is shorter than its header`);
    return checked('fast-path', length);
  }

  if (first === DER_SEQUENCE) {
    if (available < 2) return undefined;
    const lengthByte = bytes[start + 1] ?? 0;
    if (lengthByte < 0x80) {
      if (lengthByte === 0) throw invalid('empty ts-request');
      return checked('ts-request', 2 + lengthByte);
    }
    const lengthBytes = lengthByte & 0x7f;
    if (lengthBytes === 0) throw invalid('ts-request with indefinite length');
    if (lengthBytes > 4) throw invalid(`ts-request length of ${lengthBytes} bytes`);
    if (available < 2 + lengthBytes) return undefined;
    let contentLength = 0;
    for (let i = 0; i < lengthBytes; i++) contentLength = contentLength * 256 + (bytes[start + 2 + i] ?? 0);
    if (contentLength === 0) throw invalid('empty ts-request');
    return checked('ts-request', 2 + lengthBytes + contentLength);
  }

  if (mode === 'nla-ex' && (first === EARLY_USER_AUTH_SUCCESS || first === EARLY_USER_AUTH_DENIED)) {
    if (available < EARLY_USER_AUTH_LENGTH) return undefined;
    for (let i = 1; i < EARLY_USER_AUTH_LENGTH; i++) {
      const byte = bytes[start + i] ?? 0;
      if (byte !== 0) throw invalid(`early user authorization result byte ${i} is ${hexByte(byte)}, not 0x00,`);
    }
    return checked('early-user-auth', EARLY_USER_AUTH_LENGTH);
  }

  throw invalid(`unknown pdu header byte ${hexByte(first)} during nla`);
}
