import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FramingError } from './framingError.js';
import { nextFramingMode, type FramingMode } from './framingMode.js';
import { PduFramer } from './pduFramer.js';
import { countWholePdus, splitWholePdus } from './wholePdus.js';

/** Feeds `chunks` to a fresh framer; checks the frames' invariants; returns the single PDUs. */
function frameAll(chunks: Buffer[], mode: FramingMode = 'rdp', maxFrameBytes?: number): { pdus: Buffer[]; framer: PduFramer<Buffer> } {
  const framer = new PduFramer<Buffer>(maxFrameBytes === undefined ? { mode } : { mode, maxFrameBytes });
  const pdus: Buffer[] = [];
  let splitMode = mode;
  for (const chunk of chunks) {
    const batches = framer.pushBatches(chunk);
    const single = framer.lastPdus();
    assert.equal(batches.reduce((n, b) => n + b.pduCount, 0), single.length);
    assert.ok(Buffer.concat(batches.map((b) => b.data)).equals(Buffer.concat([...single])));
    for (const batch of batches) {
      assert.ok(batch.data.length <= framer.maxFrameBytes, `frame of ${batch.data.length} bytes`);
      // A frame holds whole PDUs: splitting it again must succeed.
      const inside = splitWholePdus(batch.data, splitMode);
      assert.equal(inside.length, batch.pduCount);
      for (const pdu of inside) splitMode = nextFramingMode(splitMode, pdu);
    }
    pdus.push(...single);
  }
  assert.ok(framer.atPduBoundary);
  return { pdus, framer };
}

function assertSamePdus(actual: readonly Buffer[], expected: readonly Buffer[], label: string): void {
  assert.equal(actual.length, expected.length, `${label}: pdu count`);
  for (let i = 0; i < expected.length; i++) {
    assert.ok(actual[i]?.equals(expected[i] ?? Buffer.alloc(0)), `${label}: pdu ${i} differs`);
  }
}

const tpkt = (payload: number[]): Buffer => {
  const length = 4 + payload.length;
  return Buffer.from([0x03, 0x00, length >> 8, length & 0xff, ...payload]);
};

void test('NLA: DER TSRequests in short and long form, the early user authorization result, then RDP', () => {
  const shortTs = Buffer.from([0x30, 0x03, 0x02, 0x01, 0x06]);
  const longTs = Buffer.concat([Buffer.from([0x30, 0x82, 0x01, 0x00]), Buffer.alloc(0x100, 0xa5)]);
  const longTs1 = Buffer.concat([Buffer.from([0x30, 0x81, 0x90]), Buffer.alloc(0x90, 0x11)]);
  const euar = Buffer.from([0x00, 0x00, 0x00, 0x00]);
  const connectResponse = tpkt([0x02, 0xf0, 0x80, 0x7f, 0x66]);
  // After NLA 0x30 is a fast-path header (12 events), not DER.
  const fastPath = Buffer.from([0x30, 0x05, 0x01, 0x02, 0x03]);
  const stream = [shortTs, longTs, longTs1, euar, connectResponse, fastPath];
  const joined = Buffer.concat(stream);
  for (const size of [1, 2, 3, 5, joined.length]) {
    const chunks: Buffer[] = [];
    for (let offset = 0; offset < joined.length; offset += size) chunks.push(joined.subarray(offset, offset + size));
    const { pdus, framer } = frameAll(chunks, 'nla-ex');
    assertSamePdus(pdus, stream, `chunks of ${size}`);
    assert.equal(framer.mode, 'rdp');
  }
  // The client direction never sees an authorization result: 0x00 is invalid there.
  assert.throws(() => new PduFramer({ mode: 'nla' }).push(euar), { code: 'pdu-invalid' });
  assert.deepEqual(new PduFramer({ mode: 'nla-ex' }).pushPdus(Buffer.from([5, 0, 0, 0])), [Buffer.from([5, 0, 0, 0])]);
});

interface Malformed {
  readonly bytes: number[];
  readonly mode?: FramingMode;
  readonly code: 'pdu-invalid' | 'pdu-too-large';
  readonly message: RegExp;
}

void test('malformed headers give the right error code, byte and offset', () => {
  const cases: Malformed[] = [
    { bytes: [0x03, 0x01, 0x00, 0x10], code: 'pdu-invalid', message: /tpkt reserved byte is 0x01/ },
    { bytes: [0x03, 0x00, 0x00, 0x06], code: 'pdu-invalid', message: /tpkt length 6 is below 7/ },
    { bytes: [0x03, 0x00, 0x00, 0x00], code: 'pdu-invalid', message: /tpkt length 0/ },
    { bytes: [0x00, 0x00], code: 'pdu-invalid', message: /fast-path length 0/ },
    { bytes: [0x04, 0x01], code: 'pdu-invalid', message: /fast-path length 1/ },
    { bytes: [0x04, 0x80, 0x02], code: 'pdu-invalid', message: /fast-path length 2/ },
    { bytes: [0x01], code: 'pdu-invalid', message: /unknown pdu header byte 0x01/ },
    { bytes: [0x02], code: 'pdu-invalid', message: /unknown pdu header byte 0x02/ },
    { bytes: [0x07], code: 'pdu-invalid', message: /unknown pdu header byte 0x07/ },
    { bytes: [0x04], mode: 'nla', code: 'pdu-invalid', message: /unknown pdu header byte 0x04 during nla/ },
    { bytes: [0x30, 0x80], mode: 'nla', code: 'pdu-invalid', message: /indefinite length/ },
    { bytes: [0x30, 0x85], mode: 'nla', code: 'pdu-invalid', message: /length of 5 bytes/ },
    { bytes: [0x30, 0x00], mode: 'nla', code: 'pdu-invalid', message: /empty ts-request/ },
    { bytes: [0x05, 0x00, 0x01, 0x00], mode: 'nla-ex', code: 'pdu-invalid', message: /authorization result byte 2 is 0x01/ },
    { bytes: [0x30, 0x83, 0x01, 0x00, 0x00], mode: 'nla', code: 'pdu-too-large', message: /ts-request pdu of 65541 bytes exceeds the 65536-byte limit/ },
    { bytes: [0x30, 0x84, 0xff, 0xff, 0xff, 0xff], mode: 'nla', code: 'pdu-too-large', message: /4294967301 bytes/ },
  ];
  const prefix = tpkt([0x02, 0xf0, 0x80, 0x00]); // one good PDU first, so offsets are not 0
  for (const { bytes, mode = 'rdp', code, message } of cases) {
    const label = `${Buffer.from(bytes).toString('hex')} in ${mode}`;
    const stream = Buffer.concat([mode === 'rdp' ? prefix : Buffer.alloc(0), Buffer.from(bytes)]);
    const offset = mode === 'rdp' ? prefix.length : 0;
    const expected = (error: unknown): boolean => {
      assert.ok(error instanceof FramingError, label);
      assert.equal(error.code, code, label);
      assert.match(error.message, message, label);
      assert.match(error.message, new RegExp(`at offset ${offset}$`), label);
      assert.equal(error.offset, offset, label);
      return true;
    };
    assert.throws(() => new PduFramer({ mode }).push(stream), expected);
    // The same error when the header arrives one byte at a time.
    const framer = new PduFramer({ mode });
    assert.throws(() => {
      for (let i = 0; i < stream.length; i++) framer.push(stream.subarray(i, i + 1));
    }, expected);
    // A failed stream stays failed.
    assert.throws(() => framer.push(Buffer.from(prefix)), expected);
    assert.throws(() => splitWholePdus(stream, mode), expected);
  }
});

void test('a TPKT or fast-path length above maxPduBytes is pdu-too-large', () => {
  const framer = new PduFramer({ mode: 'rdp', maxPduBytes: 1000, maxFrameBytes: 4000 });
  assert.throws(() => framer.push(Buffer.from([0x03, 0x00, 0x03, 0xe9])), { code: 'pdu-too-large', message: /tpkt pdu of 1001 bytes exceeds the 1000-byte limit at offset 0/ });
  assert.throws(() => new PduFramer({ mode: 'rdp', maxPduBytes: 1000 }).push(Buffer.from([0x00, 0x83, 0xe9])), { code: 'pdu-too-large' });
  assert.equal(new PduFramer({ mode: 'rdp', maxPduBytes: 1000 }).pushPdus(Buffer.concat([Buffer.from([0x03, 0x00, 0x03, 0xe8]), Buffer.alloc(996)])).length, 1);
});

void test('frames never exceed maxFrameBytes and never split a PDU', () => {
  // Lengths spread over 3..902 bytes of payload, in no particular order.
  const pdus = Array.from({ length: 400 }, (_, i) => tpkt(Array.from({ length: 3 + ((i * 7919) % 900) }, () => 0x5a)));
  const stream = Buffer.concat(pdus);
  const framer = new PduFramer<Buffer>({ mode: 'rdp', maxPduBytes: 1024, maxFrameBytes: 4096 });
  const batches = framer.pushBatches(stream);
  assert.ok(batches.length > 1);
  let seen = 0;
  for (const batch of batches) {
    assert.ok(batch.data.length <= 4096);
    const inside = splitWholePdus(batch.data, 'rdp');
    assert.equal(inside.length, batch.pduCount);
    assertSamePdus(inside, pdus.slice(seen, seen + inside.length), 'frame');
    seen += inside.length;
  }
  assert.equal(seen, pdus.length);
  // A frame is only cut when the next PDU would not fit.
  for (let i = 0; i + 1 < batches.length; i++) {
    const next = pdus[batches.slice(0, i + 1).reduce((n, b) => n + b.pduCount, 0)];
    assert.ok(next && (batches[i]?.data.length ?? 0) + next.length > 4096);
  }
});

void test('limits are validated', () => {
  assert.throws(() => new PduFramer({ mode: 'rdp', maxPduBytes: 70000, maxFrameBytes: 65536 }), RangeError);
  assert.throws(() => new PduFramer({ mode: 'rdp', maxPduBytes: 6 }), RangeError);
  assert.throws(() => new PduFramer({ mode: 'rdp', maxFrameBytes: 1.5e6 + 0.5 }), RangeError);
  assert.throws(() => new PduFramer({ mode: 'rdp', maxFrameBytes: 64 * 1024 * 1024 }), RangeError);
  assert.throws(() => new PduFramer({ mode: 'tls' as FramingMode }), RangeError);
  const framer = new PduFramer({ mode: 'rdp', maxPduBytes: 1000, maxFrameBytes: 1000 });
  assert.equal(framer.maxFrameBytes, 1000);
});

void test('splitWholePdus accepts whole PDUs and refuses a frame that ends inside one', () => {
  const a = tpkt([0x02, 0xf0, 0x80, 0x01, 0x02]);
  const b = Buffer.from([0x04, 0x80, 0x05, 0x01, 0x02]);
  const frame = Buffer.concat([a, b]);
  const pdus = splitWholePdus(frame, 'rdp');
  assertSamePdus(pdus, [a, b], 'whole');
  assert.equal(pdus[0]?.buffer, frame.buffer);
  assert.throws(() => splitWholePdus(frame.subarray(0, frame.length - 1), 'rdp'), {
    code: 'pdu-invalid',
    message: /frame of 13 bytes ends inside a 5-byte fast-path pdu that starts at offset 9/,
  });
  assert.throws(() => splitWholePdus(frame.subarray(0, a.length + 1), 'rdp'), { code: 'pdu-invalid', message: /ends inside a pdu header/ });
  // NLA then the first TPKT: 0x30 after it is fast-path again.
  const nla = Buffer.concat([Buffer.from([0x30, 0x03, 0x02, 0x01, 0x06]), a, Buffer.from([0x30, 0x03, 0x00])]);
  assert.equal(splitWholePdus(nla, 'nla').length, 3);
  assert.deepEqual(splitWholePdus(Buffer.alloc(0), 'rdp'), []);
});

void test('takeStats returns growth since the last call; stats stay cumulative', () => {
  const pdu = tpkt([0x02, 0xf0, 0x80, 0x00]);
  const framer = new PduFramer({ mode: 'rdp' });
  framer.push(Buffer.concat([pdu, pdu.subarray(0, 3)]));
  assert.deepEqual(framer.takeStats(), { pdus: 1, bytes: 8, batches: 1, copies: 0, copiedBytes: 0 });
  framer.push(pdu.subarray(3));
  assert.equal(framer.bufferedBytes, 0);
  assert.deepEqual(framer.takeStats(), { pdus: 1, bytes: 8, batches: 1, copies: 1, copiedBytes: 8 });
  assert.deepEqual(framer.takeStats(), { pdus: 0, bytes: 0, batches: 0, copies: 0, copiedBytes: 0 });
  assert.equal(framer.stats.pdus, 2);
  assert.equal(framer.offset, 16);
});

void test('PDUs and frames are views of the caller\'s own kind: Buffer in, Buffer out; Uint8Array in, Uint8Array out', () => {
  const a = tpkt([0x02, 0xf0, 0x80, 0x01]);
  const b = tpkt([0x02, 0xf0, 0x80, 0x02, 0x03]);
  const joined = Buffer.concat([a, b]);
  const fromBuffer = new PduFramer<Buffer>({ mode: 'rdp' });
  const [frame] = fromBuffer.push(joined);
  assert.ok(Buffer.isBuffer(frame), 'a coalesced frame of Buffer chunks is a Buffer');
  assert.equal(frame.buffer, joined.buffer);
  assert.ok(fromBuffer.lastPdus().every((pdu) => Buffer.isBuffer(pdu)));
  // A PDU copied together from two chunks is a Buffer too.
  const straddling = new PduFramer<Buffer>({ mode: 'rdp' });
  straddling.push(joined.subarray(0, 3));
  const [copied] = straddling.push(joined.subarray(3, a.length));
  assert.ok(Buffer.isBuffer(copied) && copied.equals(a));

  const plain = new Uint8Array(joined);
  const fromArray = new PduFramer({ mode: 'rdp' });
  const frames = fromArray.push(plain);
  assert.equal(frames.length, 1);
  assert.equal(Object.getPrototypeOf(frames[0]), Uint8Array.prototype);
  assert.equal(frames[0]?.buffer, plain.buffer);
  fromArray.push(plain.subarray(0, 5));
  const [pieced] = fromArray.push(plain.subarray(5, a.length));
  assert.equal(Object.getPrototypeOf(pieced), Uint8Array.prototype);
  assert.deepEqual(pieced, new Uint8Array(a));
  assert.equal(Object.getPrototypeOf(splitWholePdus(plain, 'rdp')[1]), Uint8Array.prototype);
});

void test('a straddling PDU is copied into what `allocate` gives, once', () => {
  const pdu = tpkt([0x02, 0xf0, 0x80, 0x01, 0x02, 0x03]);
  const asked: number[] = [];
  const framer = new PduFramer<Buffer>({ mode: 'rdp', allocate: (length) => { asked.push(length); return Buffer.allocUnsafe(length); } });
  assert.deepEqual(framer.push(pdu.subarray(0, 2)), []);
  assert.deepEqual(framer.push(pdu.subarray(2, 6)), []);
  const [whole] = framer.push(pdu.subarray(6));
  assert.ok(whole?.equals(pdu));
  assert.deepEqual(asked, [pdu.length]);
});

void test('countWholePdus counts the PDUs of a frame and carries the mode over to the next', () => {
  const tsRequest = Buffer.from([0x30, 0x03, 0x02, 0x01, 0x06]);
  const connectInitial = tpkt([0x02, 0xf0, 0x80, 0x7f, 0x65]);
  const fastPath = Buffer.from([0x30, 0x05, 0x01, 0x02, 0x03]);
  assert.deepEqual(countWholePdus(Buffer.concat([tsRequest, tsRequest]), 'nla'), { count: 2, mode: 'nla' });
  assert.deepEqual(countWholePdus(Buffer.concat([tsRequest, connectInitial, fastPath]), 'nla'), { count: 3, mode: 'rdp' });
  // 0x30 read as fast-path once NLA has ended: 5 bytes, not a 3-byte DER body.
  assert.deepEqual(countWholePdus(Buffer.concat([fastPath, fastPath]), 'rdp'), { count: 2, mode: 'rdp' });
  assert.deepEqual(countWholePdus(new Uint8Array(0), 'rdp'), { count: 0, mode: 'rdp' });
  assert.throws(() => countWholePdus(connectInitial.subarray(0, 6), 'rdp'), { code: 'pdu-invalid', message: /ends inside a 9-byte tpkt pdu/ });
  assert.throws(() => countWholePdus(Buffer.from([0x01]), 'rdp'), { code: 'pdu-invalid', message: /unknown pdu header byte 0x01/ });
});

/** Feeds `chunks` as the relay does (takeWhole first, push otherwise); returns the frames and PDUs, or the error. */
interface RelayFrames {
  framer: PduFramer<Buffer>;
  taken: number;
  frames: Buffer[];
  pdus: Buffer[];
  error?: FramingError;
}

function relayFrames(chunks: Buffer[], mode: FramingMode, useTakeWhole: boolean, maxFrameBytes?: number): RelayFrames {
  const framer = new PduFramer<Buffer>(maxFrameBytes === undefined ? { mode } : { mode, maxFrameBytes });
  const frames: Buffer[] = [];
  const pdus: Buffer[] = [];
  let taken = 0;
  try {
    for (const chunk of chunks) {
      const whole = useTakeWhole ? framer.takeWhole(chunk) : 0;
      if (whole > 0) {
        taken++;
        frames.push(chunk);
        assert.equal(framer.lastPdus().length, whole);
      } else {
        frames.push(...framer.push(chunk));
      }
      pdus.push(...framer.lastPdus());
    }
  } catch (error) {
    return { error: error as FramingError, framer, taken, frames, pdus };
  }
  return { frames, pdus, framer, taken };
}

void test('takeWhole takes chunks of whole PDUs as one frame and leaves every other chunk to push, with the same PDUs, counts and mode', () => {
  const stream = [
    Buffer.from([0x30, 0x03, 0x02, 0x01, 0x06]),
    Buffer.concat([Buffer.from([0x30, 0x82, 0x01, 0x00]), Buffer.alloc(0x100, 0xa5)]),
    Buffer.from([0x00, 0x00, 0x00, 0x00]),
    tpkt([0x02, 0xf0, 0x80, 0x7f, 0x66]),
    Buffer.from([0x30, 0x05, 0x01, 0x02, 0x03]),
    tpkt(Array.from({ length: 1665 }, (_, i) => i & 0xff)),
    Buffer.from([0x00, 0x83, 0x00, ...Array.from({ length: 0x300 - 3 }, () => 7)]),
  ];
  const joined = Buffer.concat(stream);
  for (const size of [1, 3, 5, 261, 1669, joined.length]) {
    const chunks: Buffer[] = [];
    for (let offset = 0; offset < joined.length; offset += size) chunks.push(joined.subarray(offset, offset + size));
    // Chunks on PDU boundaries too: each PDU alone, and pairs.
    for (const split of [chunks, stream, [Buffer.concat(stream.slice(0, 2)), Buffer.concat(stream.slice(2))]]) {
      const fast = relayFrames(split, 'nla-ex', true);
      const plain = relayFrames(split, 'nla-ex', false);
      assert.equal(fast.error, undefined);
      assertSamePdus(fast.pdus, stream, `chunks of ${size}`);
      assertSamePdus(fast.pdus, plain.pdus, `chunks of ${size}, against push`);
      assert.ok(Buffer.concat(fast.frames).equals(joined));
      const state = ({ framer }: RelayFrames): unknown => ({ stats: { ...framer.stats }, mode: framer.mode, offset: framer.offset, boundary: framer.atPduBoundary });
      assert.deepEqual(state(fast), state(plain));
    }
  }
  assert.equal(relayFrames(stream, 'nla-ex', true).taken, stream.length, 'each whole PDU is taken');
  assert.equal(relayFrames([joined.subarray(0, 7), joined.subarray(7)], 'nla-ex', true).taken, 0, 'a chunk ending inside a PDU, and the one after it, are pushed');
  // Over maxFrameBytes: pushed, and split into frames that fit.
  const big = tpkt(Array.from({ length: 65531 }, () => 1));
  const capped = relayFrames([Buffer.concat([big, big])], 'rdp', true, 65535 + 100);
  assert.equal(capped.taken, 0);
  assert.equal(capped.frames.length, 2);
});

void test('takeWhole throws push\'s FramingError, and the framer stays failed', () => {
  const good = tpkt([0x02, 0xf0, 0x80]);
  for (const bad of [Buffer.from([0x03, 0x01, 0x00, 0x07]), Buffer.from([0x01]), Buffer.from([0x00, 0x01])]) {
    const chunk = Buffer.concat([good, bad]);
    const fast = relayFrames([chunk], 'rdp', true);
    const plain = relayFrames([chunk], 'rdp', false);
    assert.ok(fast.error instanceof FramingError, `${bad.toString('hex')}: throws`);
    assert.equal(fast.error.message, plain.error?.message);
    assert.equal(fast.error.code, plain.error?.code);
    assert.throws(() => fast.framer.takeWhole(good), { message: fast.error.message });
    assert.throws(() => fast.framer.push(good), { message: fast.error.message });
  }
});
