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

function parseOrNull<T>(parse: (pdu: Buffer) => T, pdu: Buffer): T | null {
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
export function fuzzX224(data: Buffer): void {
  const request = parseOrNull(parseConnectionRequest, data);
  if (request) roundTripRequest(request);
  const confirm = parseOrNull(parseConnectionConfirm, data);
  if (confirm) roundTripConfirm(confirm);
  if (request && confirm) throw new AssertionError({ message: 'bytes parsed as both a request and a confirm' });
}
