// Splits one direction of an RDP byte stream into whole PDUs and hands them
// out as coalesced frames. Sans-I/O: the caller pushes the chunks a socket
// gave it and sends what comes back. PDUs wholly inside a chunk are returned
// as slices of it; only a PDU that straddles chunks is copied, once, when its
// last byte arrives. Chunks may be any Uint8Array; what comes back is of the
// chunk's own kind (a Node Buffer stays a Buffer, see byteViews.ts).
import { concatLike } from './byteViews.js';
import { FramingError } from './framingError.js';
import { assertFramingMode, modeAfterPduStartingWith, nextFramingMode, type FramingMode } from './framingMode.js';
import { coalescePdus, type PduBatch } from './pduCoalescer.js';
import { framingLimits } from './framingLimits.js';
import { MAX_HEADER_BYTES, readPduHeader, readPduLength } from './pduHeader.js';
import { splitWholePdus } from './wholePdus.js';

export interface PduFramerOptions<Bytes extends Uint8Array = Uint8Array> {
  readonly mode: FramingMode;
  readonly maxPduBytes?: number;
  readonly maxFrameBytes?: number;
  /**
   * Allocates the array a PDU that straddles chunks is copied into. By default
   * a zero-filled array of the chunk's kind; a Node caller on the hot path
   * passes `Buffer.allocUnsafe` (pooled, not zero-filled: the copy fills it).
   */
  readonly allocate?: (length: number) => Bytes;
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

export class PduFramer<Bytes extends Uint8Array = Uint8Array> {
  readonly stats: PduFramerStats = { pdus: 0, bytes: 0, batches: 0, copies: 0, copiedBytes: 0 };
  readonly maxPduBytes: number;
  readonly maxFrameBytes: number;
  #mode: FramingMode;
  /** Pieces of the PDU that has started but not ended; slices of earlier chunks. */
  #pending: Bytes[] = [];
  #pendingBytes = 0;
  /** Length of the pending PDU once its header has been read. */
  #pendingLength: number | undefined;
  /** Stream offset of the first byte not yet returned. */
  #offset = 0;
  #failure: FramingError | undefined;
  #lastPdus: Bytes[] | undefined = [];
  /** The chunk takeWhole() took last and the mode it started in: its single PDUs are made only if lastPdus() asks. */
  #lastWhole: Bytes | undefined;
  #lastWholeMode: FramingMode;
  readonly #allocate: ((length: number) => Bytes) | undefined;
  #taken: PduFramerStats = { pdus: 0, bytes: 0, batches: 0, copies: 0, copiedBytes: 0 };

  constructor(options: PduFramerOptions<Bytes>) {
    assertFramingMode(options.mode);
    const limits = framingLimits(options);
    this.maxPduBytes = limits.maxPduBytes;
    this.maxFrameBytes = limits.maxFrameBytes;
    this.#mode = options.mode;
    this.#lastWholeMode = options.mode;
    this.#allocate = options.allocate;
  }

  get mode(): FramingMode {
    return this.#mode;
  }

  setMode(mode: FramingMode): void {
    assertFramingMode(mode);
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
  push(chunk: Bytes): Bytes[] {
    return this.pushBatches(chunk).map((batch) => batch.data);
  }

  /** As push(), with the number of PDUs in each frame. */
  pushBatches(chunk: Bytes): PduBatch<Bytes>[] {
    const batches = coalescePdus(this.pushPdus(chunk), this.maxFrameBytes);
    this.stats.batches += batches.length;
    return batches;
  }

  /** As push(), but one array per PDU, uncoalesced. */
  pushPdus(chunk: Bytes): Bytes[] {
    if (this.#failure) throw this.#failure;
    this.#lastWhole = undefined;
    try {
      this.#lastPdus = this.#frame(chunk);
      return this.#lastPdus;
    } catch (error) {
      this.#lastPdus = [];
      if (error instanceof FramingError) this.#failure = error;
      throw error;
    }
  }

  /**
   * The common case without a view, array or batch object: when nothing is
   * pending and `chunk` holds whole PDUs only and fits one frame, takes it
   * and returns its PDU count; the caller sends `chunk` itself as that frame.
   * Otherwise takes nothing and returns 0: push the chunk as usual. Checks
   * every header as push() does and throws the same FramingError.
   */
  takeWhole(chunk: Bytes): number {
    if (this.#failure) throw this.#failure;
    if (this.#pendingBytes > 0 || chunk.length === 0 || chunk.length > this.maxFrameBytes) return 0;
    const startMode = this.#mode;
    let mode = startMode;
    let position = 0;
    let count = 0;
    try {
      while (position < chunk.length) {
        const length = readPduLength(chunk, position, chunk.length, mode, this.maxPduBytes, this.#offset + position);
        if (length < 0 || position + length > chunk.length) return 0;
        mode = modeAfterPduStartingWith(mode, chunk[position] ?? 0);
        position += length;
        count++;
      }
    } catch (error) {
      this.#lastPdus = [];
      this.#lastWhole = undefined;
      if (error instanceof FramingError) this.#failure = error;
      throw error;
    }
    this.#mode = mode;
    this.#offset += chunk.length;
    this.stats.pdus += count;
    this.stats.bytes += chunk.length;
    this.stats.batches++;
    this.#lastPdus = undefined;
    this.#lastWhole = chunk;
    this.#lastWholeMode = startMode;
    return count;
  }

  /** The single PDUs the last push returned (inside its frames). */
  lastPdus(): readonly Bytes[] {
    if (this.#lastPdus === undefined) {
      const whole = this.#lastWhole;
      this.#lastPdus = whole === undefined ? [] : splitWholePdus(whole, this.#lastWholeMode, { maxPduBytes: this.maxPduBytes });
    }
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

  #frame(chunk: Bytes): Bytes[] {
    const pdus: Bytes[] = [];
    let position = 0;
    if (this.#pendingBytes > 0) {
      position = this.#completePending(chunk, pdus);
      if (position < 0) return pdus;
    }
    while (position < chunk.length) {
      const header = readPduHeader(chunk, position, chunk.length, this.#mode, this.maxPduBytes, this.#offset);
      if (header === undefined || position + header.length > chunk.length) {
        this.#pending = [chunk.subarray(position) as Bytes];
        this.#pendingBytes = chunk.length - position;
        this.#pendingLength = header?.length;
        break;
      }
      this.#emit(chunk.subarray(position, position + header.length) as Bytes, pdus);
      position += header.length;
    }
    return pdus;
  }

  /** Adds `chunk` to the pending PDU; returns where whole PDUs resume in it, or -1. */
  #completePending(chunk: Bytes, pdus: Bytes[]): number {
    if (this.#pendingLength === undefined) {
      // Only the header straddles: peek at a few bytes across the pieces.
      const head = chunk.subarray(0, MAX_HEADER_BYTES);
      const peek = concatLike([...this.#pending, head], this.#pendingBytes + head.length);
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
    const pdu = concatLike([...this.#pending, chunk.subarray(0, take)], length, this.#allocate);
    this.stats.copies++;
    this.stats.copiedBytes += length;
    this.#pending = [];
    this.#pendingBytes = 0;
    this.#pendingLength = undefined;
    this.#emit(pdu, pdus);
    return take;
  }

  #emit(pdu: Bytes, pdus: Bytes[]): void {
    pdus.push(pdu);
    this.stats.pdus++;
    this.stats.bytes += pdu.length;
    this.#offset += pdu.length;
    this.#mode = nextFramingMode(this.#mode, pdu);
  }
}
