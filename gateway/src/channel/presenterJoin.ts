// The server handshake of a browser-source session (docs/browser-presenter.md
// "What the gateway does for a presenter leg"): instead of TCP, X.224 and TLS
// to a target, the display's Connection Request goes to the presenter page's
// socket whole, one Connection Confirm comes back (≤ 1 KiB, under the
// Confirm deadline, selecting PROTOCOL_SSL), and the leg is reported
// `secured` with trust `presenter` and the page's own certificate. No TLS of
// the gateway's: the page's wss connection is the leg's security. Every step
// has a deadline and a typed error for the display; the presenter hears its
// own (`bad-message`) when it was at fault.
import type { Duplex } from 'node:stream';
import type { WebSocket } from 'ws';
import {
  DEFAULT_MAX_PDU_BYTES, parseConnectionConfirm, parseConnectionRequest, PROTOCOL, selectedProtocol, splitWholePdus,
  type GatewayPresenterMessage,
} from '@lanterna/protocol';
import { SessionError } from '../session/sessionError.js';
import { abortReason, NegotiationFailure, type SecuredInfo } from '../connect/targetConnector.js';
import type { RelayEnd } from '../relay/relayCore.js';
import { PresenterSocketStream } from '../relay/presenterSocketStream.js';
import { HandshakeReader } from './handshakeReader.js';
import type { PresenterLeg, PresenterLegs } from './presenterLegs.js';
import { presenterFingerprint } from './presenterAdmission.js';

/** A Connection Confirm is a few dozen bytes (the same cap as a TCP target's). */
const MAX_CONFIRM_BYTES = 1024;

/** A server leg ready to relay: a TLS socket to a target, or a presenter page's socket. */
export interface ServerLeg {
  socket: Duplex;
  confirm: Buffer;
  secured: SecuredInfo;
  address: string;
  /** Bytes queued beneath the leg's own write count (a TLS leg's TCP socket; targetConnector.ts). */
  writeQueued?: (() => number) | undefined;
  /** Called once with how the session ended (a presenter page is told, then its socket closes). */
  ended?: ((end: RelayEnd) => void) | undefined;
}

export interface PresenterJoinOptions {
  legs: PresenterLegs;
  /** How long the display waits for the presenter's socket (timeouts.connectMs) and for its Confirm (timeouts.confirmMs). */
  timeouts: { connectMs: number; confirmMs: number };
  /** relay.presenterBytesPerSecond: how fast the page's socket is read at most. */
  bytesPerSecond: number;
  signal: AbortSignal;
}

function send(socket: WebSocket, message: GatewayPresenterMessage): void {
  if (socket.readyState === socket.OPEN) socket.send(JSON.stringify(message));
}

/** Tells the presenter's page how its session ended, then closes its socket. */
export function endPresenter(socket: WebSocket, end: RelayEnd, fault: SessionError | undefined): void {
  if (socket.readyState !== socket.OPEN) return;
  if (fault) {
    send(socket, fault.toMessage());
    socket.close(fault.closeCode, fault.code);
    return;
  }
  if (end.reason === 'error') {
    const { error } = end;
    // What the gateway found wrong with the presenter's side is the presenter's error; anything else ended the display's side.
    if (error.detail.side === 'server') {
      send(socket, error.toMessage());
      socket.close(error.closeCode, error.code);
      return;
    }
    send(socket, { type: 'ended', reason: error.code });
    socket.close(1000, error.code);
    return;
  }
  send(socket, { type: 'ended', reason: end.reason });
  socket.close(end.reason === 'gateway-shutdown' ? 1001 : 1000, end.reason);
}

/** Waits for the presenter's socket, passes the Request, reads the Confirm: the leg, secured, or a typed error. */
export async function joinPresenter(grant: { sessionId: string }, connectionRequest: Buffer, options: PresenterJoinOptions): Promise<ServerLeg> {
  let requested: number;
  try {
    requested = parseConnectionRequest(connectionRequest).requestedProtocols;
  } catch (error) {
    throw new SessionError('request', 'bad-message', `the display's connection request is malformed: ${(error as Error).message}`);
  }
  if ((requested & PROTOCOL.SSL) === 0) {
    throw new SessionError('request', 'negotiation-failed', "the display did not offer tls, the only security a presenter page's leg has", { requestedProtocols: requested });
  }
  const { connectMs, confirmMs } = options.timeouts;
  const leg = await options.legs.take(grant.sessionId, connectMs, options.signal);
  if (!leg) {
    if (options.signal.aborted) throw abortReason(options.signal, 'connect');
    throw new SessionError('connect', 'timeout', `the presenter page did not connect within ${connectMs} ms`, { phase: 'connect' });
  }
  try {
    return await confirmFromPresenter(leg, connectionRequest, { confirmMs, bytesPerSecond: options.bytesPerSecond }, options.signal);
  } catch (error) {
    const sessionError = error instanceof SessionError ? error : new SessionError('x224', 'internal', undefined, {}, { error: String(error) });
    const presenterFault = sessionError.internal.presenterFault === true || error instanceof NegotiationFailure;
    if (presenterFault) {
      send(leg.socket, new SessionError('x224', 'bad-message', sessionError.message).toMessage());
      if (leg.socket.readyState === leg.socket.OPEN) leg.socket.close(4400, 'bad-message');
    } else {
      endPresenter(leg.socket, { reason: sessionError.code === 'gateway-shutdown' ? 'gateway-shutdown' : 'client-closed' }, undefined);
    }
    throw error;
  }
}

async function confirmFromPresenter(leg: PresenterLeg, connectionRequest: Buffer, { confirmMs, bytesPerSecond }: { confirmMs: number; bytesPerSecond: number }, signal: AbortSignal): Promise<ServerLeg> {
  const reader = new HandshakeReader(leg.socket);
  let onAbort: (() => void) | undefined;
  try {
    leg.socket.send(connectionRequest, { binary: true });
    const aborted = new Promise<'aborted'>((resolve) => {
      onAbort = () => resolve('aborted');
      if (signal.aborted) onAbort();
      else signal.addEventListener('abort', onAbort, { once: true });
    });
    const next = await Promise.race([reader.next(confirmMs), aborted]);
    const fault = (message: string, code: 'x224-invalid' | 'negotiation-failed' = 'x224-invalid'): SessionError =>
      new SessionError('x224', code, `the presenter page ${message}`, {}, { presenterFault: true });
    if (next === 'aborted') throw abortReason(signal, 'x224');
    if (next === 'closed') throw new SessionError('x224', 'server-error', 'the presenter page left before its connection confirm');
    if (next === 'timeout') throw new SessionError('x224', 'timeout', `the presenter page sent no connection confirm within ${confirmMs} ms`, { phase: 'x224' }, { presenterFault: true });
    if (next === 'interrupted') throw fault('sent more than its connection confirm');
    if (next.kind !== 'binary') throw fault('sent text where its connection confirm belongs');
    const confirm = next.data;
    if (confirm.length > MAX_CONFIRM_BYTES) throw fault(`sent ${confirm.length} bytes where a connection confirm of at most ${MAX_CONFIRM_BYTES} belongs`);
    let parsed;
    try {
      if (splitWholePdus(confirm, 'rdp', { maxPduBytes: DEFAULT_MAX_PDU_BYTES }).length !== 1 || confirm[0] !== 3) throw new Error('not one tpkt');
      parsed = parseConnectionConfirm(confirm);
    } catch (error) {
      throw fault(`sent no connection confirm: ${(error as Error).message}`);
    }
    if (parsed.kind === 'failure') throw new NegotiationFailure(confirm, parsed.failureCode);
    let chosen: number;
    try {
      chosen = selectedProtocol(parsed);
    } catch (error) {
      throw fault(`refused the connection: ${(error as Error).message}`, 'negotiation-failed');
    }
    if (chosen !== PROTOCOL.SSL) throw fault(`selected protocol ${chosen}, not tls (1)`, 'negotiation-failed');
    const leftovers = reader.detach();
    if (leftovers.length > 0) throw fault('sent more than its connection confirm before the display answered');
    const secured: SecuredInfo = {
      type: 'secured', protocol: 'ssl', tlsVersion: '', cipher: '',
      certificates: leg.certificate === undefined ? [] : [leg.certificate], publicKey: leg.publicKey,
      fingerprint: presenterFingerprint(leg.certificate), trust: 'presenter',
    };
    const stream = new PresenterSocketStream(leg.socket, DEFAULT_MAX_PDU_BYTES, bytesPerSecond);
    return {
      socket: stream, confirm, secured, address: 'presenter',
      ended: (end) => endPresenter(leg.socket, end, stream.fault),
    };
  } finally {
    reader.detach();
    if (onAbort) signal.removeEventListener('abort', onAbort);
  }
}
