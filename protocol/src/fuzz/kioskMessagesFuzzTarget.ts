// The kiosk messages' fuzz invariant, for all six readers (control, data and
// presenter socket, each direction): any text gives `{ ok: true, message }` or a typed
// failure, never an exception; a failure's text is lower case without a
// final period; a message read is of the `type` the text named, and reads
// back the same after JSON.stringify (what the sender does with it).
import { invariant, textFuzzTarget, type SeededRandom } from '@lanterna/fuzzer';
import {
  parseGatewayControlMessage,
  parseGatewayDataMessage,
  parseKioskControlMessage,
  parseKioskDataMessage,
  type KioskMessageFailureReason,
  type KioskMessageParse,
} from '../kioskMessages.js';
import { parseGatewayPresenterMessage, parsePresenterLegMessage } from '../presenterLeg.js';

type Reader = (text: string) => KioskMessageParse<{ readonly type: string }>;

const READERS: readonly (readonly [string, Reader])[] = [
  ['kiosk-control', parseKioskControlMessage],
  ['gateway-control', parseGatewayControlMessage],
  ['kiosk-data', parseKioskDataMessage],
  ['gateway-data', parseGatewayDataMessage],
  // the presenter socket's (docs/kiosk-protocol.md "Presenter socket"), the same reader machinery
  ['presenter-leg', parsePresenterLegMessage],
  ['gateway-presenter', parseGatewayPresenterMessage],
];

const REASONS: readonly KioskMessageFailureReason[] = ['not-json', 'not-a-message', 'unknown-type', 'invalid'];

/**
 * JSON values only, in plain objects and arrays (no prototype taken from the
 * text). Numbers may be infinite: JSON.parse reads 1e999 as Infinity, which
 * only `error.detail` (free-form) can hold; JSON.stringify sends it as null.
 */
function isPlainData(value: unknown): boolean {
  if (value === null || typeof value === 'string' || typeof value === 'boolean' || typeof value === 'number') return true;
  if (typeof value !== 'object') return false;
  const prototype: unknown = Object.getPrototypeOf(value);
  if (Array.isArray(value)) return prototype === Array.prototype && value.every(isPlainData);
  return prototype === Object.prototype && Object.values(value).every(isPlainData);
}

function typeOf(text: string): unknown {
  try {
    return (JSON.parse(text) as { type?: unknown } | null)?.type;
  } catch {
    return undefined;
  }
}

/** Runs the six readers on `text`; returns what each made of it. */
export function checkKioskMessages(text: string): string {
  const outcomes: string[] = [];
  for (const [name, read] of READERS) {
    const result = read(text);
    if (result.ok) {
      invariant(result.message.type === typeOf(text), `${name} read a ${result.message.type} message from text of another type`);
      const again = read(JSON.stringify(result.message));
      invariant(again.ok, `${name}: a ${result.message.type} message does not read back after JSON.stringify: ${again.ok ? '' : again.failure.message}`);
      invariant(isPlainData(result.message), `${name}: a ${result.message.type} message is not plain JSON data`);
      const { t } = result.message as { t?: unknown };
      invariant(t === undefined || Number.isFinite(t), `${name}: a ${result.message.type} message with a number that is not finite`);
      // Compared as JSON text: -0 is sent as 0, which is no change.
      invariant(JSON.stringify(again.message) === JSON.stringify(result.message), `${name}: a ${result.message.type} message reads back different after JSON.stringify`);
      outcomes.push(`${name} ${result.message.type}`);
    } else {
      const { reason, message, type } = result.failure;
      invariant(REASONS.includes(reason), `${name}: unknown failure reason ${reason}`);
      // An unknown type is quoted (cut to 64 characters): a final "." may be the sender's own.
      invariant(/^[a-z]/.test(message) && (reason === 'unknown-type' || !message.endsWith('.')) && message.length <= 200, `${name}: badly formed ${reason} message`);
      invariant(reason !== 'unknown-type' && reason !== 'invalid' ? type === undefined : typeof type === 'string', `${name}: failure ${reason} with type ${String(type)}`);
      // The type of an unknown message is the sender's text, not a path.
      outcomes.push(`${name} ${reason === 'unknown-type' ? reason : message}`);
    }
  }
  return outcomes.join(' / ');
}

// Generators of valid messages of every type, with values near the schemas' edges.
const CHARACTERS = ['a', 'Z', '0', ' ', '"', '\\', '/', '\n', '\u0000', '\u00e9', '\u2028', '\ud83d\ude00', '\ud800', '<', '&'];

function text(random: SeededRandom): string {
  let out = '';
  for (let i = random.skewed(40); i > 0; i--) out += random.pick(CHARACTERS);
  return out;
}

function integer(random: SeededRandom): number {
  return random.pick([0, 1, 2, -1, 65535, 65536, 2 ** 31, 2 ** 53 - 1, random.below(100_000)]);
}

function number(random: SeededRandom): number {
  return random.pick([0, -0, 1.5, -1, 1e308, 5e-324, 15_000, random.next() / 7]);
}

function optional<T>(random: SeededRandom, value: () => T): { value?: T } {
  return random.chance(0.5) ? { value: value() } : {};
}

function maybe<K extends string, T>(random: SeededRandom, key: K, value: () => T): Partial<Record<K, T>> {
  const picked = optional(random, value);
  return 'value' in picked ? ({ [key]: picked.value } as Partial<Record<K, T>>) : {};
}

function settings(random: SeededRandom): Record<string, unknown> {
  return {
    ...maybe(random, 'colorDepth', () => random.pick([16, 24, 32])),
    ...maybe(random, 'gfx', () => random.chance(0.5)),
    ...maybe(random, 'codecs', () => ['planar', 'remotefx', 'progressive', 'avc420', 'avc444'].filter(() => random.chance(0.5))),
    ...maybe(random, 'performance', () => ({ ...maybe(random, 'wallpaper', () => random.chance(0.5)), ...maybe(random, 'themes', () => random.chance(0.5)) })),
    ...maybe(random, 'assistance', () => ({ invitation: text(random), password: text(random) })),
  };
}

function message(random: SeededRandom): Record<string, unknown> {
  switch (random.below(14)) {
    case 0:
      return {
        type: 'hello', protocol: integer(random), token: text(random), ...maybe(random, 'client', () => text(random)),
        ...maybe(random, 'features', () => Array.from({ length: random.chance(0.9) ? random.below(3) : 17 }, () => (random.chance(0.7) ? 'room' : text(random)))),
      };
    case 1:
      return { type: 'bye' };
    case 2:
      return {
        type: 'welcome', protocol: 1, display: { id: text(random), name: text(random), ...maybe(random, 'location', () => text(random)) },
        ...maybe(random, 'heartbeatMs', () => (random.chance(0.8) ? number(random) : random.pick([0, -1]))),
      };
    case 3:
      return {
        type: 'project', sessionId: text(random), sessionToken: text(random),
        // Mostly valid ports, sometimes just past either end.
        target: { name: text(random), host: text(random), port: random.chance(0.9) ? random.between(1, 65535) : random.pick([0, -1, 65536, 1.5]) },
        ...maybe(random, 'credentials', () => ({ username: text(random), password: text(random), ...maybe(random, 'domain', () => text(random)) })),
        ...maybe(random, 'settings', () => settings(random)),
      };
    case 4:
      return { type: 'stop', sessionId: text(random), ...maybe(random, 'reason', () => text(random)) };
    case 5:
      return {
        type: 'error', phase: random.pick(['hello', 'open', 'request', 'connect', 'x224', 'tls', 'relay']), code: text(random),
        ...maybe(random, 'message', () => text(random)),
        ...maybe(random, 'detail', () => ({ failureCode: integer(random), supported: [1], alert: text(random) })),
      };
    case 6:
      return random.chance(0.5)
        ? { type: 'open', token: text(random) }
        : { type: 'present', token: text(random), publicKey: random.chance(0.8) ? 'MFkwEwYHKoZIzj0CAQ==' : text(random), ...maybe(random, 'certificate', () => 'MIIB') };
    case 7:
      return { type: 'ping', t: number(random) };
    case 8:
      return { type: 'close' };
    case 9:
      return {
        type: 'secured', protocol: random.pick(['ssl', 'hybrid', 'hybrid-ex']), certificates: Array.from({ length: random.below(3) }, () => text(random)),
        publicKey: text(random), trust: random.pick(['pinned', 'first-use', 'ca', 'insecure', 'presenter']),
        ...maybe(random, 'tlsVersion', () => 'TLSv1.3'), ...maybe(random, 'cipher', () => text(random)), ...maybe(random, 'fingerprint', () => text(random)),
      };
    case 10:
      return { type: 'ended', ...maybe(random, 'reason', () => random.pick(['server-closed', 'client-closed', 'stopped', 'gateway-shutdown'])) };
    case 11:
      return { type: 'pong', t: number(random) };
    case 12:
      return random.chance(0.5)
        ? { type: text(random), extra: text(random) }
        : { type: 'room', pin: random.chance(0.9) ? String(random.below(10 ** random.between(4, 10))).padStart(4, '0') : text(random), expiresAt: number(random), presenterUrl: text(random) };
    default:
      return { type: 'hello', protocol: 1, token: 'T', unknownField: { nested: [1, 2, 3] } };
  }
}

export const fuzzTarget = textFuzzTarget({
  name: 'kiosk-messages',
  checks:
    'the six readers (control, data and presenter socket, each direction) on any text: a message or a typed failure, never an exception; ' +
    'failures lower case without a final period; a message read has the type the text named and reads back equal after JSON.stringify',
  maxInputBytes: 16 * 1024,
  corpusExtension: '.json',
  dictionary: [
    '{', '}', '[', ']', ',', ':', '"', '\\u0000', '\\ud800', 'null', 'true', 'false', '-0', '1e309', '1.5', '0', '65535', '65536', '[]', '{}', '""',
    '"type"', '"hello"', '"bye"', '"welcome"', '"project"', '"stop"', '"error"', '"open"', '"ping"', '"close"', '"secured"', '"ended"', '"pong"',
    '"protocol"', '"token"', '"client"', '"display"', '"id"', '"name"', '"heartbeatMs"', '"sessionId"', '"sessionToken"', '"target"', '"host"', '"port"',
    '"credentials"', '"username"', '"password"', '"domain"', '"settings"', '"colorDepth"', '"gfx"', '"codecs"', '"performance"', '"assistance"',
    '"invitation"', '"reason"', '"phase"', '"code"', '"message"', '"detail"', '"t"', '"tlsVersion"', '"cipher"', '"certificates"', '"publicKey"',
    '"fingerprint"', '"trust"', '"ssl"', '"hybrid-ex"', '"pinned"', '"first-use"', '"planar"', '"__proto__"', '"constructor"', '"toString"', '"prototype"',
    '"room"', '"pin"', '"expiresAt"', '"presenterUrl"', '"features"', '"location"', '"012345"',
  ],
  executeText: checkKioskMessages,
  generateText(random) {
    const value = message(random);
    return random.chance(0.2) ? JSON.stringify(value, null, random.below(3)) : JSON.stringify(value);
  },
});
