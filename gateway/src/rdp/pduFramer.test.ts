import { test } from 'node:test';
import assert from 'node:assert/strict';
import { basename } from 'node:path';
import { readRecording, listRecordings } from '@lanterna/lab';
import { FramingError, nextFramingMode, PduFramer, splitWholePdus, type FramingMode } from './pduFramer.js';

/** mulberry32: a tiny seeded generator, so a failing chunking can be replayed. */
function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface DirectionStream {
  readonly name: string;
  readonly pdus: Buffer[];
  readonly stream: Buffer;
}

let loaded: Promise<DirectionStream[]> | undefined;
function recordedStreams(): Promise<DirectionStream[]> {
  loaded ??= loadRecordedStreams();
  return loaded;
}

async function loadRecordedStreams(): Promise<DirectionStream[]> {
  const streams: DirectionStream[] = [];
  for (const file of listRecordings()) {
    const { records } = await readRecording(file);
    for (const direction of ['client-to-server', 'server-to-client'] as const) {
      const pdus = records.filter((r) => r.direction === direction).map((r) => r.data);
      streams.push({ name: `${basename(file)} ${direction}`, pdus, stream: Buffer.concat(pdus) });
    }
  }
  return streams;
}

/** Feeds `chunks` to a fresh framer; checks the frames' invariants; returns the single PDUs. */
function frameAll(chunks: Buffer[], mode: FramingMode = 'rdp', maxFrameBytes?: number): { pdus: Buffer[]; framer: PduFramer } {
  const framer = new PduFramer(maxFrameBytes === undefined ? { mode } : { mode, maxFrameBytes });
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

void test('recorded PDUs pushed one record at a time come back unchanged, without copies', async () => {
  for (const { name, pdus } of await recordedStreams()) {
    const { pdus: framed, framer } = frameAll(pdus);
    assertSamePdus(framed, pdus, name);
    for (let i = 0; i < pdus.length; i++) {
      assert.equal(framed[i]?.buffer, pdus[i]?.buffer, `${name}: pdu ${i} should be a view of the pushed buffer`);
      assert.equal(framed[i]?.byteOffset, pdus[i]?.byteOffset, `${name}: pdu ${i}`);
    }
    assert.equal(framer.stats.copies, 0, name);
    assert.equal(framer.stats.pdus, pdus.length, name);
  }
});

void test('a whole direction pushed as one chunk comes back as zero-copy frames of whole PDUs', async () => {
  for (const { name, pdus, stream } of await recordedStreams()) {
    const framer = new PduFramer({ mode: 'rdp' });
    const batches = framer.pushBatches(stream);
    assertSamePdus(framer.lastPdus(), pdus, name);
    assert.equal(framer.stats.copies, 0, name);
    assert.ok(Buffer.concat(batches.map((b) => b.data)).equals(stream), name);
    let offset = 0;
    for (const batch of batches) {
      assert.equal(batch.data.buffer, stream.buffer, `${name}: frame is not a view of the chunk`);
      assert.equal(batch.data.byteOffset, stream.byteOffset + offset);
      assert.ok(batch.data.length <= framer.maxFrameBytes);
      offset += batch.data.length;
    }
    // Coalescing really happens: frames are far fewer than PDUs when there are many.
    if (stream.length > 4 * framer.maxFrameBytes) assert.ok(batches.length < pdus.length / 4, name);
  }
});

void test('random chunkings (seeded) give back the same PDUs in order', async () => {
  const streams = await recordedStreams();
  for (const [index, { name, pdus, stream }] of streams.entries()) {
    const random = seededRandom(0x1a57e2 + index);
    // Tiny chunks only on the small recordings: on 55 MB they would take minutes.
    const chunkLimits = stream.length < 512 * 1024 ? [7, 1500, 16384, 70000] : [1500, 70000];
    for (const maxChunk of chunkLimits) {
      const chunks: Buffer[] = [];
      for (let offset = 0; offset < stream.length; ) {
        const size = 1 + Math.floor(random() * maxChunk);
        chunks.push(stream.subarray(offset, offset + size));
        offset += size;
      }
      const { pdus: framed, framer } = frameAll(chunks, 'rdp', 64 * 1024);
      assertSamePdus(framed, pdus, `${name} chunks up to ${maxChunk}`);
      assert.ok(framer.stats.copies <= Math.min(pdus.length, chunks.length), name);
      assert.equal(framer.stats.bytes, stream.length);
    }
  }
});

void test('byte-by-byte pushes give back the same PDUs, each copied once', async () => {
  const small = (await recordedStreams()).filter((s) => s.stream.length < 512 * 1024);
  assert.ok(small.length >= 6, 'expected the cold-* and xrdp-tls recordings');
  for (const { name, pdus, stream } of small) {
    const chunks = Array.from({ length: stream.length }, (_, i) => stream.subarray(i, i + 1));
    const { pdus: framed, framer } = frameAll(chunks);
    assertSamePdus(framed, pdus, name);
    assert.equal(framer.stats.copies, pdus.length);
    assert.equal(framer.stats.copiedBytes, stream.length);
  }
});

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
  const random = seededRandom(7);
  const pdus = Array.from({ length: 400 }, () => tpkt(Array.from({ length: 3 + Math.floor(random() * 900) }, () => 0x5a)));
  const stream = Buffer.concat(pdus);
  const framer = new PduFramer({ mode: 'rdp', maxPduBytes: 1024, maxFrameBytes: 4096 });
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
