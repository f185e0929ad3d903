import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PduReadError, readOnePdu, type ByteSource } from './readOnePdu.js';
import { buildConnectionConfirm, PROTOCOL } from './x224.js';

/** A source that hands out the given chunks, then ends (or fails with `error`). */
function chunksOf(chunks: readonly Uint8Array[], error?: Error): ByteSource & { reads: number } {
  const queue = [...chunks];
  const source = {
    reads: 0,
    read(): Promise<Uint8Array | null> {
      source.reads++;
      const chunk = queue.shift();
      if (chunk !== undefined) return Promise.resolve(chunk);
      return error ? Promise.reject(error) : Promise.resolve(null);
    },
  };
  return source;
}

/** A source whose read never resolves until the test pushes a chunk. */
function silentSource(): ByteSource & { push(chunk: Uint8Array): void } {
  let deliver: ((chunk: Uint8Array) => void) | undefined;
  return {
    read: () => new Promise((resolve) => { deliver = resolve; }),
    push: (chunk) => deliver?.(chunk),
  };
}

const confirm = buildConnectionConfirm({ kind: 'response', selectedProtocol: PROTOCOL.SSL, flags: 0 });

function rejectsWith(kind: PduReadError['kind'], message: RegExp): (error: unknown) => boolean {
  return (error) => {
    assert.ok(error instanceof PduReadError, String(error));
    assert.equal(error.kind, kind);
    assert.match(error.message, message);
    assert.match(error.message, /^[a-z]/);
    return true;
  };
}

void test('a TPKT split over chunks, cut anywhere, comes back whole and nothing more is read', async () => {
  for (let cut = 1; cut < confirm.length; cut++) {
    const source = chunksOf([confirm.subarray(0, cut), confirm.subarray(cut), Uint8Array.of(0xff)]);
    const { pdu, rest } = await readOnePdu(source, { maxBytes: 1024 });
    assert.deepEqual(pdu, confirm);
    assert.equal(rest.length, 0);
    assert.equal(source.reads, 2, `cut at ${cut}`);
  }
});

void test('a PDU in one chunk is a view of it, of the chunk\'s kind', async () => {
  const chunk = Buffer.from(confirm);
  const { pdu } = await readOnePdu(chunksOf([chunk]), { maxBytes: 1024 });
  assert.equal(pdu.buffer, chunk.buffer);
  assert.ok(Buffer.isBuffer(pdu));
});

void test('bytes after the PDU are refused by default, or handed back', async () => {
  const withTail = Buffer.concat([confirm, Buffer.from([1, 2, 3])]);
  await assert.rejects(readOnePdu(chunksOf([withTail]), { maxBytes: 1024 }), rejectsWith('trailing', /sent 3 bytes after its 19-byte reply/));
  const { pdu, rest } = await readOnePdu(chunksOf([withTail]), { maxBytes: 1024, trailing: 'return' });
  assert.equal(pdu.length, 19);
  assert.deepEqual([...rest], [1, 2, 3]);
});

void test('anything but a TPKT, a bad header, or a length over the cap is refused before it is read whole', async () => {
  await assert.rejects(readOnePdu(chunksOf([Uint8Array.of(0x30, 0x03, 0, 0)]), { maxBytes: 1024 }), rejectsWith('invalid', /does not start with a tpkt header \(first bytes 30030000\)/));
  await assert.rejects(readOnePdu(chunksOf([Uint8Array.of(0x03, 0x01, 0, 19)]), { maxBytes: 1024 }), rejectsWith('invalid', /tpkt reserved byte is 0x01/));
  await assert.rejects(readOnePdu(chunksOf([Uint8Array.of(0x03, 0, 0, 6)]), { maxBytes: 1024 }), rejectsWith('invalid', /tpkt length 6 is below 7/));
  const big = chunksOf([Uint8Array.of(0x03, 0, 0x10, 0x00), new Uint8Array(100)]);
  await assert.rejects(readOnePdu(big, { maxBytes: 1024 }), rejectsWith('too-large', /announces 4096 bytes, more than the 1024 allowed/));
  assert.equal(big.reads, 1, 'the cap stops the read at the header');
});

void test('other PDU kinds when a framing mode is accepted: a DER TSRequest during NLA', async () => {
  const tsRequest = Uint8Array.of(0x30, 0x03, 0x02, 0x01, 0x06);
  const { pdu } = await readOnePdu(chunksOf([tsRequest.subarray(0, 1), tsRequest.subarray(1)]), { maxBytes: 64, accept: 'nla' });
  assert.deepEqual(pdu, tsRequest);
  await assert.rejects(readOnePdu(chunksOf([tsRequest]), { maxBytes: 64 }), rejectsWith('invalid', /tpkt/));
});

void test('a stream that ends or fails first is closed, with the stream\'s error as cause', async () => {
  await assert.rejects(readOnePdu(chunksOf([]), { maxBytes: 1024 }), rejectsWith('closed', /ended before any reply/));
  await assert.rejects(readOnePdu(chunksOf([confirm.subarray(0, 5)]), { maxBytes: 1024 }), rejectsWith('closed', /ended 5 bytes into the reply/));
  const reset = new Error('read ECONNRESET');
  await assert.rejects(readOnePdu(chunksOf([confirm.subarray(0, 5)], reset), { maxBytes: 1024 }), (error: unknown) => {
    assert.ok(error instanceof PduReadError && error.kind === 'closed');
    assert.equal(error.cause, reset);
    return true;
  });
});

void test('an abort ends a read that is waiting, and a read that has not started', async () => {
  const controller = new AbortController();
  const source = silentSource();
  const reading = readOnePdu(source, { maxBytes: 1024, signal: controller.signal });
  controller.abort(new Error('deadline'));
  await assert.rejects(reading, (error: unknown) => {
    assert.ok(error instanceof PduReadError && error.kind === 'aborted');
    assert.match((error.cause as Error).message, /deadline/);
    return true;
  });
  // A chunk that arrives after the abort changes nothing.
  source.push(confirm);
  await assert.rejects(readOnePdu(chunksOf([confirm]), { maxBytes: 1024, signal: AbortSignal.abort() }), rejectsWith('aborted', /aborted/));
});
