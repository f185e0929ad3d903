// The PDU framer's fuzz invariant: any byte stream, cut anywhere, either
// yields PDUs whose concatenation is exactly the stream prefix consumed, or
// stops with a FramingError at the first PDU it could not accept — never
// another exception, never a frame that splits a PDU or breaks the limits.
import { AssertionError } from 'node:assert';
import { FRAMING_MODES, nextFramingMode, type FramingMode } from '../framingMode.js';
import { FramingError } from '../framingError.js';
import { PduFramer } from '../pduFramer.js';
import { splitWholePdus } from '../wholePdus.js';

export interface FramerFuzzCase {
  readonly stream: Uint8Array;
  /** Chunk boundaries, ascending, inside the stream. */
  readonly cuts: readonly number[];
  readonly mode: FramingMode;
  readonly maxPduBytes: number;
  readonly maxFrameBytes: number;
}

function check(condition: boolean, message: string): asserts condition {
  if (!condition) throw new AssertionError({ message });
}

/** The mode after the given PDUs, starting from `start`. */
function mode(start: FramingMode, pdus: readonly Buffer[]): FramingMode {
  return pdus.reduce<FramingMode>((current, pdu) => nextFramingMode(current, pdu), start);
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return Buffer.from(a.buffer, a.byteOffset, a.length).equals(b);
}

/** Runs one case; throws AssertionError when the invariant breaks, or the unexpected exception. */
export function checkFramerCase(input: FramerFuzzCase): void {
  const stream = Buffer.from(input.stream);
  const framer = new PduFramer<Buffer>({ mode: input.mode, maxPduBytes: input.maxPduBytes, maxFrameBytes: input.maxFrameBytes });
  const pdus: Buffer[] = [];
  const frames: Buffer[] = [];
  let failure: FramingError | undefined;
  let start = 0;
  for (const end of [...input.cuts, stream.length]) {
    try {
      frames.push(...framer.push(stream.subarray(start, end)));
      pdus.push(...framer.lastPdus());
    } catch (error) {
      if (!(error instanceof FramingError)) throw error;
      failure = error;
      break;
    }
    start = end;
  }
  // A push that throws returns nothing, even PDUs that were whole before the
  // bad one; those must still be whole PDUs up to the error's offset.
  const consumed = framer.offset;
  const returned = pdus.reduce((n, pdu) => n + pdu.length, 0);
  if (failure) {
    check(returned <= consumed, 'returned more than consumed');
    splitWholePdus(stream.subarray(returned, consumed), mode(input.mode, pdus), { maxPduBytes: input.maxPduBytes });
  } else {
    check(returned === consumed, `returned ${returned} bytes but consumed ${consumed}`);
  }
  const prefix = stream.subarray(0, returned);
  check(sameBytes(Buffer.concat(pdus), prefix), 'pdus do not concatenate to the consumed prefix');
  check(sameBytes(Buffer.concat(frames), prefix), 'frames do not concatenate to the consumed prefix');
  let frameMode = input.mode;
  for (const frame of frames) {
    check(frame.length <= input.maxFrameBytes, `frame of ${frame.length} bytes exceeds ${input.maxFrameBytes}`);
    for (const pdu of splitWholePdus(frame, frameMode, { maxPduBytes: input.maxPduBytes })) frameMode = nextFramingMode(frameMode, pdu);
  }
  for (const pdu of pdus) check(pdu.length <= input.maxPduBytes, `pdu of ${pdu.length} bytes exceeds ${input.maxPduBytes}`);
  check(framer.stats.bytes === consumed, 'stats disagree with the offset');

  // Differential check: the one-shot validator reads the same stream the same way.
  let whole: Buffer[] | FramingError;
  try {
    whole = splitWholePdus(stream, input.mode, { maxPduBytes: input.maxPduBytes });
  } catch (error) {
    if (!(error instanceof FramingError)) throw error;
    whole = error;
  }
  if (failure) {
    check(failure.offset === consumed, `error offset ${failure.offset} is not the consumed length ${consumed}`);
    check(/^[a-z]/.test(failure.message) && !failure.message.endsWith('.'), `badly formed message: ${failure.message}`);
    check(whole instanceof FramingError && whole.code === failure.code && whole.offset === failure.offset,
      `validator disagrees: ${whole instanceof FramingError ? whole.message : 'no error'} vs ${failure.message}`);
  } else if (framer.bufferedBytes > 0) {
    check(framer.bufferedBytes === stream.length - consumed, 'buffered bytes are not the unconsumed tail');
    check(whole instanceof FramingError && whole.offset === consumed, 'validator accepted a stream that ends inside a pdu');
  } else {
    check(consumed === stream.length, 'stream not consumed although nothing is buffered');
    check(Array.isArray(whole) && whole.length === pdus.length, 'validator split the stream differently');
  }
}

/**
 * libFuzzer/Jazzer.js-style entry: one Buffer in. Byte 0 picks the mode and
 * limits, bytes 1-4 seed the chunking, the rest is the stream.
 */
export function fuzzPduFramer(data: Buffer): void {
  if (data.length < 5) return;
  const control = data.readUInt8(0);
  const mode = FRAMING_MODES[control % FRAMING_MODES.length] ?? 'rdp';
  const maxPduBytes = (control & 0x80) === 0 ? 65536 : 7 + (data.readUInt8(1) << 4);
  const maxFrameBytes = (control & 0x40) === 0 ? maxPduBytes : maxPduBytes * 3;
  const stream = data.subarray(5);
  let seed = data.readUInt32LE(1) | 1;
  const cuts: number[] = [];
  for (let at = 0; ; ) {
    seed ^= seed << 13;
    seed ^= seed >>> 17;
    seed ^= seed << 5;
    at += 1 + ((seed >>> 0) % 64);
    if (at >= stream.length) break;
    cuts.push(at);
  }
  checkFramerCase({ stream, cuts, mode, maxPduBytes, maxFrameBytes });
}
