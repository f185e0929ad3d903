// Frames that must hold whole PDUs only: what the kiosk sends, and what the
// gateway sends the kiosk. Walks the headers without copying; a frame that
// ends inside a PDU is a FramingError. A TPKT ends NLA for the PDUs after it,
// as in the framer.
import { FramingError } from './framingError.js';
import { assertFramingMode, modeAfterPduStartingWith, type FramingMode } from './framingMode.js';
import { DEFAULT_MAX_PDU_BYTES, framingLimits, LARGEST_ALLOWED_LIMIT } from './framingLimits.js';
import { readPduHeader } from './pduHeader.js';

/** The default limits, made once: the gateway reads every kiosk frame with them. */
const DEFAULT_LIMITS = framingLimits({ maxPduBytes: DEFAULT_MAX_PDU_BYTES, maxFrameBytes: LARGEST_ALLOWED_LIMIT });

/** Calls `onPdu(start, end)` for each PDU of `frame`; returns the mode after the last one. */
function walkWholePdus(
  frame: Uint8Array,
  mode: FramingMode,
  maxPduBytes: number | undefined,
  onPdu: (start: number, end: number) => void,
): FramingMode {
  assertFramingMode(mode);
  const limits = maxPduBytes === undefined ? DEFAULT_LIMITS : framingLimits({ maxPduBytes, maxFrameBytes: LARGEST_ALLOWED_LIMIT });
  let position = 0;
  let current = mode;
  while (position < frame.length) {
    const header = readPduHeader(frame, position, frame.length, current, limits.maxPduBytes, position);
    if (header === undefined || position + header.length > frame.length) {
      const what = header === undefined ? 'a pdu header' : `a ${header.length}-byte ${header.kind} pdu`;
      throw new FramingError(
        'pdu-invalid',
        `frame of ${frame.length} bytes ends inside ${what} that starts at offset ${position}`,
        position,
      );
    }
    onPdu(position, position + header.length);
    current = modeAfterPduStartingWith(current, frame[position] ?? 0);
    position += header.length;
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

/** How many PDUs `frame` holds, without making views; throws FramingError as splitWholePdus does. */
export function countWholePdus(frame: Uint8Array, mode: FramingMode, options: { maxPduBytes?: number } = {}): WholePduCount {
  let count = 0;
  const after = walkWholePdus(frame, mode, options.maxPduBytes, () => count++);
  return { count, mode: after };
}
