// The X.224 Connection Request / Confirm exchange ([MS-RDPBCGR] 2.2.1.1-2.2.1.2):
// the only RDP the load test speaks, so that the gateway sees a real handshake.
import { TPKT_HEADER_BYTES } from './tpktPdu.js';

export const PROTOCOL_RDP = 0;
export const PROTOCOL_SSL = 1;
export const PROTOCOL_HYBRID = 2;

const TYPE_NEG_REQ = 0x01;
const TYPE_NEG_RSP = 0x02;
const CR_CODE = 0xe0;
const CC_CODE = 0xd0;

function wrapInTpkt(x224: Buffer): Buffer {
  const header = Buffer.from([0x03, 0x00, 0, 0]);
  header.writeUInt16BE(TPKT_HEADER_BYTES + x224.length, 2);
  return Buffer.concat([header, x224]);
}

function x224WithNegotiation(code: number, variable: Buffer, negType: number, protocols: number): Buffer {
  const neg = Buffer.alloc(8);
  neg[0] = negType;
  neg[1] = 0;
  neg.writeUInt16LE(8, 2);
  neg.writeUInt32LE(protocols, 4);
  // fixed part after LI: code, dst-ref(2), src-ref(2), class
  const fixed = Buffer.from([code, 0, 0, 0, 0, 0]);
  const body = Buffer.concat([fixed, variable, neg]);
  return wrapInTpkt(Buffer.concat([Buffer.from([body.length]), body]));
}

export function buildConnectionRequest(requestedProtocols: number, cookieName = 'loadtest'): Buffer {
  const cookie = Buffer.from(`Cookie: mstshash=${cookieName}\r\n`, 'latin1');
  return x224WithNegotiation(CR_CODE, cookie, TYPE_NEG_REQ, requestedProtocols);
}

export function buildConnectionConfirm(selectedProtocol: number): Buffer {
  return x224WithNegotiation(CC_CODE, Buffer.alloc(0), TYPE_NEG_RSP, selectedProtocol);
}

interface NegotiationField { code: number; negType: number | undefined; protocols: number | undefined }

function parseX224(pdu: Uint8Array): NegotiationField {
  const bytes = Buffer.from(pdu.buffer, pdu.byteOffset, pdu.byteLength);
  if (bytes.length < 11 || bytes[0] !== 0x03) throw new Error('x224 pdu too short or not tpkt');
  const length = bytes.readUInt16BE(2);
  if (length !== bytes.length) throw new Error(`tpkt length ${length} does not match ${bytes.length} bytes`);
  const li = bytes[4] ?? 0;
  if (TPKT_HEADER_BYTES + 1 + li > bytes.length) throw new Error('x224 length indicator overruns the pdu');
  const code = (bytes[5] ?? 0) & 0xf0;
  const end = TPKT_HEADER_BYTES + 1 + li;
  if (end - 8 >= 11 && (bytes[end - 8] === TYPE_NEG_REQ || bytes[end - 8] === TYPE_NEG_RSP || bytes[end - 8] === 0x03)) {
    return { code, negType: bytes[end - 8], protocols: bytes.readUInt32LE(end - 4) };
  }
  return { code, negType: undefined, protocols: undefined };
}

/** Requested protocols of a Connection Request (0 = standard RDP security when absent). */
export function parseConnectionRequest(pdu: Uint8Array): number {
  const field = parseX224(pdu);
  if (field.code !== CR_CODE) throw new Error(`expected a connection request, got code 0x${field.code.toString(16)}`);
  return field.negType === TYPE_NEG_REQ ? field.protocols ?? PROTOCOL_RDP : PROTOCOL_RDP;
}

/** Selected protocol of a Connection Confirm; throws on a negotiation failure. */
export function parseConnectionConfirm(pdu: Uint8Array): number {
  const field = parseX224(pdu);
  if (field.code !== CC_CODE) throw new Error(`expected a connection confirm, got code 0x${field.code.toString(16)}`);
  if (field.negType === 0x03) throw new Error(`negotiation failed with code ${field.protocols ?? 0}`);
  return field.negType === TYPE_NEG_RSP ? field.protocols ?? PROTOCOL_RDP : PROTOCOL_RDP;
}
