import { test } from 'node:test';
import assert from 'node:assert/strict';
import { tlsProtocolOf } from './rdpTlsCertificate.js';

function confirm(negotiation: number[]): Buffer {
  const body = [0xd0, 0x00, 0x00, 0x12, 0x34, 0x00, ...negotiation];
  const length = 5 + body.length;
  body.unshift(length - 5); // the X.224 length indicator
  return Buffer.from([0x03, 0x00, length >> 8, length & 0xff, ...body]);
}

test('reads the selected protocol from an RDP_NEG_RSP', () => {
  assert.equal(tlsProtocolOf(confirm([0x02, 0x1f, 0x08, 0x00, 0x02, 0x00, 0x00, 0x00])), 2);
  assert.equal(tlsProtocolOf(confirm([0x02, 0x00, 0x08, 0x00, 0x01, 0x00, 0x00, 0x00])), 1);
});

test('a confirm without negotiation means standard RDP security, which has no certificate to fetch', () => {
  assert.throws(() => tlsProtocolOf(confirm([])), /standard rdp security, no tls/);
});

test('a negotiation failure and other packets are errors', () => {
  assert.throws(() => tlsProtocolOf(confirm([0x03, 0x00, 0x08, 0x00, 0x05, 0x00, 0x00, 0x00])), /failure code 5/);
  const request = confirm([]);
  request[5] = 0xe0;
  assert.throws(() => tlsProtocolOf(request), /tpdu code is 0xe0, expected 0xd0/);
  assert.throws(() => tlsProtocolOf(Buffer.from([0x16, 0x03, 0x01])), /shorter than 11/);
});
