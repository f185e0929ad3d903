// Splits one direction of an RDP byte stream into whole PDUs and hands them
// out as coalesced frames. Sans-I/O: the caller pushes the chunks a socket
// gave it and sends what comes back. PDUs wholly inside a chunk are returned
// as slices of it; only a PDU that straddles chunks is copied, once, when its
// last byte arrives.
import { FramingError } from './framingError.js';
import { nextFramingMode, FRAMING_MODES, type FramingMode } from './framingMode.js';
import { coalescePdus, type PduBatch } from './pduCoalescer.js';
import { MAX_HEADER_BYTES, MIN_TPKT_LENGTH, readPduHeader } from './pduHeader.js';

export { FramingError, type FramingErrorCode } from './framingError.js';
export { framingModeFor, nextFramingMode, type FramingMode } from './framingMode.js';
export type { PduBatch } from './pduCoalescer.js';
export type { PduKind } from './pduHeader.js';

/** A single PDU is at most 64 KiB (the kiosk protocol's limit; TPKT cannot say more). */
export const DEFAULT_MAX_PDU_BYTES = 64 * 1024;
/** At most 256 KiB per WebSocket frame (kiosk protocol). */
export const DEFAULT_MAX_FRAME_BYTES = 256 * 1024;
/** A DER length can claim up to 4 GiB; nothing in RDP comes near this. */
const LARGEST_ALLOWED_LIMIT = 16 * 1024 * 1024;

export interface PduFramerOptions {
  readonly mode: FramingMode;
  readonly maxPduBytes?: number;
  readonly maxFrameBytes?: number;
}

export interface PduFramerStats {
  /** Whole PDUs returned. */
  pdus: number;
  /** Bytes of whole PDUs returned. */
  bytes: number;
  /** Frames returned by push() / pushBatches(). */
  batches: number;
  /** PDUs that straddled chunks and had to be copied into one buffer. */
  copies: number;
  copiedBytes: number;
}

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

function assertMode(mode: FramingMode): void {
  if (!FRAMING_MODES.includes(mode)) throw new RangeError(`unknown framing mode ${JSON.stringify(mode)}`);
}

export class PduFramer {
  readonly stats: PduFramerStats = { pdus: 0, bytes: 0, batches: 0, copies: 0, copiedBytes: 0 };
  readonly maxPduBytes: number;
  readonly maxFrameBytes: number;
  #mode: FramingMode;
  /** Pieces of the PDU that has started but not ended; slices of earlier chunks. */
  #pending: Buffer[] = [];
  #pendingBytes = 0;
  /** Length of the pending PDU once its header has been read. */
  #pendingLength: number | undefined;
  /** Stream offset of the first byte not yet returned. */
  #offset = 0;
  #failure: FramingError | undefined;
  #lastPdus: Buffer[] = [];
  #taken: PduFramerStats = { pdus: 0, bytes: 0, batches: 0, copies: 0, copiedBytes: 0 };

  constructor(options: PduFramerOptions) {
    assertMode(options.mode);
    const limits = framingLimits(options);
    this.maxPduBytes = limits.maxPduBytes;
    this.maxFrameBytes = limits.maxFrameBytes;
    this.#mode = options.mode;
  }

  get mode(): FramingMode {
    return this.#mode;
  }

  setMode(mode: FramingMode): void {
    assertMode(mode);
    this.#mode = mode;
  }

  /** Bytes of a PDU that has begun but not ended (the relay's buffered input). */
  get bufferedBytes(): number {
    return this.#pendingBytes;
  }

  /** True when the stream so far ends exactly on a PDU boundary. */
  get atPduBoundary(): boolean {
    return this.#pendingBytes === 0;
  }

  /** Stream offset of the first byte not yet returned in a PDU. */
  get offset(): number {
    return this.#offset;
  }

  /**
   * Takes the next chunk of the stream; returns the PDUs that are now whole,
   * coalesced into frames of at most maxFrameBytes (one WebSocket message
   * each). After a FramingError the stream is unusable and every later push
   * throws the same error.
   */
  push(chunk: Buffer): Buffer[] {
    return this.pushBatches(chunk).map((batch) => batch.data);
  }

  /** As push(), with the number of PDUs in each frame. */
  pushBatches(chunk: Buffer): PduBatch[] {
    const batches = coalescePdus(this.pushPdus(chunk), this.maxFrameBytes);
    this.stats.batches += batches.length;
    return batches;
  }

  /** As push(), but one Buffer per PDU, uncoalesced. */
  pushPdus(chunk: Buffer): Buffer[] {
    if (this.#failure) throw this.#failure;
    try {
      this.#lastPdus = this.#frame(chunk);
      return this.#lastPdus;
    } catch (error) {
      this.#lastPdus = [];
      if (error instanceof FramingError) this.#failure = error;
      throw error;
    }
  }

  /** The single PDUs the last push returned (inside its frames). */
  lastPdus(): readonly Buffer[] {
    return this.#lastPdus;
  }

  /** The counters' growth since the previous takeStats() (for metrics that add up deltas). */
  takeStats(): PduFramerStats {
    const now = { ...this.stats };
    const delta: PduFramerStats = {
      pdus: now.pdus - this.#taken.pdus,
      bytes: now.bytes - this.#taken.bytes,
      batches: now.batches - this.#taken.batches,
      copies: now.copies - this.#taken.copies,
      copiedBytes: now.copiedBytes - this.#taken.copiedBytes,
    };
    this.#taken = now;
    return delta;
  }

  #frame(chunk: Buffer): Buffer[] {
    const pdus: Buffer[] = [];
    let position = 0;
    if (this.#pendingBytes > 0) {
      position = this.#completePending(chunk, pdus);
      if (position < 0) return pdus;
    }
    while (position < chunk.length) {
      const header = readPduHeader(chunk, position, chunk.length, this.#mode, this.maxPduBytes, this.#offset);
      if (header === undefined || position + header.length > chunk.length) {
        this.#pending = [chunk.subarray(position)];
        this.#pendingBytes = chunk.length - position;
        this.#pendingLength = header?.length;
        break;
      }
      this.#emit(chunk.subarray(position, position + header.length), pdus);
      position += header.length;
    }
    return pdus;
  }

  /** Adds `chunk` to the pending PDU; returns where whole PDUs resume in it, or -1. */
  #completePending(chunk: Buffer, pdus: Buffer[]): number {
    if (this.#pendingLength === undefined) {
      // Only the header straddles: peek at a few bytes across the pieces.
      const peek = Buffer.concat([...this.#pending, chunk.subarray(0, MAX_HEADER_BYTES)]);
      const header = readPduHeader(peek, 0, peek.length, this.#mode, this.maxPduBytes, this.#offset);
      this.#pendingLength = header?.length;
    }
    const length = this.#pendingLength;
    if (length === undefined || this.#pendingBytes + chunk.length < length) {
      if (chunk.length > 0) this.#pending.push(chunk);
      this.#pendingBytes += chunk.length;
      return -1;
    }
    const take = length - this.#pendingBytes;
    const pdu = Buffer.concat([...this.#pending, chunk.subarray(0, take)], length);
    this.stats.copies++;
    this.stats.copiedBytes += length;
    this.#pending = [];
    this.#pendingBytes = 0;
    this.#pendingLength = undefined;
    this.#emit(pdu, pdus);
    return take;
  }

  #emit(pdu: Buffer, pdus: Buffer[]): void {
    pdus.push(pdu);
    this.stats.pdus++;
    this.stats.bytes += pdu.length;
    this.#offset += pdu.length;
    this.#mode = nextFramingMode(this.#mode, pdu);
  }
}

/**
 * Splits a frame that must hold only whole PDUs (what the kiosk sends) into
 * views of them; throws FramingError when it ends inside a PDU. A TPKT ends
 * NLA for the PDUs after it, as in the framer.
 */
export function splitWholePdus(
  frame: Buffer,
  mode: FramingMode,
  options: { maxPduBytes?: number } = {},
): Buffer[] {
  assertMode(mode);
  const { maxPduBytes } = framingLimits({ maxPduBytes: options.maxPduBytes ?? DEFAULT_MAX_PDU_BYTES, maxFrameBytes: LARGEST_ALLOWED_LIMIT });
  const pdus: Buffer[] = [];
  let position = 0;
  let current = mode;
  while (position < frame.length) {
    const header = readPduHeader(frame, position, frame.length, current, maxPduBytes, position);
    if (header === undefined || position + header.length > frame.length) {
      const what = header === undefined ? 'a pdu header' : `a ${header.length}-byte ${header.kind} pdu`;
      throw new FramingError(
        'pdu-invalid',
        `frame of ${frame.length} bytes ends inside ${what} that starts at offset ${position}`,
        position,
      );
    }
    const pdu = frame.subarray(position, position + header.length);
    pdus.push(pdu);
    current = nextFramingMode(current, pdu);
    position += header.length;
  }
  return pdus;
}
