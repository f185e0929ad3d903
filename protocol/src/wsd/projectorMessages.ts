// The projector service each display's device hosts (docs/projector-service.md):
// Connect asks the display to project the presenter's RDP server (a target,
// or a Remote Assistance invitation), Disconnect ends that session. Refusals
// are SOAP 1.2 faults with a subcode of ours and a reason in plain words.
import { childNamed, type XmlElement } from '../xml/hardenedXml.js';
import { childText, escapeXml, readQNames, WsdMessageError, writeQNames } from './soapEnvelope.js';
import { NS, type QName } from './wsdConstants.js';

export interface ConnectRequest {
  readonly target?: { readonly host: string; readonly port: number; readonly name?: string | undefined } | undefined;
  readonly credentials?: { readonly username: string; readonly password: string; readonly domain?: string | undefined } | undefined;
  /** A Remote Assistance invitation (.msrcIncident text) and its password, instead of a target. */
  readonly invitation?: { readonly text: string; readonly password: string } | undefined;
  /** The room PIN shown on the display, when the room asks for one. */
  readonly pin?: string | undefined;
  /** Who asks, for the display's log (a computer or person name). */
  readonly presenter?: string | undefined;
}

export interface ConnectResponse {
  readonly sessionId: string;
  readonly target: { readonly host: string; readonly port: number };
  /**
   * The projection's stop token (the presenter API's): Disconnect needs it,
   * or the room PIN, since the session id alone travels in logs and URLs.
   */
  readonly stopToken?: string | undefined;
}

/** Disconnect: the session, and what proves the sender may end it (the stop token, else the room PIN). */
export interface DisconnectRequest {
  readonly sessionId: string;
  readonly stopToken?: string | undefined;
  readonly pin?: string | undefined;
}

/** Our fault subcodes (lp:…): what a presenter's program can act on. */
export const PROJECTOR_FAULTS = ['BadRequest', 'UnknownDisplay', 'DisplayOffline', 'DisplayBusy', 'TargetForbidden', 'InvitationRefused', 'PinRequired', 'PinWrong', 'PinLocked', 'UnknownSession', 'StopTokenWrong', 'Internal'] as const;
export type ProjectorFault = (typeof PROJECTOR_FAULTS)[number];

export interface SoapFault {
  /** soap:Sender (the request was wrong or refused) or soap:Receiver (our side failed). */
  readonly code: 'Sender' | 'Receiver';
  readonly subcode?: QName | undefined;
  readonly reason: string;
}

const MAX_FIELD = 256;
const MAX_INVITATION = 16 * 1024;

function field(value: string | undefined, what: string, max = MAX_FIELD): string | undefined {
  if (value !== undefined && value.length > max) throw new WsdMessageError('bad-body', `${what} is longer than ${max} characters`);
  return value;
}

function text(prefix: string, local: string, value: string | undefined): string {
  return value === undefined ? '' : `<${prefix}:${local}>${escapeXml(value)}</${prefix}:${local}>`;
}

export function writeConnect(request: ConnectRequest): string {
  const { target, credentials, invitation } = request;
  return '<lp:Connect>'
    + (target ? `<lp:Target>${text('lp', 'Host', target.host)}${text('lp', 'Port', String(target.port))}${text('lp', 'Name', target.name)}</lp:Target>` : '')
    + (credentials ? `<lp:Credentials>${text('lp', 'UserName', credentials.username)}${text('lp', 'Password', credentials.password)}${text('lp', 'Domain', credentials.domain)}</lp:Credentials>` : '')
    + (invitation ? `<lp:Invitation>${text('lp', 'Ticket', invitation.text)}${text('lp', 'Password', invitation.password)}</lp:Invitation>` : '')
    + text('lp', 'Pin', request.pin)
    + text('lp', 'Presenter', request.presenter)
    + '</lp:Connect>';
}

export function readConnect(body: XmlElement): ConnectRequest {
  const target = childNamed(body, NS.lp, 'Target');
  const credentials = childNamed(body, NS.lp, 'Credentials');
  const invitation = childNamed(body, NS.lp, 'Invitation');
  if ((target === undefined) === (invitation === undefined)) throw new WsdMessageError('bad-body', 'Connect names either a Target or an Invitation');
  let readTarget: ConnectRequest['target'];
  if (target) {
    const host = field(childText(target, NS.lp, 'Host'), 'Target/Host', 253);
    const portText = childText(target, NS.lp, 'Port') ?? '3389';
    const port = Number(portText);
    if (!host) throw new WsdMessageError('bad-body', 'Target has no Host');
    if (!/^\d{1,5}$/.test(portText) || port < 1 || port > 65535) throw new WsdMessageError('bad-body', `Target/Port "${portText}" is not a port`);
    readTarget = { host, port, name: field(childText(target, NS.lp, 'Name'), 'Target/Name') };
  }
  let readCredentials: ConnectRequest['credentials'];
  if (credentials) {
    const username = field(childText(credentials, NS.lp, 'UserName'), 'Credentials/UserName');
    if (!username) throw new WsdMessageError('bad-body', 'Credentials have no UserName');
    readCredentials = {
      username,
      password: field(childNamed(credentials, NS.lp, 'Password')?.text ?? '', 'Credentials/Password') ?? '',
      domain: field(childText(credentials, NS.lp, 'Domain'), 'Credentials/Domain'),
    };
  }
  let readInvitation: ConnectRequest['invitation'];
  if (invitation) {
    const ticket = field(childText(invitation, NS.lp, 'Ticket'), 'Invitation/Ticket', MAX_INVITATION);
    if (!ticket) throw new WsdMessageError('bad-body', 'Invitation has no Ticket');
    readInvitation = { text: ticket, password: field(childNamed(invitation, NS.lp, 'Password')?.text ?? '', 'Invitation/Password') ?? '' };
  }
  return {
    target: readTarget,
    credentials: readCredentials,
    invitation: readInvitation,
    pin: field(childText(body, NS.lp, 'Pin'), 'Pin', 32),
    presenter: field(childText(body, NS.lp, 'Presenter'), 'Presenter'),
  };
}

export function writeConnectResponse(response: ConnectResponse): string {
  return `<lp:ConnectResponse>${text('lp', 'SessionId', response.sessionId)}<lp:Target>${text('lp', 'Host', response.target.host)}${text('lp', 'Port', String(response.target.port))}</lp:Target>${text('lp', 'StopToken', response.stopToken)}</lp:ConnectResponse>`;
}

export function readConnectResponse(body: XmlElement): ConnectResponse {
  const sessionId = childText(body, NS.lp, 'SessionId');
  const target = childNamed(body, NS.lp, 'Target');
  const host = target ? childText(target, NS.lp, 'Host') : undefined;
  const port = Number(target ? childText(target, NS.lp, 'Port') : undefined);
  if (!sessionId || !host || !Number.isInteger(port)) throw new WsdMessageError('bad-body', 'ConnectResponse needs SessionId and Target/Host, Target/Port');
  return { sessionId, target: { host, port }, stopToken: field(childText(body, NS.lp, 'StopToken'), 'StopToken') };
}

export function writeDisconnect(request: DisconnectRequest): string {
  return `<lp:Disconnect>${text('lp', 'SessionId', request.sessionId)}${text('lp', 'StopToken', request.stopToken)}${text('lp', 'Pin', request.pin)}</lp:Disconnect>`;
}

export function readDisconnect(body: XmlElement): DisconnectRequest {
  const sessionId = field(childText(body, NS.lp, 'SessionId'), 'SessionId', 64);
  if (!sessionId) throw new WsdMessageError('bad-body', 'Disconnect has no SessionId');
  return { sessionId, stopToken: field(childText(body, NS.lp, 'StopToken'), 'StopToken'), pin: field(childText(body, NS.lp, 'Pin'), 'Pin', 32) };
}

export function writeDisconnectResponse(): string {
  return '<lp:DisconnectResponse/>';
}

export function projectorFault(subcode: ProjectorFault, reason: string): SoapFault {
  return { code: subcode === 'Internal' ? 'Receiver' : 'Sender', subcode: { namespace: NS.lp, local: subcode }, reason };
}

export function writeFault(fault: SoapFault): string {
  const subcode = fault.subcode ? writeQNames([fault.subcode]) : undefined;
  return `<soap:Fault><soap:Code><soap:Value>soap:${fault.code}</soap:Value>`
    + (subcode ? `<soap:Subcode><soap:Value${subcode.declarations}>${subcode.text}</soap:Value></soap:Subcode>` : '')
    + `</soap:Code><soap:Reason><soap:Text xml:lang="en">${escapeXml(fault.reason)}</soap:Text></soap:Reason></soap:Fault>`;
}

export function readFault(body: XmlElement): SoapFault {
  const code = childNamed(body, NS.soap, 'Code');
  const value = code ? childNamed(code, NS.soap, 'Value') : undefined;
  const codeName = value ? readQNames(value)[0] : undefined;
  const subcodeValue = code ? childNamed(childNamed(code, NS.soap, 'Subcode') ?? code, NS.soap, 'Value') : undefined;
  const reason = childNamed(body, NS.soap, 'Reason');
  const reasonText = reason ? childText(reason, NS.soap, 'Text') : undefined;
  return {
    code: codeName?.local === 'Receiver' ? 'Receiver' : 'Sender',
    subcode: subcodeValue && subcodeValue !== value ? readQNames(subcodeValue)[0] : undefined,
    reason: reasonText ?? 'no reason given',
  };
}

/** The fault's subcode when it is one of ours. */
export function projectorFaultOf(fault: SoapFault): ProjectorFault | undefined {
  const local = fault.subcode?.namespace === NS.lp ? fault.subcode.local : undefined;
  return PROJECTOR_FAULTS.find((name) => name === local);
}
