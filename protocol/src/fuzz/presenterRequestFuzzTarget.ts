// The presenter API's projection request (what anyone in the building may
// POST): any JSON body is accepted or refused by the schema, never an
// exception; what is accepted names a target or an invitation, not both, has
// no key the schema does not know, and reads back equal after JSON.stringify.
import { invariant, textFuzzTarget, type SeededRandom } from '@lanterna/fuzzer';
import { projectionRequestSchema } from '../presenterMessages.js';

const KNOWN = new Set(['pin', 'target', 'credentials', 'assistance', 'settings']);

/** Reads `text` as the gateway does (JSON, then the schema); returns what happened. */
export function checkProjectionRequest(text: string): string {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return 'not json';
  }
  const parsed = projectionRequestSchema.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return `refused ${issue?.code ?? ''} at ${(issue?.path ?? []).map((part) => (typeof part === 'number' ? '#' : String(part))).join('.')}`;
  }
  const request = parsed.data;
  invariant((request.target === undefined) !== (request.assistance === undefined), 'accepted with both or neither of target and assistance');
  invariant(Object.keys(request).every((key) => KNOWN.has(key)), 'accepted an unknown key');
  const again = projectionRequestSchema.safeParse(JSON.parse(JSON.stringify(request)));
  invariant(again.success && JSON.stringify(again.data) === JSON.stringify(request), 'an accepted request reads back different');
  return `accepted ${request.target ? 'target' : 'assistance'}${request.settings ? ' with settings' : ''}`;
}

function generate(random: SeededRandom): Record<string, unknown> {
  const pick = <T>(items: readonly T[]): T => random.pick(items);
  const body: Record<string, unknown> = {};
  if (random.chance(0.7)) body.pin = pick(['012345', '', 'x'.repeat(33), '9999']);
  if (random.chance(0.6)) body.target = { host: pick(['10.0.0.5', 'rdp1.corp', '', 'h'.repeat(254)]), ...(random.chance(0.6) ? { port: pick([3389, 0, 65536, 1.5]) } : {}) };
  else body.assistance = { invitation: pick(['<UPLOADINFO/>', '']), password: pick(['48BJQ853X3B4', '']) };
  if (random.chance(0.1)) body.assistance = { invitation: 'x', password: '' };
  if (random.chance(0.3)) body.credentials = { username: pick(['u', '']), password: 'p', ...(random.chance(0.5) ? { domain: 'D' } : {}) };
  if (random.chance(0.4)) body.settings = { colorDepth: pick([16, 24, 32, 8]), gfx: random.chance(0.5), codecs: pick([['planar'], ['avc'], []]), ...(random.chance(0.3) ? { performance: { wallpaper: false } } : {}) };
  if (random.chance(0.05)) body.unknown = 1;
  return body;
}

export const fuzzTarget = textFuzzTarget({
  name: 'presenter-request',
  checks:
    'the presenter API\'s projection request on any body: accepted or refused by the schema, never an exception; accepted requests name a target or an invitation, ' +
    'not both, carry no unknown key, and read back equal after JSON.stringify',
  maxInputBytes: 16 * 1024,
  corpusExtension: '.json',
  dictionary: ['{', '}', '[', ']', ',', ':', '"', 'null', 'true', '0', '65535', '65536', '1e309', '"pin"', '"target"', '"host"', '"port"', '"credentials"', '"username"',
    '"password"', '"domain"', '"assistance"', '"invitation"', '"settings"', '"colorDepth"', '"gfx"', '"codecs"', '"performance"', '"wallpaper"', '"__proto__"', '"constructor"'],
  executeText: checkProjectionRequest,
  generateText: (random) => JSON.stringify(generate(random)),
});
