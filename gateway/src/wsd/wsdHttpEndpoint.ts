// WS-Discovery's HTTP side on the gateway's own listener (its Host and Origin
// guards, headers and CSP apply as to every request): POST /wsd/<display>
// answers WS-Transfer Get with the display's DPWS metadata, POST
// /wsd/<display>/projector is the hosted projector service (Connect,
// Disconnect). An adapter over the broker: Connect is a presenter's request
// like the presenter page's (PresenterProjections: online and free display,
// the room PIN under the same wrong-PIN limits, the target policy, the PIN
// rotated after use, audited as `wsd`), answered in SOAP faults.
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  ANONYMOUS, DEVICE_TYPE, DISPLAY_TYPE, MAX_WSD_MESSAGE_BYTES, PROJECTOR_TYPE, projectorFault, readWsdMessage, writeWsdMessage,
  type ConnectRequest, type DisconnectRequest, type ProjectorFault, type SoapFault, type WsdMessage,
} from '@lanterna/protocol/wsd';
import type { DisplayRegistry } from '../broker/displayRegistry.js';
import type { OnlineDisplays } from '../broker/onlineDisplays.js';
import type { SessionLifecycle } from '../broker/sessionLifecycle.js';
import type { PresenterOutcome, PresenterProjections, PresenterRefusalCode } from '../broker/presenterProjections.js';
import { sourceKey } from '../broker/pinAttempts.js';
import type { GatewayMetrics } from '../metrics/gatewayMetrics.js';
import { displayEndpoint } from './wsdIdentity.js';
import { randomUUID } from 'node:crypto';

export interface WsdHttpDeps {
  readonly displays: Pick<DisplayRegistry, 'listDisplays'>;
  readonly presence: Pick<OnlineDisplays, 'displayState'>;
  /** A Disconnect for a session that ended already is answered as stopped. */
  readonly sessions: Pick<SessionLifecycle, 'getSession'>;
  readonly presenters: PresenterProjections;
  /** The requester's address (the proxy's client when the peer is a trusted proxy): the wrong-PIN limit's key. */
  readonly clientAddress: (request: IncomingMessage) => string | undefined;
  /** The gateway's discovery seed (read once the responder made it). */
  readonly deviceSeed: () => string;
  readonly tls: boolean;
  readonly metrics: GatewayMetrics;
  readonly version: string;
}

const PATH = /^\/wsd\/([A-Za-z0-9._-]{1,64})(\/projector)?$/;

const FAULT_OF: Record<PresenterRefusalCode, ProjectorFault> = {
  'unknown-display': 'UnknownDisplay',
  'pin-required': 'PinRequired',
  'pin-wrong': 'PinWrong',
  'pin-locked': 'PinLocked',
  'queue-full': 'DisplayBusy',
  'display-offline': 'DisplayOffline',
  'display-busy': 'DisplayBusy',
  'target-forbidden': 'TargetForbidden',
  'invitation-too-large': 'InvitationRefused',
  'invitation-markup': 'InvitationRefused',
  'invitation-malformed': 'InvitationRefused',
  'invitation-password': 'InvitationRefused',
  // WS-Discovery's Connect always names a target: never a browser source.
  'browser-unsupported': 'BadRequest',
};

/** Answers /wsd/… requests; false when the path is not one of them. */
export async function handleWsdRequest(deps: WsdHttpDeps, request: IncomingMessage, response: ServerResponse, path: string): Promise<boolean> {
  const match = PATH.exec(path);
  if (!match?.[1]) return false;
  const displayId = match[1];
  const service = match[2] ? 'projector' : 'device';
  const { metrics } = deps;
  const drop = (status: number, reason: string, text: string): true => {
    metrics.wsdHttpDropped.inc({ reason });
    response.writeHead(status, { 'content-type': 'text/plain; charset=utf-8' });
    response.end(`${text}\n`);
    return true;
  };
  if (request.method !== 'POST') return drop(405, 'method', 'WS-Discovery endpoints take SOAP over POST');
  const type = (request.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
  if (type !== 'application/soap+xml') return drop(415, 'content-type', 'content-type must be application/soap+xml');
  const declared = Number(request.headers['content-length'] ?? '0');
  if (declared > MAX_WSD_MESSAGE_BYTES) return drop(413, 'too-large', `body larger than ${MAX_WSD_MESSAGE_BYTES} bytes`);
  const body = await readCapped(request);
  if (!body) return drop(413, 'too-large', `body larger than ${MAX_WSD_MESSAGE_BYTES} bytes`);
  const read = readWsdMessage(body);
  if (!read.ok) {
    metrics.wsdHttpDropped.inc({ reason: read.reason });
    return answer(deps, response, { kind: 'fault', header: { messageId: newId() }, fault: projectorFault('BadRequest', `the request could not be read: ${read.detail}`) }, 400);
  }
  const { message } = read;
  metrics.wsdHttpMessages.inc({ direction: 'in', kind: message.kind });
  const relatesTo = message.header.messageId;
  const reply = (kind: 'fault', fault: SoapFault, status: number): true => answer(deps, response, { kind, header: { messageId: newId(), relatesTo, to: ANONYMOUS }, fault }, status);
  const display = (await deps.displays.listDisplays()).find((candidate) => candidate.id === displayId);
  if (!display) return reply('fault', projectorFault('UnknownDisplay', `no display "${displayId}" on this gateway`), 404);

  if (service === 'device' && message.kind === 'get') {
    const state = await deps.presence.displayState(displayId);
    const host = request.headers.host ?? 'localhost';
    const base = `${deps.tls ? 'https' : 'http'}://${host}`;
    return answer(deps, response, {
      kind: 'get-response', header: { messageId: newId(), relatesTo, to: ANONYMOUS },
      metadata: {
        model: { manufacturer: 'Lanterna', modelName: 'Lanterna network display', modelNumber: deps.version, presentationUrl: `${base}/display/${displayId}` },
        device: { friendlyName: display.name, firmwareVersion: deps.version, serialNumber: display.id },
        host: { endpoint: displayEndpoint(deps.deviceSeed(), displayId), types: [DEVICE_TYPE, DISPLAY_TYPE] },
        hosted: [{ address: `${base}/wsd/${displayId}/projector`, types: [PROJECTOR_TYPE], serviceId: `urn:lanterna:projector:${displayId}` }],
        display: { id: displayId, location: display.location, state },
      },
    }, 200);
  }
  if (service === 'projector' && message.kind === 'connect') {
    const outcome = await connect(deps, request, displayId, message.request);
    if (!outcome.ok) {
      if (outcome.retryAfterMs !== undefined) response.setHeader('retry-after', String(retryAfterSeconds(outcome.retryAfterMs)));
      return reply('fault', projectorFault(FAULT_OF[outcome.code], faultReason(outcome)), 400);
    }
    return answer(deps, response, { kind: 'connect-response', header: { messageId: newId(), relatesTo, to: ANONYMOUS }, response: { sessionId: outcome.sessionId, target: outcome.target, stopToken: outcome.stopToken } }, 200);
  }
  if (service === 'projector' && message.kind === 'disconnect') {
    const outcome = await disconnect(deps, request, displayId, message.request);
    if (outcome === 'stopped') return answer(deps, response, { kind: 'disconnect-response', header: { messageId: newId(), relatesTo, to: ANONYMOUS } }, 200);
    if (outcome.retryAfterMs !== undefined) response.setHeader('retry-after', String(retryAfterSeconds(outcome.retryAfterMs)));
    return reply('fault', outcome.fault, 400);
  }
  return reply('fault', projectorFault('BadRequest', `this endpoint does not take ${message.kind} messages`), 400);
}

function connect(deps: WsdHttpDeps, http: IncomingMessage, displayId: string, request: ConnectRequest): Promise<PresenterOutcome> {
  const address = deps.clientAddress(http);
  return deps.presenters.request({
    displayId,
    target: request.target ? { host: request.target.host, port: request.target.port, name: request.target.name ?? request.presenter } : undefined,
    assistance: request.invitation ? { invitation: request.invitation.text, password: request.invitation.password } : undefined,
    credentials: request.credentials ? { username: request.credentials.username, password: request.credentials.password, domain: request.credentials.domain } : undefined,
    pin: request.pin,
    source: sourceKey(address),
    requestedBy: { kind: 'wsd', ...(address === undefined ? {} : { address }), ...(request.presenter === undefined ? {} : { name: request.presenter }) },
  });
}

/**
 * Disconnect ends a projection only for whoever shows what the presenter API
 * asks for (the stop token ConnectResponse gave) or the room PIN (under the
 * wrong-PIN limits): the session id alone is no secret, it travels in
 * answers, URLs and logs. A projection already over answers as stopped.
 */
async function disconnect(deps: WsdHttpDeps, http: IncomingMessage, displayId: string, request: DisconnectRequest): Promise<'stopped' | { fault: SoapFault; retryAfterMs?: number | undefined }> {
  const unknown = { fault: projectorFault('UnknownSession', 'no such session on this display') };
  if (request.stopToken !== undefined) {
    const found = await deps.presenters.lookup(displayId, request.stopToken);
    // A waiting request's id is its session's to be: Disconnect names it either way.
    if (found.ok && (found.session?.sessionId ?? found.request?.requestId) !== request.sessionId && found.request?.requestId !== request.sessionId) return unknown;
    const stopped = found.ok ? await deps.presenters.stop(displayId, request.stopToken) : found;
    if (stopped.ok || stopped.code === 'no-projection') return 'stopped';
    return { fault: projectorFault('StopTokenWrong', 'the stop token does not belong to this session on this display') };
  }
  if (request.pin === undefined) {
    return { fault: projectorFault('StopTokenWrong', 'Disconnect needs the stop token from ConnectResponse (lp:StopToken) or the room PIN shown on the display (lp:Pin)') };
  }
  const stopped = await deps.presenters.stopWithPin(displayId, request.sessionId, request.pin, sourceKey(deps.clientAddress(http)));
  if (stopped.ok) return 'stopped';
  switch (stopped.code) {
    case 'no-projection': {
      const session = await deps.sessions.getSession(request.sessionId);
      return session?.displayId === displayId ? 'stopped' : unknown;
    }
    case 'pin-required': case 'pin-wrong': case 'pin-locked':
      return { fault: projectorFault(FAULT_OF[stopped.code], faultReason(stopped)), retryAfterMs: stopped.retryAfterMs };
    default:
      return { fault: projectorFault('Internal', stopped.reason) };
  }
}

function retryAfterSeconds(ms: number): number {
  return Math.max(1, Math.ceil(ms / 1000));
}

/** What a person at the presenter's computer reads: the broker's reason, or for the PIN what to do next. */
function faultReason(outcome: Extract<PresenterOutcome, { ok: false }>): string {
  switch (outcome.code) {
    case 'display-offline': return 'the display is switched off or not connected to the gateway';
    case 'display-busy': return 'the display is showing another presentation; ask its presenter to stop first';
    case 'pin-required': return 'this display asks for its room PIN: read it off the display and send it (lp:Pin)';
    case 'pin-wrong': {
      const left = outcome.attemptsLeft;
      const tries = left === undefined ? '' : left === 1 ? ' (1 more try before a pause)' : ` (${left} more tries before a pause)`;
      return `the room PIN is wrong: read it off the display again${tries}`;
    }
    case 'pin-locked': {
      const seconds = retryAfterSeconds(outcome.retryAfterMs ?? 0);
      const wait = seconds >= 120 ? `${Math.ceil(seconds / 60)} minutes` : seconds === 1 ? '1 second' : `${seconds} seconds`;
      const whose = outcome.scope === 'display' ? 'this display' : 'this computer';
      return `too many wrong room PINs from ${whose}; try again in ${wait}`;
    }
    default: return outcome.reason;
  }
}

function newId(): string {
  return `urn:uuid:${randomUUID()}`;
}

function answer(deps: WsdHttpDeps, response: ServerResponse, message: WsdMessage, status: number): true {
  deps.metrics.wsdHttpMessages.inc({ direction: 'out', kind: message.kind });
  // SOAP 1.2's HTTP binding: a Sender fault is 400, a Receiver fault 500.
  const code = message.kind === 'fault' && message.fault.code === 'Receiver' ? 500 : status;
  response.writeHead(code, { 'content-type': 'application/soap+xml; charset=utf-8' });
  response.end(writeWsdMessage(message));
  return true;
}

/** The body, or undefined once it passes the cap (the rest is not read). */
async function readCapped(request: IncomingMessage): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_WSD_MESSAGE_BYTES) {
      request.resume();
      return undefined;
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}
