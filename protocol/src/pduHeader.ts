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
export function readPduHeader(bytes: Uint8Array, start: number, end: number, mode: FramingMode, maxPduBytes: number, streamOffset: number): PduHeader | undefined {
  const length = readPduLength(bytes, start, end, mode, maxPduBytes, streamOffset);
  return length < 0 ? undefined : { kind: pduKindOf(bytes[start] ?? 0, mode), length };
}

/** Which kind of PDU a header whose length was read starts with (its first byte and the mode decide). */
function pduKindOf(first: number, mode: FramingMode): PduKind {
  if (first === TPKT_VERSION) return 'tpkt';
  if (mode === 'rdp') return 'fast-path';
  return first === DER_SEQUENCE ? 'ts-request' : 'early-user-auth';
}

function invalid(message: string, streamOffset: number): FramingError {
  return new FramingError('pdu-invalid', `${message} at offset ${streamOffset}`, streamOffset);
}

function checked(first: number, mode: FramingMode, length: number, maxPduBytes: number, streamOffset: number): number {
  if (length > maxPduBytes) {
    throw new FramingError(
      'pdu-too-large',
      `${pduKindOf(first, mode)} pdu of ${length} bytes exceeds the ${maxPduBytes}-byte limit at offset ${streamOffset}`,
      streamOffset,
    );
  }
  return length;
}

/**
 * As readPduHeader, the length alone: -1 when the header is not all there.
 * The relay's hot path reads every PDU's header with it, so it makes no
 * object or closure per PDU.
 */
export function readPduLength(
  bytes: Uint8Array,
  start: number,
  end: number,
  mode: FramingMode,
  maxPduBytes: number,
  streamOffset: number,
): number {
  const available = end - start;
  if (available < 1) return -1;
  const first = bytes[start] ?? 0;

  if (first === TPKT_VERSION) {
    if (available < 4) return -1;
    const reserved = bytes[start + 1] ?? 0;
    if (reserved !== 0) throw invalid(`tpkt reserved byte is ${hexByte(reserved)}, not 0x00,`, streamOffset);
    const length = ((bytes[start + 2] ?? 0) << 8) | (bytes[start + 3] ?? 0);
    if (length < MIN_TPKT_LENGTH) throw invalid(`tpkt length ${length} is below ${MIN_TPKT_LENGTH}`, streamOffset);
    return checked(first, mode, length, maxPduBytes, streamOffset);
  }

  if (mode === 'rdp') {
    if ((first & 0x03) !== 0) throw invalid(`unknown pdu header byte ${hexByte(first)}`, streamOffset);
    if (available < 2) return -1;
    const second = bytes[start + 1] ?? 0;
    if ((second & 0x80) === 0) {
      if (second < 2) throw invalid(`fast-path length ${second} is shorter than its header`, streamOffset);
      return checked(first, mode, second, maxPduBytes, streamOffset);
    }
    if (available < 3) return -1;
    const length = ((second & 0x7f) << 8) | (bytes[start + 2] ?? 0);
    if (length < 3) throw invalid(`fast-path length ${length} is shorter than its header`, streamOffset);
    return checked(first, mode, length, maxPduBytes, streamOffset);
  }

  if (first === DER_SEQUENCE) {
    if (available < 2) return -1;
    const lengthByte = bytes[start + 1] ?? 0;
    if (lengthByte < 0x80) {
      if (lengthByte === 0) throw invalid('empty ts-request', streamOffset);
      return checked(first, mode, 2 + lengthByte, maxPduBytes, streamOffset);
    }
    const lengthBytes = lengthByte & 0x7f;
    if (lengthBytes === 0) throw invalid('ts-request with indefinite length', streamOffset);
    if (lengthBytes > 4) throw invalid(`ts-request length of ${lengthBytes} bytes`, streamOffset);
    if (available < 2 + lengthBytes) return -1;
    let contentLength = 0;
    for (let i = 0; i < lengthBytes; i++) contentLength = contentLength * 256 + (bytes[start + 2 + i] ?? 0);
    if (contentLength === 0) throw invalid('empty ts-request', streamOffset);
    return checked(first, mode, 2 + lengthBytes + contentLength, maxPduBytes, streamOffset);
  }

  if (mode === 'nla-ex' && (first === EARLY_USER_AUTH_SUCCESS || first === EARLY_USER_AUTH_DENIED)) {
    if (available < EARLY_USER_AUTH_LENGTH) return -1;
    for (let i = 1; i < EARLY_USER_AUTH_LENGTH; i++) {
      const byte = bytes[start + i] ?? 0;
      if (byte !== 0) throw invalid(`early user authorization result byte ${i} is ${hexByte(byte)}, not 0x00,`, streamOffset);
    }
    return checked(first, mode, EARLY_USER_AUTH_LENGTH, maxPduBytes, streamOffset);
  }

  throw invalid(`unknown pdu header byte ${hexByte(first)} during nla`, streamOffset);
}
