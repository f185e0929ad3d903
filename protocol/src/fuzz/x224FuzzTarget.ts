// The X.224 parsers' fuzz invariant: any bytes either parse or throw
// X224Error (never RangeError from reading past the end, never a hang), and
// whatever parses survives a rebuild-and-parse round trip unchanged.
import { AssertionError, deepStrictEqual } from 'node:assert';
import {
  buildConnectionConfirm,
  buildConnectionRequest,
  parseConnectionConfirm,
  parseConnectionRequest,
  X224Error,
  type ConnectionConfirm,
  type ConnectionRequest,
} from '../x224.js';

function parseOrNull<T>(parse: (pdu: Uint8Array) => T, pdu: Uint8Array): T | null {
  try {
    return parse(pdu);
  } catch (error) {
    if (error instanceof X224Error) return null;
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
}

/** libFuzzer/Jazzer.js-style entry: feeds the bytes to both parsers. */
export function fuzzX224(input: Uint8Array): void {
  // Plain Uint8Array views, so fields parsed from the input compare equal to
  // those parsed from the rebuilt PDU (the builders make Uint8Arrays).
  const data = new Uint8Array(input.buffer, input.byteOffset, input.length);
  const request = parseOrNull(parseConnectionRequest, data);
  if (request) roundTripRequest(request);
  const confirm = parseOrNull(parseConnectionConfirm, data);
  if (confirm) roundTripConfirm(confirm);
  if (request && confirm) throw new AssertionError({ message: 'bytes parsed as both a request and a confirm' });
}
