import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  parseGatewayControlMessage,
  parseGatewayDataMessage,
  parseKioskControlMessage,
  parseKioskDataMessage,
  readGatewayControlMessage,
  type GatewayToKioskMessage,
  type KioskMessageParse,
} from './kioskMessages.js';

function accepted<Message>(result: KioskMessageParse<Message>): Message {
  if (!result.ok) assert.fail(`refused: ${result.failure.message}`);
  return result.message;
}

function refused<Message>(result: KioskMessageParse<Message>, reason: string, message: RegExp): void {
  assert.equal(result.ok, false, 'accepted');
  assert.equal(result.failure.reason, reason);
  assert.match(result.failure.message, message);
  assert.match(result.failure.message, /^[a-z]/);
}

const json = (value: unknown): string => JSON.stringify(value);

void test('every message of the document reads back as sent, in its own direction only', () => {
  const project: GatewayToKioskMessage = {
    type: 'project', sessionId: 's1', sessionToken: 'k1', target: { name: 'room pc', host: '10.0.0.5', port: 3389 },
    credentials: { username: 'u', password: 'p', domain: 'd' },
    settings: { colorDepth: 32, gfx: false, codecs: ['planar'], performance: { wallpaper: false }, assistance: { invitation: '<x/>', password: 'pw' } },
  };
  const cases: [(text: string) => KioskMessageParse<unknown>, unknown][] = [
    [parseKioskControlMessage, { type: 'hello', protocol: 1, token: 'T', client: 'lanterna-web/0.1' }],
    [parseKioskControlMessage, { type: 'bye' }],
    [parseGatewayControlMessage, { type: 'welcome', protocol: 1, display: { id: 'room', name: 'Room' }, heartbeatMs: 15000 }],
    [parseGatewayControlMessage, project],
    [parseGatewayControlMessage, { type: 'project', sessionId: 's2', sessionToken: 'k2', target: { name: 'signage', host: '10.0.0.6', port: 3389 }, signage: true }],
    [parseGatewayControlMessage, { type: 'stop', sessionId: 's1', reason: 'stopped by an administrator' }],
    [parseGatewayControlMessage, { type: 'error', phase: 'hello', code: 'unauthorized', message: 'this display is not authorised', detail: {} }],
    [parseKioskDataMessage, { type: 'open', token: 'K' }],
    [parseKioskDataMessage, { type: 'ping', t: 12.5 }],
    [parseKioskDataMessage, { type: 'close' }],
    [parseGatewayDataMessage, {
      type: 'secured', protocol: 'hybrid-ex', tlsVersion: 'TLSv1.3', cipher: 'TLS_AES_256_GCM_SHA384', certificates: ['MIIB'],
      publicKey: 'MIIBCgKC', fingerprint: 'sha256:AA:BB', trust: 'first-use',
    }],
    [parseGatewayDataMessage, { type: 'ended', reason: 'server-closed' }],
    [parseGatewayDataMessage, { type: 'pong', t: 12.5 }],
    [parseGatewayDataMessage, { type: 'error', phase: 'tls', code: 'certificate-changed', message: 'changed', detail: { fingerprint: 'x' } }],
  ];
  const readers: ((text: string) => KioskMessageParse<unknown>)[] = [parseKioskControlMessage, parseGatewayControlMessage, parseKioskDataMessage, parseGatewayDataMessage];
  // The gateway's `error` is the one message both of its sockets carry.
  const readsErrors = new Set(readers.filter((reader) => reader === parseGatewayControlMessage || reader === parseGatewayDataMessage));
  for (const [reader, message] of cases) {
    assert.deepEqual(accepted(reader(json(message))), message);
    const isError = (message as { type: string }).type === 'error';
    for (const other of readers) {
      if (other === reader || (isError && readsErrors.has(other))) continue;
      refused(other(json(message)), 'unknown-type', /^unknown message type "/);
    }
  }
});

void test('unknown fields are dropped, missing optional text gets its default', () => {
  assert.deepEqual(accepted(parseKioskDataMessage(json({ type: 'close', extra: 1 }))), { type: 'close' });
  assert.deepEqual(accepted(parseGatewayControlMessage(json({ type: 'stop', sessionId: 's' }))), { type: 'stop', sessionId: 's', reason: '' });
  assert.deepEqual(accepted(parseGatewayControlMessage(json({ type: 'welcome', protocol: 1, display: { id: 'a', name: 'A', colour: 'red' } }))), {
    type: 'welcome', protocol: 1, display: { id: 'a', name: 'A' }, heartbeatMs: 15000,
  });
  assert.deepEqual(accepted(parseGatewayDataMessage(json({ type: 'error', phase: 'relay', code: 'from-the-future' }))), {
    type: 'error', phase: 'relay', code: 'from-the-future', message: '',
  });
  const settings = accepted(parseGatewayControlMessage(json({
    type: 'project', sessionId: 's', sessionToken: 'k', target: { name: 'n', host: 'h', port: 1 }, settings: { gfx: true, future: 1, performance: { themes: false, future: 2 } },
  })));
  assert.deepEqual(settings.type === 'project' ? settings.settings : undefined, { gfx: true, performance: { themes: false } });
});

void test('what is not a message, an unknown type and a bad field are typed failures that say where', () => {
  refused(parseKioskControlMessage('{"type":'), 'not-json', /not json/);
  refused(parseKioskControlMessage('[1]'), 'not-a-message', /not a json object/);
  refused(parseKioskControlMessage('null'), 'not-a-message', /not a json object/);
  refused(parseKioskControlMessage('{"protocol":1}'), 'not-a-message', /no string type/);
  refused(parseKioskControlMessage(json({ type: 'toString' })), 'unknown-type', /unknown message type "toString"/);
  refused(parseKioskControlMessage(json({ type: 'hello', protocol: '1', token: 'T' })), 'invalid', /^hello\.protocol: expected number$/);
  refused(parseKioskDataMessage(json({ type: 'ping' })), 'invalid', /^ping\.t: expected number$/);
  refused(parseKioskDataMessage(json({ type: 'ping', t: 'now' })), 'invalid', /^ping\.t: /);
  refused(parseGatewayControlMessage(json({ type: 'project', sessionId: 's', sessionToken: 'k', target: { name: 'n', host: 'h', port: 0 } })), 'invalid', /^project\.target\.port: value must be at least 1$/);
  refused(parseGatewayControlMessage(json({ type: 'project', sessionId: 's', sessionToken: 'k', target: { name: 'n', host: 'h', port: 1 }, signage: 'yes' })), 'invalid', /^project\.signage: expected boolean$/);
  refused(parseGatewayControlMessage(json({ type: 'project', sessionId: 's', sessionToken: 'k', target: { name: 'n', host: 'h', port: 1 }, settings: { codecs: ['avc'] } })), 'invalid', /^project\.settings\.codecs\.0: expected "planar" or "remotefx" or "progressive" or "avc420" or "avc444"$/);
  refused(parseGatewayDataMessage(json({ type: 'secured', protocol: 'rdp', certificates: [], publicKey: '', trust: 'ca' })), 'invalid', /^secured\.protocol: expected "ssl" or "hybrid" or "hybrid-ex"$/);
  const unknown = parseGatewayDataMessage(json({ type: 'video' }));
  assert.equal(unknown.ok ? undefined : unknown.failure.type, 'video');
});

void test('display: a rename or move while connected, read like welcome\'s display', () => {
  const message = { type: 'display', display: { id: 'r', name: 'Boardroom 2.01', location: 'Floor 2' } };
  assert.deepEqual(accepted(parseGatewayControlMessage(json(message))), message);
  refused(parseGatewayControlMessage(json({ type: 'display', display: { id: 'r' } })), 'invalid', /^display\.display\.name: expected string$/);
  refused(parseKioskControlMessage(json(message)), 'unknown-type', /unknown message type "display"/);
});

void test('a number that is not whole is not a protocol version', () => {
  refused(parseKioskControlMessage(json({ type: 'hello', protocol: 1.5, token: 'T' })), 'invalid', /^hello\.protocol: /);
});

// Seen while checking which blocks the fuzz campaign did not reach: a
// heartbeat of 0 was refused with "must be at least 0", which 0 is.
void test('an exclusive bound is worded as one', () => {
  const welcome = (heartbeatMs: number): string => json({ type: 'welcome', protocol: 1, display: { id: 'a', name: 'b' }, heartbeatMs });
  refused(parseGatewayControlMessage(welcome(0)), 'invalid', /^welcome\.heartbeatMs: value must be more than 0$/);
  refused(parseGatewayControlMessage(welcome(-1)), 'invalid', /^welcome\.heartbeatMs: value must be more than 0$/);
  refused(parseGatewayControlMessage(json({ type: 'project', sessionId: 's', sessionToken: 'k', target: { name: 'n', host: 'h', port: 65536 } })), 'invalid', /^project\.target\.port: value must be at most 65535$/);
});

void test('room PIN messages: hello announces features, welcome may carry a location, room carries the PIN', () => {
  assert.deepEqual(accepted(parseKioskControlMessage(json({ type: 'hello', protocol: 1, token: 't', features: ['room'] }))), { type: 'hello', protocol: 1, token: 't', features: ['room'] });
  refused(parseKioskControlMessage(json({ type: 'hello', protocol: 1, token: 't', features: Array<string>(17).fill('x') })), 'invalid', /^hello\.features: length must be at most 16$/);
  const welcome = { type: 'welcome', protocol: 1, display: { id: 'r', name: 'Room', location: 'Floor 2' }, heartbeatMs: 1000 };
  assert.deepEqual(accepted(parseGatewayControlMessage(json(welcome))), welcome);
  const room = { type: 'room', pin: '012345', expiresAt: 1_767_225_600_000, presenterUrl: 'https://gw/present?display=r' };
  assert.deepEqual(accepted(parseGatewayControlMessage(json(room))), room);
  refused(parseGatewayControlMessage(json({ ...room, pin: '12ab56' })), 'invalid', /^room\.pin: /);
  refused(parseGatewayControlMessage(json({ ...room, pin: 123456 })), 'invalid', /^room\.pin: expected string$/);
  refused(parseKioskControlMessage(json(room)), 'unknown-type', /unknown message type "room"/);
});

void test('figures: a display\'s report of what it showed, bounded; welcome names the messages the gateway reads', () => {
  const figures = { type: 'figures', sessionId: 's-1', intervalMs: 1000, presents: 24, messages: 130, bytes: 1_234_567 };
  assert.deepEqual(accepted(parseKioskControlMessage(json(figures))), figures);
  refused(parseKioskControlMessage(json({ ...figures, presents: -1 })), 'invalid', /^figures\.presents: value must be at least 0$/);
  refused(parseKioskControlMessage(json({ ...figures, presents: 2.5 })), 'invalid', /^figures\.presents: /);
  refused(parseKioskControlMessage(json({ ...figures, presents: 10_001 })), 'invalid', /^figures\.presents: value must be at most 10000$/);
  assert.deepEqual(accepted(parseKioskControlMessage(json({ ...figures, frames: 20 }))), { ...figures, frames: 20 }, 'frames: the presents that carried new pixels');
  refused(parseKioskControlMessage(json({ ...figures, frames: 10_001 })), 'invalid', /^figures\.frames: value must be at most 10000$/);
  refused(parseKioskControlMessage(json({ ...figures, frames: -1 })), 'invalid', /^figures\.frames: value must be at least 0$/);
  refused(parseKioskControlMessage(json({ ...figures, intervalMs: 0 })), 'invalid', /^figures\.intervalMs: value must be at least 1$/);
  refused(parseKioskControlMessage(json({ ...figures, intervalMs: 60_000 })), 'invalid', /^figures\.intervalMs: value must be at most 10000$/);
  refused(parseKioskControlMessage(json({ ...figures, sessionId: 'x'.repeat(129) })), 'invalid', /^figures\.sessionId: /);
  refused(parseKioskControlMessage(json({ ...figures, bytes: '12' })), 'invalid', /^figures\.bytes: expected number$/);
  refused(parseGatewayControlMessage(json(figures)), 'unknown-type', /unknown message type "figures"/);
  const welcome = { type: 'welcome', protocol: 1, display: { id: 'r', name: 'Room' }, heartbeatMs: 1000, features: ['figures'] };
  assert.deepEqual(accepted(parseGatewayControlMessage(json(welcome))), welcome);
});

void test('sound: the admin\'s volume and mute to the display; the display\'s sound in its figures', () => {
  const message = { type: 'sound', volume: 40, muted: false };
  assert.deepEqual(accepted(parseGatewayControlMessage(json(message))), message);
  refused(parseGatewayControlMessage(json({ ...message, volume: 101 })), 'invalid', /^sound\.volume: value must be at most 100$/);
  refused(parseGatewayControlMessage(json({ ...message, volume: 12.5 })), 'invalid', /^sound\.volume: /);
  refused(parseGatewayControlMessage(json({ type: 'sound', volume: 40 })), 'invalid', /^sound\.muted: expected boolean$/);
  refused(parseKioskControlMessage(json(message)), 'unknown-type', /unknown message type "sound"/);
  const figures = { type: 'figures', sessionId: 's-1', intervalMs: 1000, presents: 24, messages: 130, bytes: 1_234_567, sound: { playing: true, state: 'running', delayMs: 61.5 } };
  assert.deepEqual(accepted(parseKioskControlMessage(json(figures))), figures);
  refused(parseKioskControlMessage(json({ ...figures, sound: { ...figures.sound, state: 'loud' } })), 'invalid', /^figures\.sound\.state: /);
  refused(parseKioskControlMessage(json({ ...figures, sound: { ...figures.sound, delayMs: -1 } })), 'invalid', /^figures\.sound\.delayMs: value must be at least 0$/);
});

test('a display reads a control message, or closes with bad-message\'s 4400 on one it cannot read', () => {
  const closes: [number, string][] = [];
  const refuse = (closeCode: number, reason: string): void => { closes.push([closeCode, reason]); };
  assert.deepEqual(readGatewayControlMessage(json({ type: 'stop', sessionId: 's' }), refuse), { type: 'stop', sessionId: 's', reason: '' });
  assert.deepEqual(closes, []);
  assert.equal(readGatewayControlMessage('{"type":"stop"', refuse), undefined);
  assert.equal(readGatewayControlMessage(json({ type: 'figures' }), refuse), undefined);
  assert.deepEqual(closes, [[4400, 'unreadable message'], [4400, 'unreadable message']]);
});
