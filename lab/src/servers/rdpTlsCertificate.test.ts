import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseConnectionConfirm } from './rdpTlsCertificate.js';

function confirm(negotiation: number[]): Buffer {
  const body = [0x0e, 0xd0, 0x00, 0x00, 0x12, 0x34, 0x00, ...negotiation];
  const length = 4 + body.length;
  return Buffer.from([0x03, 0x00, length >> 8, length & 0xff, ...body]);
}

test('reads the selected protocol from an RDP_NEG_RSP', () => {
  assert.equal(parseConnectionConfirm(confirm([0x02, 0x1f, 0x08, 0x00, 0x02, 0x00, 0x00, 0x00])).selectedProtocol, 2);
  assert.equal(parseConnectionConfirm(confirm([0x02, 0x00, 0x08, 0x00, 0x01, 0x00, 0x00, 0x00])).selectedProtocol, 1);
});

test('a confirm without negotiation means standard RDP security', () => {
  assert.equal(parseConnectionConfirm(confirm([])).selectedProtocol, 0);
});

test('a negotiation failure and other packets are errors', () => {
  assert.throws(() => parseConnectionConfirm(confirm([0x03, 0x00, 0x08, 0x00, 0x05, 0x00, 0x00, 0x00])), /failure code 5/);
  const request = confirm([]);
  request[5] = 0xe0;
  assert.throws(() => parseConnectionConfirm(request), /expected x224 connection confirm/);
  assert.throws(() => parseConnectionConfirm(Buffer.from([0x16, 0x03, 0x01])), /not a tpkt/);
});
