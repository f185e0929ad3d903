// The protocol package's PDU framer over every shared recording (real RDP
// servers' streams, split into PDUs by the servers and clients that made
// them). Here rather than in protocol/: reading recordings needs the lab,
// which itself imports the protocol package.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { basename } from 'node:path';
import { countWholePdus, PduFramer, type FramingMode } from '@lanterna/protocol';
import { listRecordings, readRecording } from '@lanterna/lab';

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

/** Cuts `stream` into chunks of 1..maxChunk bytes, the sizes drawn from a fixed linear congruential sequence. */
function chunked(stream: Buffer, maxChunk: number, seed: number): Buffer[] {
  const chunks: Buffer[] = [];
  let state = seed >>> 0;
  for (let offset = 0; offset < stream.length; ) {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    const size = 1 + (state % maxChunk);
    chunks.push(stream.subarray(offset, offset + size));
    offset += size;
  }
  return chunks;
}

/**
 * Pushes the chunks through one framer; every frame must hold whole PDUs
 * only (counted again by the protocol's frame reader, whose mode follows
 * the stream's) and fit maxFrameBytes. Returns the single PDUs.
 */
function frameChunks(chunks: readonly Buffer[], maxFrameBytes?: number): { pdus: Buffer[]; framer: PduFramer<Buffer> } {
  const framer = new PduFramer<Buffer>(maxFrameBytes === undefined ? { mode: 'rdp' } : { mode: 'rdp', maxFrameBytes });
  const pdus: Buffer[] = [];
  let frameMode: FramingMode = 'rdp';
  for (const chunk of chunks) {
    let inFrames = 0;
    for (const frame of framer.push(chunk)) {
      assert.ok(frame.length <= framer.maxFrameBytes, `frame of ${frame.length} bytes`);
      const counted = countWholePdus(frame, frameMode);
      inFrames += counted.count;
      frameMode = counted.mode;
    }
    assert.equal(inFrames, framer.lastPdus().length);
    pdus.push(...framer.lastPdus());
  }
  assert.ok(framer.atPduBoundary);
  return { pdus, framer };
}

function assertSamePdus(actual: readonly Buffer[], expected: readonly Buffer[], label: string): void {
  assert.equal(actual.length, expected.length, `${label}: pdu count`);
  const differs = expected.findIndex((pdu, i) => !pdu.equals(actual[i] ?? Buffer.alloc(0)));
  assert.equal(differs, -1, `${label}: pdu ${differs} differs`);
}

void test('recorded PDUs pushed one record at a time come back unchanged, without copies', async () => {
  for (const { name, pdus } of await recordedStreams()) {
    const { pdus: framed, framer } = frameChunks(pdus);
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
    const framer = new PduFramer<Buffer>({ mode: 'rdp' });
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
    // Tiny chunks only on the small recordings: on 55 MB they would take minutes.
    const chunkLimits = stream.length < 512 * 1024 ? [7, 1500, 16384, 70000] : [1500, 70000];
    for (const maxChunk of chunkLimits) {
      const chunks = chunked(stream, maxChunk, 0x1a57e2 + index);
      const { pdus: framed, framer } = frameChunks(chunks, 64 * 1024);
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
    const { pdus: framed, framer } = frameChunks(chunks);
    assertSamePdus(framed, pdus, name);
    assert.equal(framer.stats.copies, pdus.length);
    assert.equal(framer.stats.copiedBytes, stream.length);
  }
});
