import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DISCOVERY_URN, DISPLAY_TYPE, MATCH_BY, readWsdMessage, utf8Bytes, writeWsdMessage, type WsdMessage } from '@lanterna/protocol/wsd';
import { WsdResponderCore, type Outgoing } from './wsdResponderCore.js';
import { discoveryLinks, linkOf, type NetworkLink } from './networkLinks.js';
import { displayEndpoint, farmDeviceSeed, startWsdInstance, wsdStateFile } from './wsdIdentity.js';
import { newInstanceTag, newPresenceOwner, ownedByInstance } from '../broker/presenceOwner.js';

const v4: NetworkLink = { interfaceName: 'eth0', family: 'IPv4', address: '10.0.0.2', netmask: '255.255.255.0' };
const v6: NetworkLink = { interfaceName: 'eth0', family: 'IPv6', address: 'fe80::2', netmask: 'ffff:ffff:ffff:ffff::' };
const links = [v4, v6];
const room = { id: 'room', endpoint: 'urn:uuid:0b5d1a52-8c4e-5b8f-9d3a-1f2e3d4c5b6a' };

function core(clock = { now: 0 }, perSourceRate = 100) {
  let n = 0;
  return new WsdResponderCore({
    instanceId: 42, xaddrOf: (id, link) => `http://${link.family === 'IPv6' ? `[${link.address}]` : link.address}:8443/wsd/${id}`,
    newMessageId: () => `urn:uuid:m${++n}`, random: () => 0.5, clock: () => clock.now, appMaxDelayMs: 500, perSourceRate,
  });
}

function read(outgoing: Outgoing): WsdMessage {
  const result = readWsdMessage(outgoing.bytes);
  assert.ok(result.ok);
  return result.message;
}

function probe(id: string, extra: Partial<{ matchBy: string; scopes: string[] }> = {}): Uint8Array {
  return utf8Bytes(writeWsdMessage({ kind: 'probe', header: { messageId: id, to: DISCOVERY_URN }, probe: { types: [DISPLAY_TYPE], scopes: extra.scopes ?? [], matchBy: extra.matchBy } }));
}

test('Hello per link when a display comes online, Bye when it goes; AppSequence rises; multicast copies follow SOAP-over-UDP', () => {
  const responder = core();
  const hellos = responder.setDisplays([room], links);
  assert.deepEqual(hellos.map((out) => [out.kind, out.destination.kind, out.destination.link.family]), [['hello', 'multicast', 'IPv4'], ['hello', 'multicast', 'IPv6']]);
  const hello = read(hellos[0] as Outgoing);
  assert.ok(hello.kind === 'hello');
  assert.deepEqual(hello.target.xaddrs, ['http://10.0.0.2:8443/wsd/room']);
  assert.deepEqual(hello.header.appSequence, { instanceId: 42, messageNumber: 1, sequenceId: undefined });
  assert.deepEqual(hellos[0]?.sendAtMs, [250, 400, 700, 1200], 'a random start (half of 500 ms) then gaps of 150, 300, 500 ms');
  assert.deepEqual(responder.setDisplays([room], links), [], 'no news, no message');
  const byes = responder.setDisplays([], links);
  assert.deepEqual(byes.map((out) => out.kind), ['bye', 'bye']);
  assert.equal(byes[0]?.sendAtMs[0], 0, 'Bye goes at once');
  assert.equal((read(byes[1] as Outgoing).header.appSequence?.messageNumber ?? 0) > 2, true);
});

test('a Probe is answered per matching display, unicast to the sender over its link; duplicates, foreign networks and unsupported rules are dropped', () => {
  const responder = core();
  responder.setDisplays([room], links);
  const answer = responder.receive(probe('urn:uuid:p1'), { address: '10.0.0.9', port: 5000 }, true, links);
  assert.equal(answer.kind, 'probe');
  assert.equal(answer.outgoing.length, 1);
  const match = answer.outgoing[0] as Outgoing;
  assert.deepEqual(match.destination, { kind: 'unicast', link: v4, address: '10.0.0.9', port: 5000 });
  assert.deepEqual(match.sendAtMs, [250, 400], 'multicast request: the random delay, then the unicast copy');
  const message = read(match);
  assert.ok(message.kind === 'probe-matches');
  assert.equal(message.header.relatesTo, 'urn:uuid:p1');
  assert.equal(responder.receive(probe('urn:uuid:p1'), { address: '10.0.0.9', port: 5000 }, true, links).dropped, 'duplicate');
  const direct = responder.receive(probe('urn:uuid:p2'), { address: 'fe80::9%eth0', port: 5000 }, false, links);
  const directMatch = direct.outgoing[0] as Outgoing;
  assert.equal(directMatch.sendAtMs[0], 0, 'a unicast request is answered at once');
  assert.match(new TextDecoder().decode(directMatch.bytes), /\[fe80::2\]:8443/);
  assert.equal(responder.receive(probe('urn:uuid:p3'), { address: '192.168.1.5', port: 5000 }, true, links).dropped, 'foreign-network');
  assert.equal(responder.receive(probe('urn:uuid:p4', { matchBy: MATCH_BY.ldap, scopes: ['ldap:///x'] }), { address: '10.0.0.9', port: 5000 }, true, links).dropped, 'unsupported-match-rule');
  assert.deepEqual(responder.receive(probe('urn:uuid:p5', { scopes: ['urn:lanterna:display:other'], matchBy: MATCH_BY.strcmp0 }), { address: '10.0.0.9', port: 5000 }, true, links).outgoing, []);
  assert.equal(responder.receive(utf8Bytes('<x/>'), { address: '10.0.0.9', port: 5000 }, true, links).dropped, 'not-soap');
});

test('Resolve names one endpoint; one source over its rate is dropped while another is served', () => {
  const clock = { now: 0 };
  const responder = core(clock, 5);
  responder.setDisplays([room], links);
  const resolve = utf8Bytes(writeWsdMessage({ kind: 'resolve', header: { messageId: 'urn:uuid:r1', to: DISCOVERY_URN }, endpoint: room.endpoint }));
  const resolved = responder.receive(resolve, { address: '10.0.0.9', port: 1 }, true, links);
  assert.equal(resolved.outgoing[0]?.kind, 'resolve-matches');
  const drops = Array.from({ length: 10 }, (_, i) => responder.receive(probe(`urn:uuid:f${i}`), { address: '10.0.0.66', port: 1 }, true, links).dropped);
  assert.equal(drops.filter((reason) => reason === 'rate-limited').length, 5);
  assert.equal(responder.receive(probe('urn:uuid:ok'), { address: '10.0.0.7', port: 1 }, true, links).outgoing.length, 1);
  clock.now += 1000;
  assert.equal(responder.receive(probe('urn:uuid:later'), { address: '10.0.0.66', port: 1 }, true, links).outgoing.length, 1, 'the bucket refills');
});

test('links: named interfaces, IPv6 link-local only; a source is placed by subnet or zone', () => {
  const all = {
    lo: [{ address: '127.0.0.1', netmask: '255.0.0.0', family: 'IPv4', mac: '', internal: true, cidr: null }],
    eth0: [
      { address: '10.0.0.2', netmask: '255.255.255.0', family: 'IPv4', mac: '', internal: false, cidr: null },
      { address: 'fd00::2', netmask: 'ffff:ffff:ffff:ffff::', family: 'IPv6', mac: '', internal: false, cidr: null, scopeid: 0 },
      { address: 'fe80::2', netmask: 'ffff:ffff:ffff:ffff::', family: 'IPv6', mac: '', internal: false, cidr: null, scopeid: 2 },
    ],
  } as unknown as Parameters<typeof discoveryLinks>[2];
  assert.deepEqual(discoveryLinks([], true, all).map((link) => link.address), ['10.0.0.2', 'fe80::2']);
  assert.deepEqual(discoveryLinks([], false, all).map((link) => link.address), ['10.0.0.2']);
  assert.deepEqual(discoveryLinks(['lo'], true, all).map((link) => link.address), ['127.0.0.1']);
  assert.equal(linkOf('10.0.0.200', links), v4);
  assert.equal(linkOf('10.0.1.200', links), undefined);
  assert.equal(linkOf('fe80::9', links), v6);
  assert.equal(linkOf('fe80::9%eth1', links), undefined);
});

test('InstanceId rises on every start and is written atomically; endpoint addresses are stable per display and gateway', () => {
  const dir = mkdtempSync(join(tmpdir(), 'lanterna-wsd-id-'));
  const first = startWsdInstance(dir, 1_000_000);
  const second = startWsdInstance(dir, 1_000_000);
  assert.equal(first.instanceId, 1000);
  assert.equal(second.instanceId, 1001, 'above the last one even when the clock did not move');
  assert.equal(second.deviceSeed, first.deviceSeed);
  assert.equal(startWsdInstance(dir, 5_000_000).instanceId, 5000, 'at least the time in seconds');
  assert.deepEqual(JSON.parse(readFileSync(wsdStateFile(dir), 'utf8')), { instanceId: 5000, deviceSeed: first.deviceSeed });
  assert.equal(displayEndpoint(first.deviceSeed, 'room'), displayEndpoint(first.deviceSeed, 'room'));
  assert.notEqual(displayEndpoint(first.deviceSeed, 'room'), displayEndpoint(first.deviceSeed, 'room2'));
  assert.match(displayEndpoint(first.deviceSeed, 'room'), /^urn:uuid:[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  writeFileSync(wsdStateFile(dir), 'not json');
  assert.throws(() => startWsdInstance(dir), /not valid JSON/);
});

test('in a farm: a display handed over to another gateway leaves without a Bye; one online again (a new InstanceId) is announced again with it', () => {
  const responder = core();
  const moved = { ...room, instanceId: 1000 };
  const hello = read(responder.setDisplays([moved], links)[0] as Outgoing);
  assert.equal(hello.header.appSequence?.instanceId, 1000, 'the display\'s own InstanceId, not the gateway\'s');
  assert.equal(hello.kind === 'hello' && hello.target.metadataVersion, 1000);
  assert.deepEqual(responder.setDisplays([], links, new Set(['room'])), [], 'another gateway holds it now: its Hello announces the endpoint there');
  const back = responder.setDisplays([{ ...room, instanceId: 1005 }], links);
  assert.deepEqual(back.map((out) => out.kind), ['hello', 'hello']);
  assert.equal(read(back[0] as Outgoing).header.appSequence?.instanceId, 1005);
  assert.deepEqual(responder.setDisplays([{ ...room, instanceId: 1007 }], links).map((out) => out.kind), ['hello', 'hello'], 'online again between two reads: announced again');
  const answer = responder.receive(probe('urn:uuid:p9'), { address: '10.0.0.9', port: 5000 }, true, links);
  assert.equal(read(answer.outgoing[0] as Outgoing).header.appSequence?.instanceId, 1007);
  assert.deepEqual(responder.setDisplays([], links).map((out) => out.kind), ['bye', 'bye'], 'offline everywhere: Bye');
});

test('a presence names its gateway instance; the farm\'s endpoint seed is one per session secret', () => {
  const tag = newInstanceTag();
  const owner = newPresenceOwner(tag);
  assert.ok(ownedByInstance(owner, tag));
  assert.ok(!ownedByInstance(owner, newInstanceTag()));
  assert.ok(!ownedByInstance(newPresenceOwner(), tag), 'an untagged owner (one gateway, embedded store) names nobody');
  assert.doesNotMatch(owner, /\s/, 'the Redis store keeps "<owner> <since>"');
  const secret = Buffer.from('session-secret-shared-by-the-farm-0123456789');
  assert.equal(farmDeviceSeed(secret), farmDeviceSeed(Buffer.from(secret)));
  assert.notEqual(farmDeviceSeed(secret), farmDeviceSeed(Buffer.from('another-farm-session-secret-0123456789')));
  assert.match(displayEndpoint(farmDeviceSeed(secret), 'room'), /^urn:uuid:[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
});
