// The one answer the load test's ends accept to their Connection Request: a
// Confirm that selects TLS (PROTOCOL_SSL), parsed by the protocol package.
import { NegotiationFailedError, parseConnectionConfirm, PROTOCOL, selectedProtocol } from '@lanterna/protocol';

/** Throws unless `pdu` is a Connection Confirm selecting TLS; `peer` names who sent it. */
export function expectTlsConfirm(pdu: Uint8Array, peer: string): void {
  let selected: number;
  try {
    selected = selectedProtocol(parseConnectionConfirm(pdu));
  } catch (error) {
    if (error instanceof NegotiationFailedError) throw new Error(`${peer} refused the negotiation with code ${error.failureCode}`);
    throw error;
  }
  if (selected !== PROTOCOL.SSL) throw new Error(`${peer} selected protocol ${selected}, not ssl`);
}
