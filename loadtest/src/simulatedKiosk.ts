// A display that speaks docs/kiosk-protocol.md to a Lanterna gateway once:
// control socket hello, wait for `project`, data socket `open`, X.224
// Connection Request, then `secured` and the Connection Confirm. What follows
// is the echo phase, handed to the caller as an EchoChannel. It never
// reconnects: the capacity ramps count a lost session as lost (the chaos and
// soak runs use pageLikeDisplay.ts, which comes back as the page does).
import WebSocket from 'ws';
import {
  countWholePdus,
  KIOSK_PROTOCOL_VERSION,
  parseGatewayControlMessage,
  parseGatewayDataMessage,
  type CloseMessage,
  type HelloMessage,
} from '@lanterna/protocol';
import { ChannelEnd, type EchoChannel } from './echoChannel.js';
import { awaitMessage, describeGatewayError, KioskError, messageOf, openDataSession, openKioskSocket, whenOpen } from './kioskSockets.js';

export interface SimulatedKioskOptions {
  /** ws://host:port or wss://host:port of the gateway (or of the load balancer in front of it). */
  baseUrl: string;
  displayId: string;
  displayToken: string;
  /** Source address for both sockets, so a source-hashing balancer sees one display as one client. */
  localAddress?: string | undefined;
  /** For wss://: the gateway's certificate, the only one trusted. */
  caPem?: string | undefined;
  timeoutMs: number;
}

export async function connectSimulatedKiosk(options: SimulatedKioskOptions): Promise<EchoChannel> {
  const { socket: control } = openKioskSocket(`${options.baseUrl}/v1/displays/${encodeURIComponent(options.displayId)}/control`, options);
  control.on('error', () => { /* reported through the awaited phase */ });
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
    const { socket: data } = await openDataSession({ baseUrl: options.baseUrl, sessionId, sessionToken, cookie: options.displayId }, options);
    return dataEchoChannel(data, [control]);
  } catch (error) {
    control.terminate();
    throw error;
  }
}

/**
 * The echo phase of one data socket: binary frames are responses (whole PDUs,
 * checked), text frames may end the session. `companions` (the display's
 * control socket, for the one-shot kiosk) end with it, and their loss is the
 * channel's failure too.
 */
export function dataEchoChannel(data: WebSocket, companions: readonly WebSocket[] = []): EchoChannel {
  const end = new ChannelEnd(() => { data.terminate(); for (const socket of companions) socket.terminate(); });
  const fail = (error: Error): void => end.fail(error);
  data.on('message', (raw: Buffer, isBinary: boolean) => {
    if (isBinary) return;
    const parsed = parseGatewayDataMessage(raw.toString('utf8'));
    if (!parsed.ok) fail(new KioskError('relay', `unreadable gateway message: ${parsed.failure.message}`));
    else if (parsed.message.type === 'error') fail(new KioskError('relay', describeGatewayError(parsed.message)));
    else if (parsed.message.type === 'ended') fail(new KioskError('relay', `session ended (${parsed.message.reason})`));
  });
  data.on('close', (code: number) => fail(new KioskError('relay', `data socket closed with ${code}`)));
  for (const socket of companions) socket.on('close', (code: number) => fail(new KioskError('relay', `control socket closed with ${code}`)));
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
      for (const socket of companions) socket.close(1000);
      // a gateway that never answers the close must not keep the sockets alive
      setTimeout(() => { data.terminate(); for (const socket of companions) socket.terminate(); }, 2000).unref();
    },
  };
}
