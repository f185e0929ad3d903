import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  ACTION, DEVICE_TYPE, DISPLAY_TYPE, MATCH_BY, NS, PROJECTOR_TYPE, projectorFault, projectorFaultOf, probeMatches,
  readWsdMessage, repetitionSchedule, scopesMatch, utf8Bytes, writeWsdMessage, type WsdMessage,
} from './index.js';

const endpoint = 'urn:uuid:0b5d1a52-8c4e-5b8f-9d3a-1f2e3d4c5b6a';
const target = { endpoint, types: [DEVICE_TYPE, DISPLAY_TYPE], scopes: ['urn:lanterna:room:blue'], xaddrs: ['https://10.0.0.2:8443/wsd/demo'], metadataVersion: 3 };
const header = { messageId: 'urn:uuid:11111111-2222-3333-4444-555555555555', to: 'urn:schemas-xmlsoap-org:ws:2005:04:discovery', appSequence: { instanceId: 7, messageNumber: 12 } };

function roundTrip(message: WsdMessage): WsdMessage {
  const read = readWsdMessage(utf8Bytes(writeWsdMessage(message)));
  assert.ok(read.ok, read.ok ? '' : `${read.reason}: ${read.detail}`);
  return read.message;
}

test('every message kind reads back as it was written', () => {
  const messages: WsdMessage[] = [
    { kind: 'hello', header, target },
    { kind: 'bye', header, endpoint },
    { kind: 'probe', header, probe: { types: [DISPLAY_TYPE, { namespace: 'urn:someone-else', local: 'Thing' }], scopes: ['http://a/b'], matchBy: MATCH_BY.strcmp0 } },
    { kind: 'probe-matches', header: { ...header, relatesTo: 'urn:uuid:x' }, matches: [target, { ...target, endpoint: 'urn:uuid:y' }] },
    { kind: 'resolve', header, endpoint },
    { kind: 'resolve-matches', header, matches: [target] },
    { kind: 'get', header: { messageId: 'urn:uuid:g', to: endpoint, replyTo: `${NS.wsa}/role/anonymous` } },
    {
      kind: 'get-response', header: { messageId: 'urn:uuid:r', relatesTo: 'urn:uuid:g' }, metadata: {
        model: { manufacturer: 'Lanterna', modelName: 'Lanterna display', modelNumber: '1', presentationUrl: 'https://10.0.0.2:8443/display/demo' },
        device: { friendlyName: 'Blue room <main> & "east"', firmwareVersion: '0.1.0', serialNumber: 'demo' },
        host: { endpoint, types: [DEVICE_TYPE, DISPLAY_TYPE] },
        hosted: [{ address: 'https://10.0.0.2:8443/wsd/demo/projector', types: [PROJECTOR_TYPE], serviceId: 'urn:lanterna:projector:demo' }],
        display: { id: 'demo', location: 'Building 2', state: 'presenting' },
      },
    },
    { kind: 'connect', header, request: { target: { host: '10.0.0.9', port: 3389, name: 'laptop' }, credentials: { username: 'u', password: ' p<w> ', domain: undefined }, invitation: undefined, pin: '1234', presenter: 'alice' } },
    { kind: 'connect', header, request: { target: undefined, credentials: undefined, invitation: { text: '<UPLOADINFO TYPE="Escalated"/>', password: 'pw' }, pin: undefined, presenter: undefined } },
    { kind: 'connect-response', header, response: { sessionId: 'abc', target: { host: '10.0.0.9', port: 3389 } } },
    { kind: 'connect-response', header, response: { sessionId: 'abc', target: { host: '10.0.0.9', port: 3389 }, stopToken: 'abc.mac' } },
    { kind: 'disconnect', header, request: { sessionId: 'abc' } },
    { kind: 'disconnect', header, request: { sessionId: 'abc', stopToken: 'abc.mac' } },
    { kind: 'disconnect', header, request: { sessionId: 'abc', pin: '482913' } },
    { kind: 'disconnect-response', header },
    { kind: 'fault', header, fault: projectorFault('DisplayBusy', 'the display is showing another presentation') },
  ];
  // JSON drops the fields left undefined on either side
  const plain = (value: unknown): unknown => JSON.parse(JSON.stringify(value));
  for (const message of messages) assert.deepEqual(plain(roundTrip(message)), plain(message), message.kind);
  const fault = roundTrip({ kind: 'fault', header, fault: projectorFault('TargetForbidden', 'no') });
  assert.equal(fault.kind === 'fault' ? projectorFaultOf(fault.fault) : undefined, 'TargetForbidden');
});

test('a Probe as wsdd writes it (its own prefixes, a Types QName with the wsdp prefix) is read', () => {
  const wsddProbe = '<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap="http://www.w3.org/2003/05/soap-envelope" '
    + 'xmlns:wsa="http://schemas.xmlsoap.org/ws/2004/08/addressing" xmlns:wsd="http://schemas.xmlsoap.org/ws/2005/04/discovery" '
    + 'xmlns:wsdp="http://schemas.xmlsoap.org/ws/2006/02/devprof"><soap:Header><wsa:To>urn:schemas-xmlsoap-org:ws:2005:04:discovery</wsa:To>'
    + '<wsa:Action>http://schemas.xmlsoap.org/ws/2005/04/discovery/Probe</wsa:Action><wsa:MessageID>urn:uuid:3bbbd1d2-5e2a-11ef-9e09-00163e5e6c00</wsa:MessageID>'
    + '</soap:Header><soap:Body><wsd:Probe><wsd:Types>wsdp:Device</wsd:Types></wsd:Probe></soap:Body></soap:Envelope>';
  const read = readWsdMessage(wsddProbe);
  assert.ok(read.ok && read.message.kind === 'probe');
  assert.deepEqual(read.message.probe.types, [DEVICE_TYPE]);
  assert.equal(read.message.header.messageId, 'urn:uuid:3bbbd1d2-5e2a-11ef-9e09-00163e5e6c00');
  // the same Probe with other prefixes (as Windows writes them) means the same
  const windows = wsddProbe.replaceAll('wsdp:', 'dp0:').replace('xmlns:wsdp=', 'xmlns:dp0=').replaceAll('soap:', 's:').replace('xmlns:soap=', 'xmlns:s=');
  const read2 = readWsdMessage(windows);
  assert.ok(read2.ok && read2.message.kind === 'probe');
  assert.deepEqual(read2.message.probe.types, [DEVICE_TYPE]);
});

test('hostile and foreign input is a reason, never an exception', () => {
  const probe = writeWsdMessage({ kind: 'probe', header, probe: { types: [], scopes: [] } });
  const cases: [string | Uint8Array, string][] = [
    [new Uint8Array(40_000), 'too-large'],
    [new Uint8Array([0x3c, 0xff, 0xfe]), 'malformed'],
    ['garbage', 'malformed'],
    [probe.replace('<?xml version="1.0" encoding="utf-8"?>', '<?xml version="1.0"?><!DOCTYPE x [<!ENTITY a "b">]>'), 'forbidden-markup'],
    [probe.replace('<wsd:Probe>', '<wsd:Probe>&a;'), 'forbidden-markup'],
    ['<Envelope/>', 'not-soap'],
    [probe.replace(ACTION.probe, 'urn:something-else'), 'unknown-action'],
    [probe.replace('<wsd:Probe>', '<wsd:Probe><wsd:Types>nope:Thing</wsd:Types>'), 'bad-body'],
    [probe.replace('<wsd:Probe></wsd:Probe>', '<wsd:Hello/>'), 'bad-body'],
    [probe.replace('InstanceId="7"', 'InstanceId="-1"'), 'bad-body'],
    [probe.slice(0, 200), 'malformed'],
  ];
  for (const [input, reason] of cases) {
    const read = readWsdMessage(input);
    assert.equal(read.ok ? 'ok' : read.reason, reason, typeof input === 'string' ? input.slice(0, 120) : `${input.byteLength} bytes`);
  }
});

test('Types and Scopes matching: RFC 2396 segment prefixes, strcmp0, uuid; LDAP is not supported', () => {
  const own = { types: [DEVICE_TYPE, DISPLAY_TYPE], scopes: ['http://Example.com/Building2/Floor3/', 'urn:lanterna:room:blue', 'uuid:0B5D1A52-8C4E-5B8F-9D3A-1F2E3D4C5B6A'] };
  assert.equal(probeMatches({ types: [], scopes: [] }, own), 'match');
  assert.equal(probeMatches({ types: [DISPLAY_TYPE], scopes: [] }, own), 'match');
  assert.equal(probeMatches({ types: [PROJECTOR_TYPE], scopes: [] }, own), 'no-match');
  assert.equal(probeMatches({ types: [{ namespace: NS.wsd, local: 'Device' }], scopes: [] }, own), 'no-match');
  assert.equal(scopesMatch(['http://example.COM/Building2'], own.scopes, undefined), 'match');
  assert.equal(scopesMatch(['HTTP://example.com/Building2/Floor3'], own.scopes, MATCH_BY.rfc2396), 'match');
  assert.equal(scopesMatch(['http://example.com/building2'], own.scopes, undefined), 'no-match');
  assert.equal(scopesMatch(['http://example.com/Build'], own.scopes, undefined), 'no-match');
  assert.equal(scopesMatch(['http://example.com/Building2/../Building2'], own.scopes, undefined), 'no-match');
  assert.equal(scopesMatch(['http://example.com/Building%32'], own.scopes, undefined), 'match');
  assert.equal(scopesMatch(['urn:lanterna:room:blue'], own.scopes, MATCH_BY.strcmp0), 'match');
  assert.equal(scopesMatch(['urn:lanterna:room:Blue'], own.scopes, MATCH_BY.strcmp0), 'no-match');
  assert.equal(scopesMatch(['urn:lanterna:room'], own.scopes, MATCH_BY.strcmp0), 'no-match');
  assert.equal(scopesMatch(['uuid:0b5d1a52-8c4e-5b8f-9d3a-1f2e3d4c5b6a'], own.scopes, MATCH_BY.uuid), 'match');
  assert.equal(scopesMatch(['ldap:///ou=x'], own.scopes, MATCH_BY.ldap), 'unsupported-rule');
  assert.equal(scopesMatch([], own.scopes, MATCH_BY.ldap), 'match');
});

test('SOAP-over-UDP repetition: 4 multicast copies, 2 unicast, gaps from [50, 250] ms doubling up to 500', () => {
  assert.deepEqual(repetitionSchedule(true, () => 0), [0, 50, 150, 350]);
  assert.deepEqual(repetitionSchedule(true, () => 0.9999), [0, 250, 750, 1250]);
  assert.deepEqual(repetitionSchedule(false, () => 0.5), [0, 150]);
});

test('mutated messages (flipped, cut, inserted bytes) are read or refused with a reason, never thrown on (bounded fuzz)', () => {
  const seeds = [
    writeWsdMessage({ kind: 'probe', header, probe: { types: [DISPLAY_TYPE], scopes: ['urn:x'] } }),
    writeWsdMessage({ kind: 'hello', header, target }),
    writeWsdMessage({ kind: 'connect', header, request: { target: { host: 'h', port: 3389 }, credentials: { username: 'u', password: 'p' } } }),
  ].map(utf8Bytes);
  fc.assert(fc.property(
    fc.constantFrom(...seeds),
    fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 }), fc.constantFrom('flip', 'cut', 'insert')), { minLength: 1, maxLength: 8 }),
    (seed, edits) => {
      let bytes = Uint8Array.from(seed);
      for (const [position, value, edit] of edits) {
        const at = position % (bytes.length + 1);
        if (edit === 'flip' && at < bytes.length) bytes[at] = value;
        else if (edit === 'cut') bytes = bytes.subarray(0, at);
        else bytes = Uint8Array.from([...bytes.subarray(0, at), value, ...bytes.subarray(at)]);
      }
      const read = readWsdMessage(bytes);
      assert.ok(read.ok || typeof read.reason === 'string');
    },
  ), { numRuns: 2000, seed: 13 });
});
