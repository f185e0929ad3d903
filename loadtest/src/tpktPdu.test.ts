import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildConnectionConfirm, buildConnectionRequest, countWholePdus, PduStreamCounter, PROTOCOL } from '@lanterna/protocol';
import { expectTlsConfirm } from './tlsConfirm.js';
import { buildTpktPdu } from './tpktPdu.js';

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

void test('the pdus the load test sends are whole PDUs to the protocol package, coalesced or cut anywhere', () => {
  const stream = Buffer.concat([buildTpktPdu(10), buildTpktPdu(300), buildTpktPdu(7), buildTpktPdu(65535)]);
  assert.equal(countWholePdus(stream, 'rdp').count, 4);
  assert.throws(() => countWholePdus(stream.subarray(0, 309), 'rdp'), { code: 'pdu-invalid' });
  for (let cut = 0; cut <= 400; cut += 1) {
    const counter = new PduStreamCounter();
    assert.equal(counter.push(stream.subarray(0, cut)) + counter.push(stream.subarray(cut)), 4, `cut at ${cut}`);
  }
});

void test('expectTlsConfirm accepts only a Confirm that selects TLS', () => {
  expectTlsConfirm(buildConnectionConfirm({ kind: 'response', selectedProtocol: PROTOCOL.SSL, flags: 0 }), 'server');
  assert.throws(() => expectTlsConfirm(buildConnectionConfirm({ kind: 'response', selectedProtocol: PROTOCOL.HYBRID, flags: 0 }), 'server'), /server selected protocol 2, not ssl/);
  assert.throws(() => expectTlsConfirm(buildConnectionConfirm({ kind: 'none' }), 'gateway'), /gateway selected protocol 0/);
  assert.throws(() => expectTlsConfirm(buildConnectionConfirm({ kind: 'failure', failureCode: 5 }), 'server'), /refused the negotiation with code 5/);
  assert.throws(() => expectTlsConfirm(buildConnectionRequest({ requestedProtocols: PROTOCOL.SSL }), 'server'), /tpdu code is 0xe0, expected 0xd0/);
});
