// A display that speaks docs/kiosk-protocol.md to a Lanterna gateway: control
// socket hello, wait for `project`, data socket `open`, X.224 Connection
// Request, then `secured` and the Connection Confirm. What follows is the echo
// phase, handed to the caller as an EchoChannel.
import WebSocket from 'ws';
import { buildConnectionRequest, countWholePdus, PROTOCOL } from '@lanterna/protocol';
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

const SUBPROTOCOL = 'lanterna.v1';

interface GatewayMessage { type: string; [field: string]: unknown }

class KioskError extends Error {
  constructor(readonly phase: string, message: string) { super(`${phase}: ${message}`); }
}

function describeGatewayError(message: GatewayMessage): string {
  const phase = typeof message['phase'] === 'string' ? message['phase'] : '?';
  const code = typeof message['code'] === 'string' ? message['code'] : '?';
  const text = typeof message['message'] === 'string' ? message['message'] : '';
  return `gateway error ${phase}/${code} ${text}`.trim();
}

function openSocket(url: string, options: SimulatedKioskOptions): WebSocket {
  return new WebSocket(url, SUBPROTOCOL, {
    ...loadClientSocketOptions,
    handshakeTimeout: options.timeoutMs,
    ...(options.localAddress === undefined ? {} : { localAddress: options.localAddress }),
  });
}

/**
 * Resolves when `accept` returns a value for an incoming message; rejects on
 * an `error` message, a close, or the deadline.
 */
function awaitMessage<T>(socket: WebSocket, phase: string, timeoutMs: number,
  accept: (data: Buffer, isBinary: boolean) => T | undefined): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const done = (): void => {
      clearTimeout(timer);
      socket.off('message', onMessage);
      socket.off('close', onClose);
      socket.off('error', onError);
    };
    const onMessage = (data: Buffer, isBinary: boolean): void => {
      if (!isBinary) {
        const parsed = jsonOf(data, isBinary);
        if (parsed?.type === 'error') { done(); reject(new KioskError(phase, describeGatewayError(parsed))); return; }
      }
      try {
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

function jsonOf(data: Buffer, isBinary: boolean): GatewayMessage | undefined {
  if (isBinary) return undefined;
  try {
    return JSON.parse(data.toString('utf8')) as GatewayMessage;
  } catch {
    return { type: 'unparseable' };
  }
}

export async function connectSimulatedKiosk(options: SimulatedKioskOptions): Promise<EchoChannel> {
  const control = openSocket(`${options.baseUrl}/v1/displays/${encodeURIComponent(options.displayId)}/control`, options);
  control.on('error', () => { /* reported through the awaited phase */ });
  let data: WebSocket | undefined;
  try {
    await whenOpen(control, 'hello');
    const welcomed = awaitMessage(control, 'hello', options.timeoutMs, (raw, isBinary) => {
      const message = jsonOf(raw, isBinary);
      return message?.type === 'welcome' ? message : undefined;
    });
    const projected = awaitMessage(control, 'project', options.timeoutMs * 2, (raw, isBinary) => {
      const message = jsonOf(raw, isBinary);
      return message?.type === 'project' ? message : undefined;
    });
    control.send(JSON.stringify({ type: 'hello', protocol: 1, token: options.displayToken, client: 'lanterna-loadtest/0.1' }));
    await welcomed;
    const project = await projected;
    const sessionId = project['sessionId'];
    const sessionToken = project['sessionToken'];
    if (typeof sessionId !== 'string' || typeof sessionToken !== 'string') throw new KioskError('project', 'project message without session id or token');

    data = openSocket(`${options.baseUrl}/v1/sessions/${encodeURIComponent(sessionId)}/data`, options);
    data.on('error', () => { /* reported through the awaited phase */ });
    await whenOpen(data, 'open');
    let secured = false;
    const confirmed = awaitMessage(data, 'secured', options.timeoutMs * 3, (raw, isBinary) => {
      if (!isBinary) {
        const message = jsonOf(raw, isBinary);
        if (message?.type === 'secured') secured = true;
        return undefined;
      }
      if (!secured) throw new Error('binary frame before secured');
      expectTlsConfirm(raw, 'gateway');
      return true;
    });
    data.send(JSON.stringify({ type: 'open', token: sessionToken }));
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
    if (!isBinary) {
      const message = jsonOf(raw, isBinary) ?? { type: 'unparseable' };
      if (message.type === 'error' || message.type === 'ended') fail(new KioskError('relay', message.type === 'error' ? describeGatewayError(message) : `session ended (${String(message['reason'])})`));
    }
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
      if (data.readyState === WebSocket.OPEN) data.send(JSON.stringify({ type: 'close' }));
      data.close(1000);
      control.close(1000);
      // a gateway that never answers the close must not keep the sockets alive
      setTimeout(() => { data.terminate(); control.terminate(); }, 2000).unref();
    },
  };
}
