// The X.224 Connection Request / Confirm exchange ([MS-RDPBCGR] 2.2.1.1-2.2.1.2),
// the only RDP the load test speaks: a thin face over the gateway's own codec,
// so the simulated ends and the gateway agree byte for byte.
import {
  buildConnectionConfirm as buildConfirm,
  buildConnectionRequest as buildRequest,
  parseConnectionConfirm as parseConfirm,
  parseConnectionRequest as parseRequest,
  PROTOCOL,
} from '@lanterna/protocol';

export const PROTOCOL_RDP = PROTOCOL.RDP;
export const PROTOCOL_SSL = PROTOCOL.SSL;
export const PROTOCOL_HYBRID = PROTOCOL.HYBRID;

const asBuffer = (pdu: Uint8Array): Buffer => Buffer.from(pdu.buffer, pdu.byteOffset, pdu.byteLength);

export function buildConnectionRequest(requestedProtocols: number, cookieName = 'loadtest'): Uint8Array {
  return buildRequest({ requestedProtocols, cookie: cookieName });
}

export function buildConnectionConfirm(selectedProtocol: number): Uint8Array {
  return buildConfirm({ kind: 'response', selectedProtocol, flags: 0 });
}

/** Requested protocols of a Connection Request (0 = standard RDP security when absent). */
export function parseConnectionRequest(pdu: Uint8Array): number {
  return parseRequest(asBuffer(pdu)).requestedProtocols;
}

/** Selected protocol of a Connection Confirm; throws on a negotiation failure. */
export function parseConnectionConfirm(pdu: Uint8Array): number {
  const confirm = parseConfirm(asBuffer(pdu));
  if (confirm.kind === 'failure') throw new Error(`negotiation failed with code ${confirm.failureCode}`);
  return confirm.kind === 'response' ? confirm.selectedProtocol : PROTOCOL.RDP;
}
