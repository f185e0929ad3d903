// The X.224 parsers' fuzz invariant: any bytes either parse or throw
// X224Error (never RangeError from reading past the end, never a hang), and
// whatever parses survives a rebuild-and-parse round trip unchanged.
import { AssertionError, deepStrictEqual } from 'node:assert';
import type { FuzzTarget, SeededRandom } from '@lanterna/fuzzer';
import {
  buildConnectionConfirm,
  buildConnectionRequest,
  NegotiationFailedError,
  parseConnectionConfirm,
  parseConnectionRequest,
  PROTOCOL,
  relayedProtocolName,
  selectedProtocol,
  X224Error,
  type ConnectionConfirm,
  type ConnectionRequest,
} from '../x224.js';

/** The parsed value, or the X224Error's message (any other exception goes through). */
function parseOrError<T>(parse: (pdu: Uint8Array) => T, pdu: Uint8Array): T | X224Error {
  try {
    return parse(pdu);
  } catch (error) {
    if (error instanceof X224Error) return error;
    throw error;
  }
}

function roundTripRequest(request: ConnectionRequest): void {
  const rebuilt = buildConnectionRequest({
    ...(request.negotiation ? { requestedProtocols: request.requestedProtocols, flags: request.flags } : {}),
    ...(request.cookie === undefined ? {} : { cookie: request.cookie }),
    ...(request.routingToken === undefined ? {} : { routingToken: request.routingToken }),
    ...(request.correlationId === undefined ? {} : { correlationId: request.correlationId }),
    sourceReference: request.sourceReference,
  });
  deepStrictEqual(parseConnectionRequest(rebuilt), request);
}

function roundTripConfirm(confirm: ConnectionConfirm): void {
  deepStrictEqual(parseConnectionConfirm(buildConnectionConfirm(confirm)), confirm);
  // What the gateway does next with a Confirm: the protocol chosen, or the server's refusal.
  let chosen: number;
  try {
    chosen = selectedProtocol(confirm);
  } catch (error) {
    if (!(error instanceof NegotiationFailedError) || confirm.kind !== 'failure' || error.failureCode !== confirm.failureCode) throw error;
    return;
  }
  const name = relayedProtocolName(chosen);
  if (name !== undefined && ![PROTOCOL.SSL, PROTOCOL.HYBRID, PROTOCOL.HYBRID_EX].includes(chosen as 1 | 2 | 8)) {
    throw new AssertionError({ message: `protocol ${chosen} relayed as ${name}` });
  }
}

function checkMessage(error: X224Error): void {
  if (!/^[a-z]/i.test(error.message) || error.message.endsWith('.')) {
    throw new AssertionError({ message: `badly formed X224Error message: ${error.message}` });
  }
}

/** Feeds the bytes to both parsers; returns what each made of them. */
export function checkX224(input: Uint8Array): string {
  // Plain Uint8Array views, so fields parsed from the input compare equal to
  // those parsed from the rebuilt PDU (the builders make Uint8Arrays).
  const data = new Uint8Array(input.buffer, input.byteOffset, input.length);
  const request = parseOrError(parseConnectionRequest, data);
  if (request instanceof X224Error) checkMessage(request);
  else roundTripRequest(request);
  const confirm = parseOrError(parseConnectionConfirm, data);
  if (confirm instanceof X224Error) checkMessage(confirm);
  else roundTripConfirm(confirm);
  if (!(request instanceof X224Error) && !(confirm instanceof X224Error)) throw new AssertionError({ message: 'bytes parsed as both a request and a confirm' });
  const describe = (result: object): string =>
    result instanceof X224Error ? result.message.replace(/got [0-9a-f]+$/, 'got bytes') : 'kind' in result ? `confirm ${String(result.kind)}` : 'request';
  return `${describe(request)} / ${describe(confirm)}`;
}

/** libFuzzer/Jazzer.js-style entry: feeds the bytes to both parsers. */
export function fuzzX224(input: Uint8Array): void {
  checkX224(input);
}

const COOKIE_CHARACTERS = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-@\\ =;:\r\u00e9\u00ff';

function cookie(random: SeededRandom): string {
  let text = '';
  for (let i = random.skewed(60); i > 0; i--) text += COOKIE_CHARACTERS[random.below(COOKIE_CHARACTERS.length)] ?? 'a';
  return text.replace(/\r$/, '');
}

function protocols(random: SeededRandom): number {
  return random.chance(0.8) ? random.pick([PROTOCOL.SSL, PROTOCOL.HYBRID | PROTOCOL.SSL, PROTOCOL.HYBRID_EX | PROTOCOL.HYBRID | PROTOCOL.SSL, PROTOCOL.RDP, 0x1f]) : random.next();
}

/** A valid Connection Request or Confirm, as clients and servers send them. */
function generateX224(random: SeededRandom): Uint8Array {
  const sourceReference = random.chance(0.8) ? 0 : random.below(0x10000);
  switch (random.below(6)) {
    case 0:
      return buildConnectionRequest({ ...(random.chance(0.8) ? { requestedProtocols: protocols(random), flags: random.below(8) & ~8 } : {}), cookie: cookie(random), sourceReference });
    case 1: {
      const token = new TextEncoder().encode(`Cookie: msts=${random.next()}.${random.below(65536)}.0000`);
      return buildConnectionRequest({ routingToken: token, ...(random.chance(0.7) ? { requestedProtocols: protocols(random) } : {}), sourceReference });
    }
    case 2:
      return buildConnectionRequest({ requestedProtocols: protocols(random), correlationId: random.bytes(16), ...(random.chance(0.5) ? { cookie: cookie(random) } : {}), sourceReference });
    case 3:
      return buildConnectionRequest({ ...(random.chance(0.5) ? { requestedProtocols: protocols(random) } : {}), sourceReference });
    case 4:
      return buildConnectionConfirm({ kind: 'response', selectedProtocol: protocols(random), flags: random.below(0x20) }, sourceReference);
    default:
      return buildConnectionConfirm(random.chance(0.7) ? { kind: 'failure', failureCode: random.between(0, 7) } : { kind: 'none' }, sourceReference);
  }
}

export const fuzzTarget: FuzzTarget = {
  name: 'x224',
  checks:
    'X.224 Connection Request and Confirm parsers: only X224Error is thrown, its message without a final period; ' +
    'what parses is rebuilt by the builders and parses to the same value (build→parse round trip); no bytes are both; ' +
    'a Confirm gives its protocol or a NegotiationFailedError with its failure code',
  maxInputBytes: 1024,
  corpusExtension: '.bin',
  dictionary: ['Cookie: mstshash=', 'Cookie: msts=', '\r\n', Uint8Array.of(0x03, 0x00), Uint8Array.of(0xe0), Uint8Array.of(0xd0),
    Uint8Array.of(0x01, 0x00, 0x08, 0x00), Uint8Array.of(0x02, 0x00, 0x08, 0x00), Uint8Array.of(0x03, 0x00, 0x08, 0x00),
    Uint8Array.of(0x06, 0x00, 0x24, 0x00), Uint8Array.of(0x01, 0x08, 0x08, 0x00)],
  execute: checkX224,
  generate: generateX224,
};
