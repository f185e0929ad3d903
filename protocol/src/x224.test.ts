import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  buildConnectionConfirm,
  buildConnectionRequest,
  NEG_FAILURE,
  NEG_RSP_FLAG,
  parseConnectionConfirm,
  parseConnectionRequest,
  PROTOCOL,
  relayedProtocolName,
  selectedProtocol,
  NegotiationFailedError,
  X224Error,
} from './x224.js';

const hex = (s: string): Buffer => Buffer.from(s.replace(/\s+/g, ''), 'hex');
/** A Buffer view of the same bytes, for Buffer's comparisons and readers. */
const buf = (bytes: Uint8Array): Buffer => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);

// MS-RDPBCGR 4.1.1: Client X.224 Connection Request PDU, cookie "eltons", PROTOCOL_RDP.
const SPEC_REQUEST = hex(`03 00 00 2c 27 e0 00 00 00 00 00
  43 6f 6f 6b 69 65 3a 20 6d 73 74 73 68 61 73 68 3d 65 6c 74 6f 6e 73 0d 0a
  01 00 08 00 00 00 00 00`);
// MS-RDPBCGR 4.1.2: Server X.224 Connection Confirm PDU, PROTOCOL_RDP selected.
const SPEC_CONFIRM = hex('03 00 00 13 0e d0 00 00 12 34 00 02 00 08 00 00 00 00 00');

void test('the spec example Connection Request parses', () => {
  const request = parseConnectionRequest(SPEC_REQUEST);
  assert.equal(request.cookie, 'eltons');
  assert.equal(request.negotiation, true);
  assert.equal(request.requestedProtocols, PROTOCOL.RDP);
  assert.equal(request.flags, 0);
  assert.equal(request.routingToken, undefined);
  assert.ok(buf(buildConnectionRequest({ cookie: 'eltons', requestedProtocols: PROTOCOL.RDP })).equals(SPEC_REQUEST));
});

void test('the spec example Connection Confirm parses and rebuilds byte for byte', () => {
  const confirm = parseConnectionConfirm(SPEC_CONFIRM);
  assert.deepEqual(confirm, { kind: 'response', selectedProtocol: PROTOCOL.RDP, flags: 0 });
  assert.ok(buf(buildConnectionConfirm(confirm)).equals(SPEC_CONFIRM));
});

void test('requests round-trip: protocols, flags, cookie, routing token, correlation info, legacy', () => {
  const correlationId = hex('0102030405060708090a0b0c0d0e0f10');
  const cases = [
    { requestedProtocols: PROTOCOL.SSL | PROTOCOL.HYBRID | PROTOCOL.HYBRID_EX, cookie: 'rdpuser' },
    { requestedProtocols: PROTOCOL.SSL, flags: 0x01 },
    { requestedProtocols: PROTOCOL.HYBRID, routingToken: Buffer.from('Cookie: msts=3640205228.15629.0000') },
    { requestedProtocols: PROTOCOL.HYBRID_EX | PROTOCOL.RDSTLS, cookie: 'x', correlationId },
    { cookie: 'legacy' },
    {},
  ];
  for (const fields of cases) {
    const pdu = buildConnectionRequest(fields);
    assert.equal(buf(pdu).readUInt16BE(2), pdu.length);
    const parsed = parseConnectionRequest(pdu);
    assert.equal(parsed.requestedProtocols, fields.requestedProtocols ?? PROTOCOL.RDP);
    assert.equal(parsed.negotiation, fields.requestedProtocols !== undefined);
    assert.equal(parsed.cookie, fields.cookie);
    assert.deepEqual(parsed.routingToken && buf(parsed.routingToken), fields.routingToken);
    assert.deepEqual(parsed.correlationId && buf(parsed.correlationId), 'correlationId' in fields ? fields.correlationId : undefined);
    assert.equal(parsed.flags & 0x07, 'flags' in fields ? fields.flags : 0);
  }
});

void test('confirms round-trip: response with flags, failure, none', () => {
  const cases = [
    { kind: 'response', selectedProtocol: PROTOCOL.HYBRID_EX, flags: NEG_RSP_FLAG.EXTENDED_CLIENT_DATA_SUPPORTED | NEG_RSP_FLAG.DYNVC_GFX_PROTOCOL_SUPPORTED },
    { kind: 'failure', failureCode: NEG_FAILURE.HYBRID_REQUIRED_BY_SERVER },
    { kind: 'none' },
  ] as const;
  for (const confirm of cases) {
    const pdu = buildConnectionConfirm(confirm);
    assert.deepEqual(parseConnectionConfirm(pdu), confirm);
  }
  assert.equal(buildConnectionConfirm({ kind: 'none' }).length, 11);
  assert.equal(relayedProtocolName(PROTOCOL.HYBRID_EX), 'hybrid-ex');
  assert.equal(relayedProtocolName(PROTOCOL.RDP), undefined);
});

function mutate(pdu: Uint8Array, at: number, value: number): Buffer {
  const copy = Buffer.from(pdu);
  copy.writeUInt8(value, at);
  return copy;
}

void test('malformed requests are refused with a reason', () => {
  const good = buildConnectionRequest({ requestedProtocols: PROTOCOL.SSL, cookie: 'bob' });
  const cases: [Uint8Array, RegExp][] = [
    [good.subarray(0, 10), /shorter than 11/],
    [mutate(good, 0, 0x04), /does not start with a tpkt header/],
    [mutate(good, 3, good.length + 1), /tpkt length \d+ does not match/],
    [Buffer.concat([good, Buffer.alloc(1)]), /does not match the \d+ bytes given/],
    [mutate(good, 4, good.length - 4), /length indicator/],
    [mutate(good, 5, 0xd0), /tpdu code is 0xd0, expected 0xe0/],
    [mutate(good, good.length - 8, 0x02), /negotiation type is 2/],
    [mutate(good, good.length - 6, 0x09), /RDP_NEG_REQ length is 9/],
    [hex('03 00 00 10 0b e0 00 00 00 00 00 43 6f 6f 6b 69'), /not terminated by CR LF/],
    [hex('03 00 00 0f 0a e0 00 00 00 00 00 0d 0a 01 00'), /2 bytes after the cookie/],
    [buildConnectionRequest({ requestedProtocols: 1, flags: 0x08 }), /RDP_CORRELATION_INFO needs 36 bytes, 0 follow/],
  ];
  for (const [pdu, message] of cases) {
    assert.throws(() => parseConnectionRequest(pdu), (error: unknown) => {
      assert.ok(error instanceof X224Error, String(error));
      assert.equal(error.code, 'x224-invalid');
      assert.match(error.message, message);
      assert.doesNotMatch(error.message, /\.$/);
      return true;
    }, message.source);
  }
});

void test('malformed confirms are refused with a reason', () => {
  const good = buildConnectionConfirm({ kind: 'response', selectedProtocol: PROTOCOL.SSL, flags: 0 });
  const cases: [Uint8Array, RegExp][] = [
    [mutate(good, 5, 0xe0), /tpdu code is 0xe0, expected 0xd0/],
    [mutate(good, 4, 6), /length indicator 6/],
    [mutate(good, 11, 0x04), /negotiation type is 4/],
    [mutate(good, 13, 0x07), /response length is 7/],
    [hex('03 00 00 0f 0a d0 00 00 12 34 00 02 00 08 00'), /4 bytes of negotiation data/],
    [good.subarray(0, 11), /tpkt length 19 does not match the 11 bytes/],
  ];
  for (const [pdu, message] of cases) {
    assert.throws(() => parseConnectionConfirm(pdu), { name: 'X224Error', message });
  }
});

void test('builders refuse what cannot be encoded', () => {
  assert.throws(() => buildConnectionRequest({ cookie: 'a'.repeat(300) }), RangeError);
  assert.throws(() => buildConnectionRequest({ cookie: 'a', routingToken: Buffer.from('b') }), RangeError);
  assert.throws(() => buildConnectionRequest({ requestedProtocols: 1, correlationId: Buffer.alloc(3) }), RangeError);
});

void test('fields cut from a pdu are views of it, and a cookie reads as latin1', () => {
  const token = Buffer.from('Cookie: msts=3640205228.15629.0000');
  const pdu = Buffer.from(buildConnectionRequest({ requestedProtocols: PROTOCOL.SSL, routingToken: token }));
  const { routingToken } = parseConnectionRequest(pdu);
  assert.ok(routingToken);
  assert.equal(routingToken.buffer, pdu.buffer);
  assert.equal(routingToken.byteOffset, pdu.byteOffset + 11);
  assert.ok(Buffer.isBuffer(routingToken), 'a view of a Buffer is a Buffer');
  const accented = parseConnectionRequest(buildConnectionRequest({ cookie: 'Jos\u00e9', requestedProtocols: PROTOCOL.SSL }));
  assert.equal(accented.cookie, 'Jos\u00e9');
  assert.ok(buf(buildConnectionRequest({ cookie: 'Jos\u00e9' })).includes(Buffer.from('Jos\u00e9', 'latin1')));
});

void test('selectedProtocol: what a Confirm selected, RDP without negotiation, a typed error for a refusal', () => {
  assert.equal(selectedProtocol({ kind: 'response', selectedProtocol: PROTOCOL.HYBRID, flags: 0 }), PROTOCOL.HYBRID);
  assert.equal(selectedProtocol({ kind: 'none' }), PROTOCOL.RDP);
  assert.throws(() => selectedProtocol({ kind: 'failure', failureCode: NEG_FAILURE.SSL_REQUIRED_BY_SERVER }), (error: unknown) => {
    assert.ok(error instanceof NegotiationFailedError);
    assert.equal(error.failureCode, 1);
    assert.equal(error.code, 'negotiation-failed');
    assert.match(error.message, /^the server refused the requested security protocols with failure code 1$/);
    return true;
  });
});
