// Messages of docs/kiosk-protocol.md (version 1), and a strict reader for the
// gateway's side: unknown types are a protocol error, unknown fields are ignored.

export const protocolVersion = 1;
export const subprotocol = 'lanterna.v1';

export interface Target {
  readonly name: string;
  readonly host: string;
  readonly port: number;
}

export interface Credentials {
  readonly username: string;
  readonly password: string;
  readonly domain?: string;
}

export interface ErrorMessage {
  readonly type: 'error';
  readonly phase: string;
  readonly code: string;
  readonly message: string;
  readonly detail?: Record<string, unknown>;
}

export interface WelcomeMessage {
  readonly type: 'welcome';
  readonly protocol: number;
  readonly display: { readonly id: string; readonly name: string };
  readonly heartbeatMs: number;
}

export interface ProjectMessage {
  readonly type: 'project';
  readonly sessionId: string;
  readonly sessionToken: string;
  readonly target: Target;
  readonly credentials?: Credentials;
  readonly settings?: Record<string, unknown>;
}

export interface StopMessage {
  readonly type: 'stop';
  readonly sessionId: string;
  readonly reason: string;
}

export type ControlServerMessage = WelcomeMessage | ProjectMessage | StopMessage | ErrorMessage;

export interface SecuredMessage {
  readonly type: 'secured';
  readonly protocol: 'ssl' | 'hybrid' | 'hybrid-ex';
  readonly tlsVersion: string;
  readonly cipher: string;
  readonly certificates: readonly string[];
  readonly publicKey: string;
  readonly fingerprint: string;
  readonly trust: 'pinned' | 'first-use' | 'ca' | 'insecure';
}

export interface EndedMessage {
  readonly type: 'ended';
  readonly reason: string;
}

/** The gateway's answer to the kiosk's `ping` (see docs/kiosk-protocol.md). */
export interface PongMessage {
  readonly type: 'pong';
  readonly t: number;
}

export type DataServerMessage = SecuredMessage | EndedMessage | ErrorMessage | PongMessage;

export class ProtocolError extends Error {
  override readonly name = 'ProtocolError';
}

type Json = Record<string, unknown>;

function object(value: unknown, what: string): Json {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new ProtocolError(`${what} is not an object`);
  return value as Json;
}

function string(message: Json, field: string): string {
  const value = message[field];
  if (typeof value !== 'string') throw new ProtocolError(`${String(message.type)}.${field} is not a string`);
  return value;
}

function number(message: Json, field: string): number {
  const value = message[field];
  if (typeof value !== 'number' || !Number.isFinite(value)) throw new ProtocolError(`${String(message.type)}.${field} is not a number`);
  return value;
}

function parseJson(text: string): Json {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new ProtocolError('message is not json');
  }
  return object(value, 'message');
}

function readError(m: Json): ErrorMessage {
  const detail = m.detail;
  return {
    type: 'error',
    phase: string(m, 'phase'),
    code: string(m, 'code'),
    message: typeof m.message === 'string' ? m.message : '',
    ...(typeof detail === 'object' && detail !== null ? { detail: detail as Record<string, unknown> } : {}),
  };
}

function readCredentials(value: unknown): Credentials | undefined {
  if (value === undefined) return undefined;
  const c = object(value, 'project.credentials');
  return {
    username: string(c, 'username'),
    password: string(c, 'password'),
    ...(typeof c.domain === 'string' ? { domain: c.domain } : {}),
  };
}

export function parseControlMessage(text: string): ControlServerMessage {
  const m = parseJson(text);
  switch (m.type) {
    case 'welcome': {
      const display = object(m.display, 'welcome.display');
      return {
        type: 'welcome',
        protocol: number(m, 'protocol'),
        display: { id: string(display, 'id'), name: string(display, 'name') },
        heartbeatMs: typeof m.heartbeatMs === 'number' ? m.heartbeatMs : 15000,
      };
    }
    case 'project': {
      const target = object(m.target, 'project.target');
      const credentials = readCredentials(m.credentials);
      return {
        type: 'project',
        sessionId: string(m, 'sessionId'),
        sessionToken: string(m, 'sessionToken'),
        target: { name: typeof target.name === 'string' ? target.name : string(target, 'host'), host: string(target, 'host'), port: number(target, 'port') },
        ...(credentials ? { credentials } : {}),
        ...(typeof m.settings === 'object' && m.settings !== null ? { settings: m.settings as Record<string, unknown> } : {}),
      };
    }
    case 'stop':
      return { type: 'stop', sessionId: string(m, 'sessionId'), reason: typeof m.reason === 'string' ? m.reason : '' };
    case 'error':
      return readError(m);
    default:
      throw new ProtocolError(`unknown control message type ${JSON.stringify(m.type)}`);
  }
}

export function parseDataMessage(text: string): DataServerMessage {
  const m = parseJson(text);
  switch (m.type) {
    case 'secured': {
      const certificates = m.certificates;
      if (!Array.isArray(certificates) || !certificates.every((c) => typeof c === 'string')) throw new ProtocolError('secured.certificates is not a list of strings');
      const protocol = string(m, 'protocol');
      if (protocol !== 'ssl' && protocol !== 'hybrid' && protocol !== 'hybrid-ex') throw new ProtocolError(`secured.protocol ${protocol} is unknown`);
      const trust = string(m, 'trust');
      if (trust !== 'pinned' && trust !== 'first-use' && trust !== 'ca' && trust !== 'insecure') throw new ProtocolError(`secured.trust ${trust} is unknown`);
      return {
        type: 'secured',
        protocol,
        tlsVersion: typeof m.tlsVersion === 'string' ? m.tlsVersion : '',
        cipher: typeof m.cipher === 'string' ? m.cipher : '',
        certificates,
        publicKey: string(m, 'publicKey'),
        fingerprint: typeof m.fingerprint === 'string' ? m.fingerprint : '',
        trust,
      };
    }
    case 'ended':
      return { type: 'ended', reason: typeof m.reason === 'string' ? m.reason : '' };
    case 'pong':
      return { type: 'pong', t: number(m, 't') };
    case 'error':
      return readError(m);
    default:
      throw new ProtocolError(`unknown data message type ${JSON.stringify(m.type)}`);
  }
}
