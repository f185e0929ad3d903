// The shape of one record of a FreeRDP `/dump:record` file and the pure
// decoding of its 21-byte header, shared by the whole-file parser and the
// streaming reader so both apply the same plausibility rules.
import type { ChecksumKind } from './freerdpDumpChecksum.js';

export type PduDirection = 'client-to-server' | 'server-to-client';

export interface RecordedPdu {
  /** GetTickCount64() of the recording machine when the PDU passed, in ms. */
  readonly tickMs: number;
  readonly direction: PduDirection;
  /** The checksum stored in the file (already verified). */
  readonly crc: number;
  /** One whole TPKT or fast-path PDU; a view into the file's buffer, not a copy. */
  readonly data: Buffer;
}

export interface Recording {
  readonly records: RecordedPdu[];
  /** Which checksum the file's records use; undefined for an empty file. */
  readonly checksumKind?: ChecksumKind;
}

/** `u64 tick_ms | u8 dir | u32 crc | u64 len`, little-endian. */
export const RECORD_HEADER_BYTES = 21;
/** Far above any RDP PDU (TPKT tops out at 64 KiB); larger means a corrupt length. */
export const MAX_RECORD_PAYLOAD_BYTES = 16 * 1024 * 1024;
/** GetTickCount64 never goes back; allow a little slack, refuse a jump back. */
export const DEFAULT_MAX_TICK_REGRESSION_MS = 1000;

export class RecordingError extends Error {
  constructor(
    message: string,
    readonly recordIndex: number,
    readonly byteOffset: number,
  ) {
    super(`record ${recordIndex} at byte offset ${byteOffset}: ${message}`);
    this.name = 'RecordingError';
  }
}

export interface RecordHeader {
  readonly tickMs: number;
  readonly direction: PduDirection;
  readonly crc: number;
  readonly length: number;
}

/**
 * Decodes and checks the header at the start of `bytes`, which sits at
 * `offset` in the file. `bytesAfterHeader` is how many bytes the file still
 * holds after this header.
 */
export function decodeRecordHeader(
  bytes: Buffer,
  offset: number,
  recordIndex: number,
  bytesAfterHeader: number,
  previousTickMs: number | undefined,
  maxTickRegressionMs: number,
): RecordHeader {
  const fail = (message: string): RecordingError => new RecordingError(message, recordIndex, offset);
  if (bytes.length < RECORD_HEADER_BYTES) {
    throw fail(`truncated header: ${bytes.length} of ${RECORD_HEADER_BYTES} bytes`);
  }
  const tick = bytes.readBigUInt64LE(0);
  const dir = bytes.readUInt8(8);
  const crc = bytes.readUInt32LE(9);
  const length = bytes.readBigUInt64LE(13);
  if (tick > BigInt(Number.MAX_SAFE_INTEGER)) throw fail(`implausible tick ${tick}`);
  const tickMs = Number(tick);
  if (dir !== 0 && dir !== 1) throw fail(`direction byte ${dir} is neither 0 nor 1`);
  if (length === 0n) throw fail('payload length 0');
  if (length > BigInt(MAX_RECORD_PAYLOAD_BYTES)) {
    throw fail(`payload length ${length} exceeds ${MAX_RECORD_PAYLOAD_BYTES}`);
  }
  const payloadLength = Number(length);
  if (payloadLength > bytesAfterHeader) {
    throw fail(`truncated payload: length ${payloadLength} but only ${bytesAfterHeader} bytes left`);
  }
  if (previousTickMs !== undefined && previousTickMs - tickMs > maxTickRegressionMs) {
    throw fail(`tick goes back ${previousTickMs - tickMs} ms (from ${previousTickMs} to ${tickMs})`);
  }
  return {
    tickMs,
    direction: dir === 1 ? 'client-to-server' : 'server-to-client',
    crc,
    length: payloadLength,
  };
}

/** Encodes one record (header + payload) as FreeRDP writes it; for tests and tools. */
export function encodeRecord(pdu: {
  tickMs: number;
  direction: PduDirection;
  data: Uint8Array;
  crc: number;
}): Buffer {
  const out = Buffer.allocUnsafe(RECORD_HEADER_BYTES + pdu.data.length);
  out.writeBigUInt64LE(BigInt(pdu.tickMs), 0);
  out.writeUInt8(pdu.direction === 'client-to-server' ? 1 : 0, 8);
  out.writeUInt32LE(pdu.crc >>> 0, 9);
  out.writeBigUInt64LE(BigInt(pdu.data.length), 13);
  out.set(pdu.data, RECORD_HEADER_BYTES);
  return out;
}
