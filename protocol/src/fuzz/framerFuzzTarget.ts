// The PDU framer's fuzz invariant: any byte stream, cut anywhere, either
// yields PDUs whose concatenation is exactly the stream prefix consumed, or
// stops with a FramingError at the first PDU it could not accept — never
// another exception, never a frame that splits a PDU or breaks the limits.
// Two other readers of the same rule must agree with it: the one-shot
// validator (splitWholePdus) and the counting reader (PduStreamCounter).
import { invariant, type FuzzTarget, type SeededRandom } from '@lanterna/fuzzer';
import { FRAMING_MODES, nextFramingMode, type FramingMode } from '../framingMode.js';
import { FramingError } from '../framingError.js';
import { PduFramer } from '../pduFramer.js';
import { PduStreamCounter } from '../pduStreamCounter.js';
import { countWholePdus, splitWholePdus } from '../wholePdus.js';

export interface FramerFuzzCase {
  readonly stream: Uint8Array;
  /** Chunk boundaries, ascending (equal ones make empty chunks), inside the stream. */
  readonly cuts: readonly number[];
  readonly mode: FramingMode;
  readonly maxPduBytes: number;
  readonly maxFrameBytes: number;
  /** Push plain Uint8Array chunks instead of Node Buffers copied into `Buffer.allocUnsafe` (the gateway's way). */
  readonly plain?: boolean;
}

export interface FramerCaseResult {
  readonly pdus: number;
  readonly failure?: FramingError;
  /** Bytes left inside an unfinished PDU. */
  readonly buffered: number;
}

/** The mode after the given PDUs, starting from `start`. */
function mode(start: FramingMode, pdus: readonly Uint8Array[]): FramingMode {
  return pdus.reduce<FramingMode>((current, pdu) => nextFramingMode(current, pdu), start);
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return Buffer.from(a.buffer, a.byteOffset, a.length).equals(b);
}

function framingFailure(run: () => void): FramingError | undefined {
  try {
    run();
    return undefined;
  } catch (error) {
    if (error instanceof FramingError) return error;
    throw error;
  }
}

/** Runs one case; throws AssertionError when the invariant breaks, or the unexpected exception. */
export function checkFramerCase(input: FramerFuzzCase): FramerCaseResult {
  const plain = input.plain ?? false;
  const stream = plain ? Uint8Array.from(input.stream) : Buffer.from(input.stream);
  const framer = new PduFramer<Uint8Array>({
    mode: input.mode,
    maxPduBytes: input.maxPduBytes,
    maxFrameBytes: input.maxFrameBytes,
    ...(plain ? {} : { allocate: (length: number) => Buffer.allocUnsafe(length) }),
  });
  const counter = new PduStreamCounter({ mode: input.mode, maxPduBytes: input.maxPduBytes });
  // The relay's way: takeWhole first, push when it declines; it must see the same PDUs and the same error.
  const relayed = new PduFramer<Uint8Array>({ mode: input.mode, maxPduBytes: input.maxPduBytes, maxFrameBytes: input.maxFrameBytes });
  const relayedPdus: Uint8Array[] = [];
  let relayedFailure: FramingError | undefined;
  const pdus: Uint8Array[] = [];
  const frames: Uint8Array[] = [];
  let failure: FramingError | undefined;
  let counterFailure: FramingError | undefined;
  let counted = 0;
  let start = 0;
  for (const end of [...input.cuts, stream.length]) {
    const chunk = stream.subarray(start, end);
    failure = framingFailure(() => {
      const batches = framer.pushBatches(chunk);
      const last = framer.lastPdus();
      invariant(batches.reduce((n, batch) => n + batch.pduCount, 0) === last.length, 'batches do not count the pdus pushed');
      frames.push(...batches.map((batch) => batch.data));
      pdus.push(...last);
    });
    relayedFailure ??= framingFailure(() => {
      const whole = relayed.takeWhole(chunk);
      if (whole > 0) {
        invariant(whole === relayed.lastPdus().length && chunk.length <= relayed.maxFrameBytes, 'takeWhole took a chunk that is not one frame of whole pdus');
      } else {
        relayed.pushBatches(chunk);
      }
      relayedPdus.push(...relayed.lastPdus());
    });
    invariant(relayedFailure?.message === failure?.message, 'takeWhole and push disagree on an error');
    if (counterFailure) {
      invariant(framingFailure(() => counter.push(chunk)) === counterFailure, 'a failed counter accepted another chunk');
    } else {
      counterFailure = framingFailure(() => (counted += counter.push(chunk)));
    }
    if (failure) break;
    start = end;
  }
  // A push that throws returns nothing, even PDUs that were whole before the
  // bad one; those must still be whole PDUs up to the error's offset.
  const consumed = framer.offset;
  const returned = pdus.reduce((n, pdu) => n + pdu.length, 0);
  if (failure) {
    invariant(returned <= consumed, 'returned more than consumed');
    splitWholePdus(stream.subarray(returned, consumed), mode(input.mode, pdus), { maxPduBytes: input.maxPduBytes });
    invariant(framingFailure(() => framer.push(stream.subarray(0, 1))) === failure, 'a failed framer accepted another chunk');
  } else {
    invariant(returned === consumed, `returned ${returned} bytes but consumed ${consumed}`);
    invariant(relayed.offset === consumed && relayedPdus.length === pdus.length && relayedPdus.every((pdu, i) => { const other = pdus[i]; return other !== undefined && sameBytes(pdu, other); }), 'takeWhole and push returned other pdus');
  }
  const prefix = stream.subarray(0, returned);
  invariant(sameBytes(Buffer.concat(pdus), prefix), 'pdus do not concatenate to the consumed prefix');
  invariant(sameBytes(Buffer.concat(frames), prefix), 'frames do not concatenate to the consumed prefix');
  let frameMode = input.mode;
  for (const frame of frames) {
    invariant(frame.length <= input.maxFrameBytes, `frame of ${frame.length} bytes exceeds ${input.maxFrameBytes}`);
    invariant(Buffer.isBuffer(frame) === !plain, 'a frame is not of the kind of array pushed');
    const split = splitWholePdus(frame, frameMode, { maxPduBytes: input.maxPduBytes });
    const count = countWholePdus(frame, frameMode, { maxPduBytes: input.maxPduBytes });
    invariant(count.count === split.length, 'countWholePdus and splitWholePdus disagree');
    frameMode = mode(frameMode, split);
    invariant(count.mode === frameMode, 'countWholePdus reports another mode');
  }
  for (const pdu of pdus) invariant(pdu.length <= input.maxPduBytes, `pdu of ${pdu.length} bytes exceeds ${input.maxPduBytes}`);
  invariant(framer.stats.bytes === consumed, 'stats disagree with the offset');
  if (!failure) invariant(framer.stats.pdus === pdus.length, 'stats disagree with the pdus returned');

  // Differential checks: the one-shot validator and the counter read the stream the same way.
  let whole: Uint8Array[] | FramingError;
  try {
    whole = splitWholePdus(stream, input.mode, { maxPduBytes: input.maxPduBytes });
  } catch (error) {
    if (!(error instanceof FramingError)) throw error;
    whole = error;
  }
  if (failure) {
    invariant(failure.offset === consumed, `error offset ${failure.offset} is not the consumed length ${consumed}`);
    invariant(/^[a-z]/.test(failure.message) && !failure.message.endsWith('.'), `badly formed message: ${failure.message}`);
    invariant(whole instanceof FramingError && whole.code === failure.code && whole.offset === failure.offset,
      `validator disagrees: ${whole instanceof FramingError ? whole.message : 'no error'} vs ${failure.message}`);
    invariant(counterFailure?.code === failure.code && counterFailure.offset === failure.offset,
      `counter disagrees: ${counterFailure?.message ?? 'no error'} vs ${failure.message}`);
  } else if (framer.bufferedBytes > 0) {
    invariant(framer.bufferedBytes === stream.length - consumed, 'buffered bytes are not the unconsumed tail');
    invariant(whole instanceof FramingError && whole.offset === consumed, 'validator accepted a stream that ends inside a pdu');
    invariant(counterFailure === undefined && counted === pdus.length, `counter counted ${counted} pdus, the framer ${pdus.length}`);
  } else {
    invariant(consumed === stream.length, 'stream not consumed although nothing is buffered');
    invariant(Array.isArray(whole) && whole.length === pdus.length, 'validator split the stream differently');
    invariant(counterFailure === undefined && counted === pdus.length, `counter counted ${counted} pdus, the framer ${pdus.length}`);
  }
  return { pdus: pdus.length, buffered: framer.bufferedBytes, ...(failure ? { failure } : {}) };
}

/** Largest chunk for each chunking class (control bits 2-4; chunks are 0 to that many bytes); 0 = the stream in one chunk. */
const CHUNK_CLASSES = [1, 2, 3, 7, 16, 64, 1024, 0];
/** After this many cuts the rest is one chunk: 1-byte chunks of a long stream cost time, not coverage. */
const MAX_CUTS = 512;
const HEADER_BYTES = 5;

/**
 * The bytes a fuzz input is made of. Byte 0: bits 0-1 the mode (rdp, nla,
 * nla-ex; 3 is rdp), bits 2-4 the chunking class, bit 5 plain Uint8Array
 * chunks, bit 6 frames of 3 PDUs' limit, bit 7 a small PDU limit taken from
 * byte 1. Bytes 1-4 seed the chunk boundaries; the rest is the stream.
 */
export interface FramerInputControl {
  readonly mode: FramingMode;
  readonly chunkClass: number;
  readonly plain: boolean;
  readonly wideFrames: boolean;
  /** undefined = the default 64 KiB. */
  readonly smallPduLimit?: number;
  readonly seed: number;
}

export function encodeFramerInput(control: FramerInputControl, stream: Uint8Array): Uint8Array {
  const out = new Uint8Array(HEADER_BYTES + stream.length);
  const modeBits = FRAMING_MODES.indexOf(control.mode);
  out[0] = modeBits | ((control.chunkClass & 7) << 2) | (control.plain ? 0x20 : 0) | (control.wideFrames ? 0x40 : 0) | (control.smallPduLimit === undefined ? 0 : 0x80);
  new DataView(out.buffer).setUint32(1, control.seed >>> 0, true);
  if (control.smallPduLimit !== undefined) out[1] = control.smallPduLimit & 0xff;
  out.set(stream, HEADER_BYTES);
  return out;
}

export function decodeFramerInput(data: Uint8Array): FramerFuzzCase | undefined {
  if (data.length < HEADER_BYTES) return undefined;
  const control = data[0] ?? 0;
  const mode = FRAMING_MODES[(control & 3) % FRAMING_MODES.length] ?? 'rdp';
  const maxPduBytes = (control & 0x80) === 0 ? 65536 : 7 + ((data[1] ?? 0) << 4);
  const maxFrameBytes = (control & 0x40) === 0 ? maxPduBytes : maxPduBytes * 3;
  const largest = CHUNK_CLASSES[(control >> 2) & 7] ?? 0;
  const stream = data.subarray(HEADER_BYTES);
  let seed = new DataView(data.buffer, data.byteOffset, data.length).getUint32(1, true) | 1;
  const cuts: number[] = [];
  for (let at = 0; largest > 0 && cuts.length < MAX_CUTS; ) {
    seed ^= seed << 13;
    seed ^= seed >>> 17;
    seed ^= seed << 5;
    // Steps of 0 too: an empty chunk is a chunk (a socket may hand one over).
    at += (seed >>> 0) % (largest + 1);
    if (at >= stream.length) break;
    cuts.push(at);
  }
  return { stream, cuts, mode, maxPduBytes, maxFrameBytes, plain: (control & 0x20) !== 0 };
}

/** libFuzzer/Jazzer.js-style entry: one Buffer in, see decodeFramerInput. */
export function fuzzPduFramer(data: Uint8Array): void {
  const input = decodeFramerInput(data);
  if (input) checkFramerCase(input);
}

// Generators of well-formed streams: what each mode may carry, in the order a
// real session sends it, so mutations start next to the format's boundaries.
function body(random: SeededRandom, length: number): Uint8Array {
  return random.bytes(Math.max(0, length));
}

function tpkt(random: SeededRandom): Uint8Array {
  const length = random.chance(0.9) ? random.between(7, 300) : random.between(7, 5000);
  return Buffer.concat([Uint8Array.of(0x03, 0x00, length >> 8, length & 0xff), body(random, length - 4)]);
}

function fastPath(random: SeededRandom): Uint8Array {
  const action = random.below(64) << 2;
  if (random.chance(0.5)) {
    const length = random.between(2, 127);
    return Buffer.concat([Uint8Array.of(action, length), body(random, length - 2)]);
  }
  const length = random.chance(0.9) ? random.between(3, 1000) : random.between(3, 0x7fff);
  return Buffer.concat([Uint8Array.of(action, 0x80 | (length >> 8), length & 0xff), body(random, length - 3)]);
}

function tsRequest(random: SeededRandom): Uint8Array {
  const content = random.chance(0.9) ? random.between(1, 600) : random.between(1, 70000);
  const lengthBytes = content < 0x80 && random.chance(0.7) ? 0 : content < 0x100 ? 1 : content < 0x10000 ? 2 : 3;
  const header = [0x30];
  if (lengthBytes === 0) header.push(content);
  else {
    header.push(0x80 | lengthBytes);
    for (let i = lengthBytes - 1; i >= 0; i--) header.push((content >> (8 * i)) & 0xff);
  }
  return Buffer.concat([Uint8Array.from(header), body(random, content)]);
}

function earlyUserAuthorization(random: SeededRandom): Uint8Array {
  return Uint8Array.of(random.chance(0.8) ? 0x00 : 0x05, 0, 0, 0);
}

/** A stream as a session would send it in `mode`: NLA messages, then a TPKT, then RDP PDUs. */
export function generateFramerStream(random: SeededRandom, mode: FramingMode): Uint8Array {
  const pdus: Uint8Array[] = [];
  if (mode !== 'rdp') {
    for (let i = random.below(4); i > 0; i--) pdus.push(tsRequest(random));
    if (mode === 'nla-ex' && random.chance(0.8)) pdus.push(earlyUserAuthorization(random));
  }
  for (let i = random.below(8); i > 0; i--) pdus.push(random.chance(0.3) || pdus.length === 0 ? tpkt(random) : fastPath(random));
  if (random.chance(0.1)) pdus.push(random.bytes(1 + random.below(8)));
  return Buffer.concat(pdus);
}

export const fuzzTarget: FuzzTarget = {
  name: 'pdu-framer',
  checks:
    'any stream in any chunks, all three modes (TPKT, fast-path, DER TSRequest, HYBRID_EX early authorization result): only FramingError is thrown, at the first bad PDU; ' +
    'PDUs and frames concatenate to the bytes consumed, in order; every frame holds whole PDUs and fits its cap, no PDU over its cap; ' +
    'the one-shot validator and the counting reader agree on every PDU and every error',
  // Room for a PDU over the default 64 KiB limit is not needed: the header alone says so.
  maxInputBytes: 16 * 1024,
  corpusExtension: '.bin',
  dictionary: [
    Uint8Array.of(0x03, 0x00), Uint8Array.of(0x03, 0x00, 0x00, 0x07), Uint8Array.of(0x30, 0x81), Uint8Array.of(0x30, 0x82),
    Uint8Array.of(0x30, 0x83), Uint8Array.of(0x30, 0x84), Uint8Array.of(0x30, 0x80), Uint8Array.of(0, 0, 0, 0), Uint8Array.of(5, 0, 0, 0),
    Uint8Array.of(0x00, 0x80), Uint8Array.of(0x04, 0xff, 0xff), Uint8Array.of(0x02, 0xf0, 0x80),
  ],
  execute(input) {
    const decoded = decodeFramerInput(input);
    if (!decoded) return 'short';
    const result = checkFramerCase(decoded);
    const ending = result.failure ? `${result.failure.code}: ${result.failure.message.replace(/0x[0-9a-f]{2}/g, 'byte')}` : result.buffered > 0 ? 'partial' : 'whole';
    return `${decoded.mode} ${ending}`;
  },
  generate(random) {
    const mode = random.pick(FRAMING_MODES);
    const small = random.chance(0.2);
    return encodeFramerInput(
      {
        mode,
        chunkClass: random.below(8),
        plain: random.chance(0.3),
        wideFrames: random.chance(0.5),
        ...(small ? { smallPduLimit: random.below(256) } : {}),
        seed: random.next(),
      },
      generateFramerStream(random, mode),
    );
  },
};
