// The socket-level pieces every simulated display shares (docs/kiosk-protocol.md):
// opening a kiosk WebSocket, waiting for one gateway message with a deadline,
// and the data socket's handshake (`open`, X.224 Connection Request,
// `secured`, Confirm). The one-shot kiosk of the capacity ramps and the
// page-like display of the chaos and soak runs are built from them.
import WebSocket from 'ws';
import {
  buildConnectionRequest,
  KIOSK_SUBPROTOCOL,
  parseGatewayDataMessage,
  PROTOCOL,
  type ErrorMessage,
  type GatewayToKioskMessage,
  type KioskMessageParse,
  type OpenMessage,
} from '@lanterna/protocol';
import { expectTlsConfirm } from './tlsConfirm.js';
import { loadClientSocketOptions } from './echoChannel.js';

/** The reader for the socket a message came on (control or data). */
export type MessageReader = (text: string) => KioskMessageParse<GatewayToKioskMessage>;

export class KioskError extends Error {
  constructor(readonly phase: string, message: string) { super(`${phase}: ${message}`); }
}

export function describeGatewayError(message: ErrorMessage): string {
  return `gateway error ${message.phase}/${message.code} ${message.message}`.trim();
}

/** Where a socket's client end is bound: what the gateway (or balancer) sees as the peer. */
export interface SocketEndpoint { address: string; port: number }

export interface KioskSocketOptions {
  timeoutMs: number;
  /** Source address, so a source-hashing balancer sees one display as one client. */
  localAddress?: string | undefined;
  /** For wss://: the gateway's certificate, trusted as the only authority (a kiosk pinned to its gateway). */
  caPem?: string | undefined;
}

/** A kiosk WebSocket; `endpoint` resolves with its local address once the upgrade is answered. */
export function openKioskSocket(url: string, options: KioskSocketOptions): { socket: WebSocket; endpoint: Promise<SocketEndpoint> } {
  const socket = new WebSocket(url, KIOSK_SUBPROTOCOL, {
    ...loadClientSocketOptions,
    handshakeTimeout: options.timeoutMs,
    ...(options.localAddress === undefined ? {} : { localAddress: options.localAddress }),
    ...(options.caPem === undefined ? {} : { ca: options.caPem }),
  });
  const endpoint = new Promise<SocketEndpoint>((resolve, reject) => {
    socket.once('upgrade', (response) => resolve({ address: response.socket.localAddress ?? '', port: response.socket.localPort ?? 0 }));
    socket.once('close', () => reject(new Error('closed before the upgrade')));
  });
  endpoint.catch(() => { /* only read for sockets that opened */ });
  return { socket, endpoint };
}

/** The JSON message in a text frame, or undefined for a binary frame; throws on one the protocol does not allow. */
export function messageOf(read: MessageReader, data: Buffer, isBinary: boolean): GatewayToKioskMessage | undefined {
  if (isBinary) return undefined;
  const parsed = read(data.toString('utf8'));
  if (!parsed.ok) throw new Error(`unreadable gateway message: ${parsed.failure.message}`);
  return parsed.message;
}

/**
 * Resolves when `accept` returns a value for an incoming message; rejects on
 * an `error` message, a close, or the deadline.
 */
export function awaitMessage<T>(socket: WebSocket, read: MessageReader, phase: string, timeoutMs: number,
  accept: (data: Buffer, isBinary: boolean) => T | undefined): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const done = (): void => {
      clearTimeout(timer);
      socket.off('message', onMessage);
      socket.off('close', onClose);
      socket.off('error', onError);
    };
    const onMessage = (data: Buffer, isBinary: boolean): void => {
      try {
        const parsed = messageOf(read, data, isBinary);
        if (parsed?.type === 'error') { done(); reject(new KioskError(phase, describeGatewayError(parsed))); return; }
        const value = accept(data, isBinary);
        if (value !== undefined) { done(); resolve(value); }
      } catch (error) {
        done();
        reject(error instanceof Error ? new KioskError(phase, error.message) : new KioskError(phase, String(error)));
      }
    };
    const onClose = (code: number): void => { done(); reject(new KioskError(phase, `socket closed with ${code}`)); };
    const onError = (error: Error): void => { done(); reject(new KioskError(phase, error.message)); };
    const timer = setTimeout(() => { done(); reject(new KioskError(phase, `no answer within ${timeoutMs} ms`)); }, timeoutMs);
    socket.on('message', onMessage);
    socket.on('close', onClose);
    socket.on('error', onError);
  });
}

export function whenOpen(socket: WebSocket, phase: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const onOpen = (): void => { socket.off('error', onError); resolve(); };
    const onError = (error: Error): void => { socket.off('open', onOpen); reject(new KioskError(phase, error.message)); };
    socket.once('open', onOpen);
    socket.once('error', onError);
  });
}

export interface DataSessionRequest {
  baseUrl: string;
  sessionId: string;
  sessionToken: string;
  /** Goes into the Connection Request's cookie, as a client's user name would. */
  cookie: string;
}

export interface OpenedDataSession { socket: WebSocket; endpoint: SocketEndpoint }

/**
 * Opens a session's data socket and walks it to the relay phase: `open` with
 * the session token, the Connection Request, `secured`, then the server's
 * Confirm. The socket is terminated when any step fails.
 */
export async function openDataSession(request: DataSessionRequest, options: KioskSocketOptions): Promise<OpenedDataSession> {
  const { socket: data, endpoint } = openKioskSocket(`${request.baseUrl}/v1/sessions/${encodeURIComponent(request.sessionId)}/data`, options);
  data.on('error', () => { /* reported through the awaited phase */ });
  try {
    await whenOpen(data, 'open');
    let secured = false;
    const confirmed = awaitMessage(data, parseGatewayDataMessage, 'secured', options.timeoutMs * 3, (raw, isBinary) => {
      if (!isBinary) {
        const message = messageOf(parseGatewayDataMessage, raw, isBinary);
        if (message?.type === 'secured') secured = true;
        return undefined;
      }
      if (!secured) throw new Error('binary frame before secured');
      expectTlsConfirm(raw, 'gateway');
      return true;
    });
    data.send(JSON.stringify({ type: 'open', token: request.sessionToken } satisfies OpenMessage));
    data.send(buildConnectionRequest({ requestedProtocols: PROTOCOL.SSL, cookie: request.cookie.slice(0, 9) }));
    await confirmed;
    return { socket: data, endpoint: await endpoint };
  } catch (error) {
    data.terminate();
    throw error;
  }
}
