import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildTpktPdu, countWholePdus, TpktPduCounter } from './tpktPdu.js';
import { buildConnectionConfirm, buildConnectionRequest, parseConnectionConfirm, parseConnectionRequest, PROTOCOL_HYBRID, PROTOCOL_SSL } from './x224Negotiation.js';

void test('buildTpktPdu makes a pdu of the exact size with a valid header', () => {
  for (const size of [7, 10, 90, 1669, 65535]) {
    const pdu = buildTpktPdu(size);
    assert.equal(pdu.length, size);
    assert.equal(pdu[0], 3);
    assert.equal(pdu.readUInt16BE(2), size);
  }
  assert.throws(() => buildTpktPdu(6), /pdu size/);
  assert.throws(() => buildTpktPdu(70000), /pdu size/);
});

void test('TpktPduCounter counts pdus split at every byte boundary', () => {
  const stream = Buffer.concat([buildTpktPdu(10), buildTpktPdu(300), buildTpktPdu(7)]);
  for (let cut = 0; cut <= stream.length; cut += 1) {
    const counter = new TpktPduCounter();
    const total = counter.push(stream.subarray(0, cut)) + counter.push(stream.subarray(cut));
    assert.equal(total, 3, `cut at ${cut}`);
  }
  const byteByByte = new TpktPduCounter();
  let total = 0;
  for (const byte of stream) total += byteByByte.push(Buffer.from([byte]));
  assert.equal(total, 3);
  assert.throws(() => new TpktPduCounter().push(Buffer.from([0x30, 0, 0, 9])), /not a tpkt stream/);
});

void test('countWholePdus accepts coalesced pdus and refuses partial ones', () => {
  assert.equal(countWholePdus(Buffer.concat([buildTpktPdu(90), buildTpktPdu(90)])), 2);
  assert.throws(() => countWholePdus(buildTpktPdu(90).subarray(0, 89)), /partial/);
});

void test('x224 request and confirm round-trip through their parsers', () => {
  assert.equal(parseConnectionRequest(buildConnectionRequest(PROTOCOL_SSL | PROTOCOL_HYBRID)), 3);
  assert.equal(parseConnectionConfirm(buildConnectionConfirm(PROTOCOL_SSL)), PROTOCOL_SSL);
  assert.throws(() => parseConnectionConfirm(buildConnectionRequest(PROTOCOL_SSL)), /tpdu code is 0xe0, expected 0xd0/);
  const failure = buildConnectionConfirm(5);
  failure[failure.length - 8] = 0x03;
  assert.throws(() => parseConnectionConfirm(failure), /negotiation failed with code 5/);
});
