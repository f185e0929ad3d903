// A display that speaks docs/kiosk-protocol.md to a Lanterna gateway: control
// socket hello, wait for `project`, data socket `open`, X.224 Connection
// Request, then `secured` and the Connection Confirm. What follows is the echo
// phase, handed to the caller as an EchoChannel.
import WebSocket from 'ws';
import {
  buildConnectionRequest,
  countWholePdus,
  KIOSK_PROTOCOL_VERSION,
  KIOSK_SUBPROTOCOL,
  parseGatewayControlMessage,
  parseGatewayDataMessage,
  PROTOCOL,
  type CloseMessage,
  type ErrorMessage,
  type GatewayToKioskMessage,
  type HelloMessage,
  type KioskMessageParse,
  type OpenMessage,
} from '@lanterna/protocol';
import { expectTlsConfirm } from './tlsConfirm.js';
import { ChannelEnd, loadClientSocketOptions, type EchoChannel } from './echoChannel.js';

export interface SimulatedKioskOptions {
  /** ws://host:port of the gateway (or of the load balancer in front of it). */
  baseUrl: string;
  displayId: string;
  displayToken: string;
  /** Source address for both sockets, so a source-hashing balancer sees one display as one client. */
  localAddress?: string | undefined;
  timeoutMs: number;
}

/** The reader for the socket a message came on (control or data). */
type MessageReader = (text: string) => KioskMessageParse<GatewayToKioskMessage>;

class KioskError extends Error {
  constructor(readonly phase: string, message: string) { super(`${phase}: ${message}`); }
}

function describeGatewayError(message: ErrorMessage): string {
  return `gateway error ${message.phase}/${message.code} ${message.message}`.trim();
}

function openSocket(url: string, options: SimulatedKioskOptions): WebSocket {
  return new WebSocket(url, KIOSK_SUBPROTOCOL, {
    ...loadClientSocketOptions,
    handshakeTimeout: options.timeoutMs,
    ...(options.localAddress === undefined ? {} : { localAddress: options.localAddress }),
  });
}

/**
 * Resolves when `accept` returns a value for an incoming message; rejects on
 * an `error` message, a close, or the deadline.
 */
function awaitMessage<T>(socket: WebSocket, read: MessageReader, phase: string, timeoutMs: number,
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

function whenOpen(socket: WebSocket, phase: string): Promise<void> {
  return new Promise((resolve, reject) => {
    socket.once('open', () => { socket.off('error', reject); resolve(); });
    socket.once('error', (error: Error) => reject(new KioskError(phase, error.message)));
  });
}

/** The JSON message in a text frame, or undefined for a binary frame; throws on one the protocol does not allow. */
function messageOf(read: MessageReader, data: Buffer, isBinary: boolean): GatewayToKioskMessage | undefined {
  if (isBinary) return undefined;
  const parsed = read(data.toString('utf8'));
  if (!parsed.ok) throw new Error(`unreadable gateway message: ${parsed.failure.message}`);
  return parsed.message;
}

export async function connectSimulatedKiosk(options: SimulatedKioskOptions): Promise<EchoChannel> {
  const control = openSocket(`${options.baseUrl}/v1/displays/${encodeURIComponent(options.displayId)}/control`, options);
  control.on('error', () => { /* reported through the awaited phase */ });
  let data: WebSocket | undefined;
  try {
    await whenOpen(control, 'hello');
    const welcomed = awaitMessage(control, parseGatewayControlMessage, 'hello', options.timeoutMs, (raw, isBinary) => {
      const message = messageOf(parseGatewayControlMessage, raw, isBinary);
      return message?.type === 'welcome' ? message : undefined;
    });
    const projected = awaitMessage(control, parseGatewayControlMessage, 'project', options.timeoutMs * 2, (raw, isBinary) => {
      const message = messageOf(parseGatewayControlMessage, raw, isBinary);
      return message?.type === 'project' ? message : undefined;
    });
    const hello: HelloMessage = { type: 'hello', protocol: KIOSK_PROTOCOL_VERSION, token: options.displayToken, client: 'lanterna-loadtest/0.1' };
    control.send(JSON.stringify(hello));
    await welcomed;
    const { sessionId, sessionToken } = await projected;

    data = openSocket(`${options.baseUrl}/v1/sessions/${encodeURIComponent(sessionId)}/data`, options);
    data.on('error', () => { /* reported through the awaited phase */ });
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
    data.send(JSON.stringify({ type: 'open', token: sessionToken } satisfies OpenMessage));
    data.send(buildConnectionRequest({ requestedProtocols: PROTOCOL.SSL, cookie: options.displayId.slice(0, 9) }));
    await confirmed;
    return echoChannelOver(control, data);
  } catch (error) {
    data?.terminate();
    control.terminate();
    throw error;
  }
}

function echoChannelOver(control: WebSocket, data: WebSocket): EchoChannel {
  const end = new ChannelEnd(() => { data.terminate(); control.terminate(); });
  const fail = (error: Error): void => end.fail(error);
  data.on('message', (raw: Buffer, isBinary: boolean) => {
    if (isBinary) return;
    const parsed = parseGatewayDataMessage(raw.toString('utf8'));
    if (!parsed.ok) fail(new KioskError('relay', `unreadable gateway message: ${parsed.failure.message}`));
    else if (parsed.message.type === 'error') fail(new KioskError('relay', describeGatewayError(parsed.message)));
    else if (parsed.message.type === 'ended') fail(new KioskError('relay', `session ended (${parsed.message.reason})`));
  });
  data.on('close', (code: number) => fail(new KioskError('relay', `data socket closed with ${code}`)));
  control.on('close', (code: number) => fail(new KioskError('relay', `control socket closed with ${code}`)));
  return {
    send: (pdu) => data.send(pdu, { binary: true }),
    onResponses: (listener) => {
      data.on('message', (raw: Buffer, isBinary: boolean) => {
        if (!isBinary) return;
        try { listener(countWholePdus(raw, 'rdp').count); } catch (error) { fail(error instanceof Error ? error : new Error(String(error))); }
      });
    },
    onFailure: (listener) => end.onFailure(listener),
    close: () => {
      end.closing();
      if (data.readyState === WebSocket.OPEN) data.send(JSON.stringify({ type: 'close' } satisfies CloseMessage));
      data.close(1000);
      control.close(1000);
      // a gateway that never answers the close must not keep the sockets alive
      setTimeout(() => { data.terminate(); control.terminate(); }, 2000).unref();
    },
  };
}
