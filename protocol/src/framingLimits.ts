// The two size limits of a whole-PDU stream (kiosk-protocol.md "Binary frames
// carry whole PDUs"), defaulted and checked once for the framer and the
// whole-frame readers.
import { MIN_TPKT_LENGTH } from './pduHeader.js';

/** A single PDU is at most 64 KiB (the kiosk protocol's limit; TPKT cannot say more). */
export const DEFAULT_MAX_PDU_BYTES = 64 * 1024;
/** At most 256 KiB per WebSocket frame (kiosk protocol). */
export const DEFAULT_MAX_FRAME_BYTES = 256 * 1024;
/** A DER length can claim up to 4 GiB; nothing in RDP comes near this. */
export const LARGEST_ALLOWED_LIMIT = 16 * 1024 * 1024;

export interface FramingLimits {
  readonly maxPduBytes: number;
  readonly maxFrameBytes: number;
}

/** Validates and defaults the two limits; throws RangeError naming the bad value. */
export function framingLimits(options: { maxPduBytes?: number; maxFrameBytes?: number }): FramingLimits {
  const maxPduBytes = options.maxPduBytes ?? DEFAULT_MAX_PDU_BYTES;
  const maxFrameBytes = options.maxFrameBytes ?? DEFAULT_MAX_FRAME_BYTES;
  if (!Number.isInteger(maxPduBytes) || maxPduBytes < MIN_TPKT_LENGTH || maxPduBytes > LARGEST_ALLOWED_LIMIT) {
    throw new RangeError(`maxPduBytes must be an integer from ${MIN_TPKT_LENGTH} to ${LARGEST_ALLOWED_LIMIT}, got ${maxPduBytes}`);
  }
  if (!Number.isInteger(maxFrameBytes) || maxFrameBytes < maxPduBytes || maxFrameBytes > LARGEST_ALLOWED_LIMIT) {
    throw new RangeError(
      `maxFrameBytes must be an integer from maxPduBytes (${maxPduBytes}) to ${LARGEST_ALLOWED_LIMIT}, got ${maxFrameBytes}`,
    );
  }
  return { maxPduBytes, maxFrameBytes };
}
