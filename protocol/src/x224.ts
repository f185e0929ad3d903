// The X.224 connection handshake that precedes TLS: the client's Connection
// Request (MS-RDPBCGR 2.2.1.1) with its optional routing token or cookie,
// RDP_NEG_REQ (2.2.1.1.1) and RDP_CORRELATION_INFO (2.2.1.1.2), and the
// server's Connection Confirm (2.2.1.2) with RDP_NEG_RSP (2.2.1.2.1) or
// RDP_NEG_FAILURE (2.2.1.2.2). Pure: whole PDUs in, values out, and back.
// Lengths are checked strictly (as FreeRDP does); reference and class fields,
// which FreeRDP ignores, are reported but not judged. Bytes are Uint8Array
// (a Node Buffer works as one); fields cut from a PDU are views of it.
import { hexByte } from './framingError.js';

export const PROTOCOL = {
  RDP: 0x00,
  SSL: 0x01,
  HYBRID: 0x02,
  RDSTLS: 0x04,
  HYBRID_EX: 0x08,
  RDSAAD: 0x10,
} as const;

/** RDP_NEG_REQ flags. */
export const NEG_REQ_FLAG = {
  RESTRICTED_ADMIN_MODE_REQUIRED: 0x01,
  REDIRECTED_AUTHENTICATION_MODE_REQUIRED: 0x02,
  CORRELATION_INFO_PRESENT: 0x08,
} as const;

/** RDP_NEG_RSP flags. */
export const NEG_RSP_FLAG = {
  EXTENDED_CLIENT_DATA_SUPPORTED: 0x01,
  DYNVC_GFX_PROTOCOL_SUPPORTED: 0x02,
  NEGRSP_FLAG_RESERVED: 0x04,
  RESTRICTED_ADMIN_MODE_SUPPORTED: 0x08,
  REDIRECTED_AUTHENTICATION_MODE_SUPPORTED: 0x10,
} as const;

/** RDP_NEG_FAILURE failureCode values. */
export const NEG_FAILURE = {
  SSL_REQUIRED_BY_SERVER: 1,
  SSL_NOT_ALLOWED_BY_SERVER: 2,
  SSL_CERT_NOT_ON_SERVER: 3,
  INCONSISTENT_FLAGS: 4,
  HYBRID_REQUIRED_BY_SERVER: 5,
  SSL_WITH_USER_AUTH_REQUIRED_BY_SERVER: 6,
} as const;

const TPDU_CONNECTION_REQUEST = 0xe0;
const TPDU_CONNECTION_CONFIRM = 0xd0;
const TPKT_HEADER = 4;
/** LI, code, DST-REF (2), SRC-REF (2), class. */
const TPDU_CR_CC_HEADER = 7;
const TYPE_RDP_NEG_REQ = 0x01;
const TYPE_RDP_NEG_RSP = 0x02;
const TYPE_RDP_NEG_FAILURE = 0x03;
const TYPE_RDP_CORRELATION_INFO = 0x06;
const NEG_LENGTH = 8;
const CORRELATION_INFO_LENGTH = 36;
const COOKIE_PREFIX = 'Cookie: mstshash=';
const CR = 0x0d;
const LF = 0x0a;

export class X224Error extends Error {
  readonly code = 'x224-invalid';
  constructor(message: string) {
    super(message);
    this.name = 'X224Error';
  }
}

export interface ConnectionRequest {
  /** PROTOCOL bits; PROTOCOL.RDP (0) when the request carries no RDP_NEG_REQ. */
  readonly requestedProtocols: number;
  /** Whether an RDP_NEG_REQ was present (a request without one is legacy RDP). */
  readonly negotiation: boolean;
  /** RDP_NEG_REQ flags (NEG_REQ_FLAG), 0 without negotiation. */
  readonly flags: number;
  /** The IDENTIFIER of `Cookie: mstshash=IDENTIFIER`. */
  readonly cookie?: string;
  /** A routing token line (e.g. `Cookie: msts=…`), without its CR LF. */
  readonly routingToken?: Uint8Array;
  /** RDP_CORRELATION_INFO's 16-byte correlationId. */
  readonly correlationId?: Uint8Array;
  readonly sourceReference: number;
}

export type ConnectionConfirm =
  | { readonly kind: 'response'; readonly selectedProtocol: number; readonly flags: number }
  | { readonly kind: 'failure'; readonly failureCode: number }
  | { readonly kind: 'none' };

function dataView(pdu: Uint8Array): DataView {
  return new DataView(pdu.buffer, pdu.byteOffset, pdu.byteLength);
}

/** Bytes as latin1 text: one character per byte, as cookies travel. */
function latin1(bytes: Uint8Array): string {
  let text = '';
  for (const byte of bytes) text += String.fromCharCode(byte);
  return text;
}

function latin1Bytes(text: string): Uint8Array {
  const bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i) & 0xff;
  return bytes;
}

function indexOfCrLf(pdu: Uint8Array, from: number): number {
  for (let i = from; i + 1 < pdu.length; i++) if (pdu[i] === CR && pdu[i + 1] === LF) return i;
  return -1;
}

/** Checks TPKT and the CR/CC TPDU header; returns the offset of the variable part. */
function readTpduHeader(pdu: Uint8Array, view: DataView, expectedCode: number, what: string): number {
  if (pdu.length < TPKT_HEADER + TPDU_CR_CC_HEADER) {
    throw new X224Error(`${what} of ${pdu.length} bytes is shorter than ${TPKT_HEADER + TPDU_CR_CC_HEADER}`);
  }
  if (view.getUint8(0) !== 0x03 || view.getUint8(1) !== 0x00) {
    const got = `${hexByte(view.getUint8(0)).slice(2)}${hexByte(view.getUint8(1)).slice(2)}`;
    throw new X224Error(`${what} does not start with a tpkt header (03 00), got ${got}`);
  }
  const length = view.getUint16(2);
  if (length !== pdu.length) throw new X224Error(`${what} tpkt length ${length} does not match the ${pdu.length} bytes given`);
  const li = view.getUint8(TPKT_HEADER);
  if (li !== length - TPKT_HEADER - 1) {
    throw new X224Error(`${what} length indicator ${li} does not match tpkt length ${length} (expected ${length - TPKT_HEADER - 1})`);
  }
  const code = view.getUint8(TPKT_HEADER + 1);
  if (code !== expectedCode) {
    throw new X224Error(`${what} tpdu code is 0x${code.toString(16)}, expected 0x${expectedCode.toString(16)}`);
  }
  return TPKT_HEADER + TPDU_CR_CC_HEADER;
}

/** Parses the client's X.224 Connection Request (one whole TPKT). Throws X224Error. */
export function parseConnectionRequest(pdu: Uint8Array): ConnectionRequest {
  const view = dataView(pdu);
  let offset = readTpduHeader(pdu, view, TPDU_CONNECTION_REQUEST, 'connection request');
  const sourceReference = view.getUint16(TPKT_HEADER + 4);
  let cookie: string | undefined;
  let routingToken: Uint8Array | undefined;
  const rest = pdu.length - offset;
  const negotiationOnly =
    rest > 0 &&
    view.getUint8(offset) === TYPE_RDP_NEG_REQ && (rest === NEG_LENGTH || rest === NEG_LENGTH + CORRELATION_INFO_LENGTH);
  if (rest > 0 && !negotiationOnly) {
    const end = indexOfCrLf(pdu, offset);
    if (end < 0) throw new X224Error('connection request routing token or cookie is not terminated by CR LF');
    const line = pdu.subarray(offset, end);
    const text = latin1(line);
    if (text.startsWith(COOKIE_PREFIX)) {
      cookie = text.slice(COOKIE_PREFIX.length);
    } else {
      routingToken = line;
    }
    offset = end + 2;
  }
  let requestedProtocols: number = PROTOCOL.RDP;
  let flags = 0;
  let negotiation = false;
  let correlationId: Uint8Array | undefined;
  if (offset < pdu.length) {
    if (pdu.length - offset < NEG_LENGTH) {
      throw new X224Error(`connection request has ${pdu.length - offset} bytes after the cookie, too few for RDP_NEG_REQ`);
    }
    const type = view.getUint8(offset);
    if (type !== TYPE_RDP_NEG_REQ) throw new X224Error(`connection request negotiation type is ${type}, expected 1 (RDP_NEG_REQ)`);
    flags = view.getUint8(offset + 1);
    const length = view.getUint16(offset + 2, true);
    if (length !== NEG_LENGTH) throw new X224Error(`RDP_NEG_REQ length is ${length}, expected 8`);
    requestedProtocols = view.getUint32(offset + 4, true);
    negotiation = true;
    offset += NEG_LENGTH;
    if (flags & NEG_REQ_FLAG.CORRELATION_INFO_PRESENT) {
      if (pdu.length - offset !== CORRELATION_INFO_LENGTH) {
        throw new X224Error(`RDP_CORRELATION_INFO needs 36 bytes, ${pdu.length - offset} follow`);
      }
      const infoType = view.getUint8(offset);
      const infoLength = view.getUint16(offset + 2, true);
      if (infoType !== TYPE_RDP_CORRELATION_INFO || infoLength !== CORRELATION_INFO_LENGTH) {
        throw new X224Error(`RDP_CORRELATION_INFO has type ${infoType} and length ${infoLength}, expected 6 and 36`);
      }
      correlationId = pdu.subarray(offset + 4, offset + 20);
      offset += CORRELATION_INFO_LENGTH;
    }
  }
  if (offset !== pdu.length) throw new X224Error(`connection request has ${pdu.length - offset} unexpected trailing bytes`);
  return {
    requestedProtocols,
    negotiation,
    flags,
    sourceReference,
    ...(cookie === undefined ? {} : { cookie }),
    ...(routingToken === undefined ? {} : { routingToken }),
    ...(correlationId === undefined ? {} : { correlationId }),
  };
}

/** Parses the server's X.224 Connection Confirm (one whole TPKT). Throws X224Error. */
export function parseConnectionConfirm(pdu: Uint8Array): ConnectionConfirm {
  const view = dataView(pdu);
  const offset = readTpduHeader(pdu, view, TPDU_CONNECTION_CONFIRM, 'connection confirm');
  const rest = pdu.length - offset;
  if (rest === 0) return { kind: 'none' };
  if (rest !== NEG_LENGTH) throw new X224Error(`connection confirm carries ${rest} bytes of negotiation data, expected 0 or 8`);
  const type = view.getUint8(offset);
  const flags = view.getUint8(offset + 1);
  const length = view.getUint16(offset + 2, true);
  const value = view.getUint32(offset + 4, true);
  if (length !== NEG_LENGTH) throw new X224Error(`negotiation ${type === TYPE_RDP_NEG_FAILURE ? 'failure' : 'response'} length is ${length}, expected 8`);
  if (type === TYPE_RDP_NEG_RSP) return { kind: 'response', selectedProtocol: value, flags };
  if (type === TYPE_RDP_NEG_FAILURE) return { kind: 'failure', failureCode: value };
  throw new X224Error(`connection confirm negotiation type is ${type}, expected 2 (RDP_NEG_RSP) or 3 (RDP_NEG_FAILURE)`);
}

function tpkt(code: number, sourceReference: number, variable: readonly Uint8Array[]): Uint8Array {
  const bodyLength = variable.reduce((sum, part) => sum + part.length, 0);
  const length = TPKT_HEADER + TPDU_CR_CC_HEADER + bodyLength;
  if (length > 0xff + TPKT_HEADER + 1) throw new RangeError(`x224 pdu of ${length} bytes does not fit its length indicator`);
  const pdu = new Uint8Array(length);
  const view = dataView(pdu);
  view.setUint8(0, 0x03);
  view.setUint16(2, length);
  view.setUint8(4, length - TPKT_HEADER - 1);
  view.setUint8(5, code);
  view.setUint16(8, sourceReference);
  let at = TPKT_HEADER + TPDU_CR_CC_HEADER;
  for (const part of variable) {
    pdu.set(part, at);
    at += part.length;
  }
  return pdu;
}

function negotiationBlock(type: number, flags: number, value: number): Uint8Array {
  const block = new Uint8Array(NEG_LENGTH);
  const view = dataView(block);
  view.setUint8(0, type);
  view.setUint8(1, flags);
  view.setUint16(2, NEG_LENGTH, true);
  view.setUint32(4, value >>> 0, true);
  return block;
}

export interface ConnectionRequestFields {
  /** PROTOCOL bits; leave undefined for a legacy request without RDP_NEG_REQ. */
  readonly requestedProtocols?: number;
  readonly flags?: number;
  readonly cookie?: string;
  readonly routingToken?: Uint8Array;
  readonly correlationId?: Uint8Array;
  readonly sourceReference?: number;
}

/** Builds a Connection Request as mstsc/FreeRDP send it. */
export function buildConnectionRequest(fields: ConnectionRequestFields): Uint8Array {
  if (fields.cookie !== undefined && fields.routingToken !== undefined) {
    throw new RangeError('a connection request carries a cookie or a routing token, not both');
  }
  const parts: Uint8Array[] = [];
  if (fields.cookie !== undefined) parts.push(latin1Bytes(`${COOKIE_PREFIX}${fields.cookie}\r\n`));
  if (fields.routingToken !== undefined) parts.push(fields.routingToken, Uint8Array.of(CR, LF));
  if (fields.requestedProtocols !== undefined) {
    let flags = fields.flags ?? 0;
    if (fields.correlationId !== undefined) flags |= NEG_REQ_FLAG.CORRELATION_INFO_PRESENT;
    parts.push(negotiationBlock(TYPE_RDP_NEG_REQ, flags, fields.requestedProtocols));
    if (fields.correlationId !== undefined) {
      if (fields.correlationId.length !== 16) throw new RangeError('correlationId must be 16 bytes');
      const info = new Uint8Array(CORRELATION_INFO_LENGTH);
      const view = dataView(info);
      view.setUint8(0, TYPE_RDP_CORRELATION_INFO);
      view.setUint16(2, CORRELATION_INFO_LENGTH, true);
      info.set(fields.correlationId, 4);
      parts.push(info);
    }
  }
  return tpkt(TPDU_CONNECTION_REQUEST, fields.sourceReference ?? 0, parts);
}

/** Builds a Connection Confirm (for tests and the load test's echo host). */
export function buildConnectionConfirm(confirm: ConnectionConfirm, sourceReference = 0x1234): Uint8Array {
  switch (confirm.kind) {
    case 'none':
      return tpkt(TPDU_CONNECTION_CONFIRM, sourceReference, []);
    case 'response':
      return tpkt(TPDU_CONNECTION_CONFIRM, sourceReference, [
        negotiationBlock(TYPE_RDP_NEG_RSP, confirm.flags, confirm.selectedProtocol),
      ]);
    case 'failure':
      return tpkt(TPDU_CONNECTION_CONFIRM, sourceReference, [negotiationBlock(TYPE_RDP_NEG_FAILURE, 0, confirm.failureCode)]);
  }
}

/** A server's RDP_NEG_FAILURE: a well-formed refusal, not a malformed PDU. */
export class NegotiationFailedError extends Error {
  readonly code = 'negotiation-failed';
  constructor(readonly failureCode: number) {
    super(`the server refused the requested security protocols with failure code ${failureCode}`);
    this.name = 'NegotiationFailedError';
  }
}

/** The protocol a Confirm selected: PROTOCOL.RDP when it carries no negotiation. Throws NegotiationFailedError. */
export function selectedProtocol(confirm: ConnectionConfirm): number {
  switch (confirm.kind) {
    case 'response':
      return confirm.selectedProtocol;
    case 'none':
      return PROTOCOL.RDP;
    case 'failure':
      throw new NegotiationFailedError(confirm.failureCode);
  }
}

/** The name the kiosk protocol uses for a selected protocol, when the gateway relays it. */
export function relayedProtocolName(selectedProtocol: number): 'ssl' | 'hybrid' | 'hybrid-ex' | undefined {
  switch (selectedProtocol) {
    case PROTOCOL.SSL:
      return 'ssl';
    case PROTOCOL.HYBRID:
      return 'hybrid';
    case PROTOCOL.HYBRID_EX:
      return 'hybrid-ex';
    default:
      return undefined;
  }
}
