// Every message Lanterna's WS-Discovery responder, its HTTP endpoints and the
// presenter CLI exchange, as one typed union: bytes or text in, a message or a
// reason out (readWsdMessage); a message in, text out (writeWsdMessage). The
// action header follows from the kind.
import { readDeviceMetadata, writeDeviceMetadata, type DeviceMetadata } from './deviceMetadata.js';
import {
  readEndpoint, readMatches, readProbe, readTargetDescription,
  writeBye, writeHello, writeProbe, writeProbeMatches, writeResolve, writeResolveMatches,
  type ProbeBody, type TargetDescription,
} from './discoveryMessages.js';
import {
  readConnect, readConnectResponse, readDisconnect, readFault,
  writeConnect, writeConnectResponse, writeDisconnect, writeDisconnectResponse, writeFault,
  type ConnectRequest, type ConnectResponse, type DisconnectRequest, type SoapFault,
} from './projectorMessages.js';
import { readEnvelope, WsdMessageError, writeEnvelope, type SoapHeader, type WsdFailureReason } from './soapEnvelope.js';
import { ACTION, NS } from './wsdConstants.js';
import type { XmlElement } from '../xml/hardenedXml.js';

export type MessageHeader = Omit<SoapHeader, 'action'>;

export type WsdMessage =
  | { readonly kind: 'hello'; readonly header: MessageHeader; readonly target: TargetDescription }
  | { readonly kind: 'bye'; readonly header: MessageHeader; readonly endpoint: string }
  | { readonly kind: 'probe'; readonly header: MessageHeader; readonly probe: ProbeBody }
  | { readonly kind: 'probe-matches'; readonly header: MessageHeader; readonly matches: readonly TargetDescription[] }
  | { readonly kind: 'resolve'; readonly header: MessageHeader; readonly endpoint: string }
  | { readonly kind: 'resolve-matches'; readonly header: MessageHeader; readonly matches: readonly TargetDescription[] }
  | { readonly kind: 'get'; readonly header: MessageHeader }
  | { readonly kind: 'get-response'; readonly header: MessageHeader; readonly metadata: DeviceMetadata }
  | { readonly kind: 'connect'; readonly header: MessageHeader; readonly request: ConnectRequest }
  | { readonly kind: 'connect-response'; readonly header: MessageHeader; readonly response: ConnectResponse }
  | { readonly kind: 'disconnect'; readonly header: MessageHeader; readonly request: DisconnectRequest }
  | { readonly kind: 'disconnect-response'; readonly header: MessageHeader }
  | { readonly kind: 'fault'; readonly header: MessageHeader; readonly fault: SoapFault };

export type WsdMessageKind = WsdMessage['kind'];

export type WsdRead =
  | { readonly ok: true; readonly message: WsdMessage }
  | { readonly ok: false; readonly reason: WsdFailureReason; readonly detail: string };

const ACTION_KIND = new Map<string, WsdMessageKind>([
  [ACTION.hello, 'hello'], [ACTION.bye, 'bye'], [ACTION.probe, 'probe'], [ACTION.probeMatches, 'probe-matches'],
  [ACTION.resolve, 'resolve'], [ACTION.resolveMatches, 'resolve-matches'], [ACTION.get, 'get'], [ACTION.getResponse, 'get-response'],
  [ACTION.connect, 'connect'], [ACTION.connectResponse, 'connect-response'], [ACTION.disconnect, 'disconnect'],
  [ACTION.disconnectResponse, 'disconnect-response'], [ACTION.fault, 'fault'],
]);
const KIND_ACTION = new Map([...ACTION_KIND].map(([action, kind]) => [kind, action]));

/** Reads one message; never throws for anything the input holds. */
export function readWsdMessage(input: Uint8Array | string): WsdRead {
  try {
    const { header, body } = readEnvelope(input);
    const kind = ACTION_KIND.get(header.action) ?? (body?.uri === NS.soap && body.local === 'Fault' ? 'fault' : undefined);
    if (!kind) return { ok: false, reason: 'unknown-action', detail: header.action.slice(0, 200) };
    const { action: _action, ...rest } = header;
    return { ok: true, message: readBody(kind, rest, body) };
  } catch (error) {
    if (error instanceof WsdMessageError) return { ok: false, reason: error.reason, detail: error.message };
    throw error;
  }
}

function expect(body: XmlElement | undefined, uri: string, local: string): XmlElement {
  if (body?.uri !== uri || body.local !== local) throw new WsdMessageError('bad-body', `the body is not a {${uri}}${local}`);
  return body;
}

function readBody(kind: WsdMessageKind, header: MessageHeader, body: XmlElement | undefined): WsdMessage {
  switch (kind) {
    case 'hello': return { kind, header, target: readTargetDescription(expect(body, NS.wsd, 'Hello')) };
    case 'bye': return { kind, header, endpoint: readEndpoint(expect(body, NS.wsd, 'Bye')) };
    case 'probe': return { kind, header, probe: readProbe(expect(body, NS.wsd, 'Probe')) };
    case 'probe-matches': return { kind, header, matches: readMatches(expect(body, NS.wsd, 'ProbeMatches'), 'ProbeMatch') };
    case 'resolve': return { kind, header, endpoint: readEndpoint(expect(body, NS.wsd, 'Resolve')) };
    case 'resolve-matches': return { kind, header, matches: readMatches(expect(body, NS.wsd, 'ResolveMatches'), 'ResolveMatch') };
    case 'get': return { kind, header };
    case 'get-response': return { kind, header, metadata: readDeviceMetadata(expect(body, NS.wsx, 'Metadata')) };
    case 'connect': return { kind, header, request: readConnect(expect(body, NS.lp, 'Connect')) };
    case 'connect-response': return { kind, header, response: readConnectResponse(expect(body, NS.lp, 'ConnectResponse')) };
    case 'disconnect': return { kind, header, request: readDisconnect(expect(body, NS.lp, 'Disconnect')) };
    case 'disconnect-response': return { kind, header };
    case 'fault': return { kind, header, fault: readFault(expect(body, NS.soap, 'Fault')) };
  }
}

function writeBody(message: WsdMessage): string {
  switch (message.kind) {
    case 'hello': return writeHello(message.target);
    case 'bye': return writeBye(message.endpoint);
    case 'probe': return writeProbe(message.probe);
    case 'probe-matches': return writeProbeMatches(message.matches);
    case 'resolve': return writeResolve(message.endpoint);
    case 'resolve-matches': return writeResolveMatches(message.matches[0]);
    case 'get': return '';
    case 'get-response': return writeDeviceMetadata(message.metadata);
    case 'connect': return writeConnect(message.request);
    case 'connect-response': return writeConnectResponse(message.response);
    case 'disconnect': return writeDisconnect(message.request);
    case 'disconnect-response': return writeDisconnectResponse();
    case 'fault': return writeFault(message.fault);
  }
}

/** The whole message as text (UTF-8 encode it for a datagram). */
export function writeWsdMessage(message: WsdMessage): string {
  return writeEnvelope({ action: KIND_ACTION.get(message.kind) ?? ACTION.fault, ...message.header }, writeBody(message));
}
