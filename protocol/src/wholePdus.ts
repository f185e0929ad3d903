// Frames that must hold whole PDUs only: what the kiosk sends, and what the
// gateway sends the kiosk. Walks the headers without copying; a frame that
// ends inside a PDU is a FramingError. A TPKT ends NLA for the PDUs after it,
// as in the framer.
import { FramingError } from './framingError.js';
import { assertFramingMode, modeAfterPduStartingWith, type FramingMode } from './framingMode.js';
import { DEFAULT_MAX_PDU_BYTES, framingLimits, LARGEST_ALLOWED_LIMIT } from './framingLimits.js';
import { readPduHeader, readPduLength } from './pduHeader.js';

/** The default limits, made once: the gateway reads every kiosk frame with them. */
const DEFAULT_LIMITS = framingLimits({ maxPduBytes: DEFAULT_MAX_PDU_BYTES, maxFrameBytes: LARGEST_ALLOWED_LIMIT });

function limitFor(maxPduBytes: number | undefined): number {
  return maxPduBytes === undefined ? DEFAULT_LIMITS.maxPduBytes : framingLimits({ maxPduBytes, maxFrameBytes: LARGEST_ALLOWED_LIMIT }).maxPduBytes;
}

/** The FramingError for a frame that ends inside the PDU (or its header) at `position`. */
function endsInside(frame: Uint8Array, position: number, mode: FramingMode, maxPduBytes: number): FramingError {
  const header = readPduHeader(frame, position, frame.length, mode, maxPduBytes, position);
  const what = header === undefined ? 'a pdu header' : `a ${header.length}-byte ${header.kind} pdu`;
  return new FramingError('pdu-invalid', `frame of ${frame.length} bytes ends inside ${what} that starts at offset ${position}`, position);
}

/** Calls `onPdu(start, end)` for each PDU of `frame`; returns the mode after the last one. */
function walkWholePdus(
  frame: Uint8Array,
  mode: FramingMode,
  maxPduBytes: number | undefined,
  onPdu: (start: number, end: number) => void,
): FramingMode {
  assertFramingMode(mode);
  const limit = limitFor(maxPduBytes);
  let position = 0;
  let current = mode;
  while (position < frame.length) {
    const length = readPduLength(frame, position, frame.length, current, limit, position);
    if (length < 0 || position + length > frame.length) throw endsInside(frame, position, current, limit);
    onPdu(position, position + length);
    current = modeAfterPduStartingWith(current, frame[position] ?? 0);
    position += length;
  }
  return current;
}

/** Views of the PDUs of `frame` (of its kind); throws FramingError when it ends inside a PDU. */
export function splitWholePdus<Bytes extends Uint8Array>(
  frame: Bytes,
  mode: FramingMode,
  options: { maxPduBytes?: number } = {},
): Bytes[] {
  const pdus: Bytes[] = [];
  walkWholePdus(frame, mode, options.maxPduBytes, (start, end) => pdus.push(frame.subarray(start, end) as Bytes));
  return pdus;
}

export interface WholePduCount {
  readonly count: number;
  /** The direction's mode after this frame: pass it with the next frame. */
  readonly mode: FramingMode;
}

/**
 * How many PDUs `frame` holds, without making views; throws FramingError as
 * splitWholePdus does. The gateway counts every kiosk frame with it: one loop,
 * no callback.
 */
export function countWholePdus(frame: Uint8Array, mode: FramingMode, options: { maxPduBytes?: number } = {}): WholePduCount {
  assertFramingMode(mode);
  const limit = limitFor(options.maxPduBytes);
  let count = 0;
  let position = 0;
  let current = mode;
  while (position < frame.length) {
    const length = readPduLength(frame, position, frame.length, current, limit, position);
    if (length < 0 || position + length > frame.length) throw endsInside(frame, position, current, limit);
    count++;
    current = modeAfterPduStartingWith(current, frame[position] ?? 0);
    position += length;
  }
  return { count, mode: current };
}
