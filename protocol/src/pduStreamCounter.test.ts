import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FramingError } from './framingError.js';
import { PduStreamCounter } from './pduStreamCounter.js';
import { countWholePdus } from './wholePdus.js';

const tpkt = (length: number): Buffer => {
  const pdu = Buffer.alloc(length, 0x5a);
  pdu.writeUInt8(0x03, 0);
  pdu.writeUInt8(0x00, 1);
  pdu.writeUInt16BE(length, 2);
  return pdu;
};

// NLA then RDP in one direction: DER (long form), the authorization result, a TPKT, then fast-path.
const nlaStream = Buffer.concat([
  Buffer.from([0x30, 0x82, 0x01, 0x00]), Buffer.alloc(0x100, 0xa5),
  Buffer.from([0x00, 0x00, 0x00, 0x00]),
  tpkt(9),
  Buffer.from([0x30, 0x05, 0x01, 0x02, 0x03]),
  Buffer.from([0x04, 0x80, 0x90]), Buffer.alloc(0x90 - 3, 1),
]);

void test('counts PDUs cut at every byte, in every framing mode it passes through', () => {
  for (const [stream, mode, expected] of [
    [Buffer.concat([tpkt(10), tpkt(300), tpkt(7)]), 'rdp', 3],
    [nlaStream, 'nla-ex', 5],
  ] as const) {
    assert.equal(countWholePdus(stream, mode).count, expected, 'the stream itself is what the test thinks');
    for (let cut = 0; cut <= stream.length; cut++) {
      const counter = new PduStreamCounter({ mode });
      const total = counter.push(stream.subarray(0, cut)) + counter.push(stream.subarray(cut));
      assert.equal(total, expected, `${mode} cut at ${cut}`);
      assert.equal(counter.mode, 'rdp');
    }
    const byteByByte = new PduStreamCounter({ mode });
    let total = 0;
    for (const byte of stream) total += byteByByte.push(Uint8Array.of(byte));
    assert.equal(total, expected);
  }
});

void test('a PDU is counted when its last byte arrives, not before', () => {
  const counter = new PduStreamCounter();
  const pdu = tpkt(90);
  assert.equal(counter.push(pdu.subarray(0, 89)), 0);
  assert.equal(counter.push(pdu.subarray(89)), 1);
  assert.equal(counter.push(Buffer.concat([pdu, pdu, pdu.subarray(0, 2)])), 2);
  assert.equal(counter.push(pdu.subarray(2)), 1);
});

void test('a bad header is a FramingError at the PDU\'s stream offset, and the counter stays failed', () => {
  const counter = new PduStreamCounter({ maxPduBytes: 1000 });
  const stream = Buffer.concat([tpkt(20), Buffer.from([0x03, 0x00, 0x03, 0xe9])]);
  const tooLarge = (error: unknown): boolean => {
    assert.ok(error instanceof FramingError);
    assert.equal(error.code, 'pdu-too-large');
    assert.equal(error.offset, 20);
    assert.match(error.message, /tpkt pdu of 1001 bytes exceeds the 1000-byte limit at offset 20/);
    return true;
  };
  assert.equal(counter.push(stream.subarray(0, 22)), 1);
  assert.throws(() => counter.push(stream.subarray(22)), tooLarge);
  assert.throws(() => counter.push(tpkt(7)), tooLarge);
  assert.throws(() => new PduStreamCounter().push(Buffer.from([0x30, 0x00])), { code: 'pdu-invalid', message: /fast-path length 0/ });
});
