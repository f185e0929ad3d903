// Counts the whole PDUs of one direction of a stream that arrives in any
// chunks, without keeping or copying them: for ends that only need to know
// how many arrived (the load test's echo host answers each one). A header
// cut between chunks is gathered in a few bytes of scratch.
import { FramingError } from './framingError.js';
import { assertFramingMode, modeAfterPduStartingWith, type FramingMode } from './framingMode.js';
import { DEFAULT_MAX_PDU_BYTES, framingLimits, LARGEST_ALLOWED_LIMIT } from './framingLimits.js';
import { MAX_HEADER_BYTES, readPduHeader } from './pduHeader.js';

export class PduStreamCounter {
  readonly maxPduBytes: number;
  #mode: FramingMode;
  /** Bytes of the current PDU still to come, once its header is read. */
  #remaining = 0;
  readonly #header = new Uint8Array(MAX_HEADER_BYTES);
  #headerFill = 0;
  /** Stream offset of the next PDU's first byte, for errors. */
  #pduOffset = 0;
  #failure: FramingError | undefined;

  constructor(options: { mode?: FramingMode; maxPduBytes?: number } = {}) {
    this.#mode = options.mode ?? 'rdp';
    assertFramingMode(this.#mode);
    this.maxPduBytes = framingLimits({ maxPduBytes: options.maxPduBytes ?? DEFAULT_MAX_PDU_BYTES, maxFrameBytes: LARGEST_ALLOWED_LIMIT }).maxPduBytes;
  }

  get mode(): FramingMode {
    return this.#mode;
  }

  /** Takes the next chunk; returns how many PDUs it completed. Throws FramingError, and again on every later push. */
  push(chunk: Uint8Array): number {
    if (this.#failure) throw this.#failure;
    try {
      return this.#count(chunk);
    } catch (error) {
      if (error instanceof FramingError) this.#failure = error;
      throw error;
    }
  }

  #count(chunk: Uint8Array): number {
    let completed = 0;
    let position = 0;
    while (position < chunk.length) {
      if (this.#remaining === 0) {
        const length = this.#readHeader(chunk, position);
        if (length === undefined) break; // the whole rest went into the header scratch
        // The header bytes from earlier chunks are already counted off.
        this.#remaining = length - this.#headerFill;
        this.#headerFill = 0;
      }
      const take = Math.min(this.#remaining, chunk.length - position);
      this.#remaining -= take;
      position += take;
      if (this.#remaining === 0) completed++;
    }
    return completed;
  }

  /** The length of the PDU starting at `position` (or in the scratch), or undefined when its header is not all here yet. */
  #readHeader(chunk: Uint8Array, position: number): number | undefined {
    if (this.#headerFill === 0) {
      const header = readPduHeader(chunk, position, chunk.length, this.#mode, this.maxPduBytes, this.#pduOffset);
      if (header !== undefined) return this.#started(chunk[position] ?? 0, header.length);
    }
    // The header straddles: gather it a byte at a time (at most MAX_HEADER_BYTES).
    for (let at = position; at < chunk.length; at++) {
      this.#header[this.#headerFill++] = chunk[at] ?? 0;
      const header = readPduHeader(this.#header, 0, this.#headerFill, this.#mode, this.maxPduBytes, this.#pduOffset);
      if (header !== undefined) {
        // Bytes gathered from this chunk are part of the PDU: they are taken off with the rest.
        const fromEarlier = this.#headerFill - (at - position + 1);
        this.#headerFill = fromEarlier;
        return this.#started(this.#header[0] ?? 0, header.length);
      }
    }
    return undefined;
  }

  #started(firstByte: number, length: number): number {
    this.#pduOffset += length;
    this.#mode = modeAfterPduStartingWith(this.#mode, firstByte);
    return length;
  }
}
