// The baseline client: websockify has no kiosk protocol, so the client sends
// its X.224 Connection Request straight over the WebSocket; websockify relays
// the bytes into a TLS connection it opened to the echo host (tls-first mode),
// which confirms inside TLS. websockify forwards TCP chunks as they come, so
// responses are counted on the byte stream, not per message.
import WebSocket from 'ws';
import { buildConnectionRequest, eventByteSource, PduReadError, PduStreamCounter, PROTOCOL, readOnePdu } from '@lanterna/protocol';
import { expectTlsConfirm } from './tlsConfirm.js';
import { ChannelEnd, loadClientSocketOptions, type EchoChannel } from './echoChannel.js';

export interface WebsockifyKioskOptions {
  url: string;
  localAddress?: string | undefined;
  /** For wss:// (the pipe under `--kiosk-tls`): the relay's certificate, the only one trusted. */
  caPem?: string | undefined;
  timeoutMs: number;
}

export async function connectWebsockifyKiosk(options: WebsockifyKioskOptions): Promise<EchoChannel> {
  const socket = new WebSocket(options.url, {
    ...loadClientSocketOptions,
    handshakeTimeout: options.timeoutMs,
    ...(options.localAddress === undefined ? {} : { localAddress: options.localAddress }),
    ...(options.caPem === undefined ? {} : { ca: options.caPem }),
  });
  socket.on('error', () => { /* reported through the handshake promise or onFailure */ });
  const counter = new PduStreamCounter();
  const handshake = eventByteSource<Buffer>(socket, { dataEvent: 'message', endEvents: ['close'] });
  socket.once('open', () => socket.send(buildConnectionRequest({ requestedProtocols: PROTOCOL.SSL, cookie: 'loadtest' })));
  try {
    const { pdu, rest } = await readOnePdu(handshake, { maxBytes: 1024, trailing: 'return', signal: AbortSignal.timeout(options.timeoutMs) });
    expectTlsConfirm(pdu, 'echo host');
    for (const early of [rest, ...handshake.detach()]) counter.push(early);
  } catch (error) {
    handshake.detach();
    socket.terminate();
    if (error instanceof PduReadError && error.kind === 'aborted') throw new Error(`websockify: no connection confirm within ${options.timeoutMs} ms`);
    if (error instanceof PduReadError && error.kind === 'closed') throw new Error(`websockify closed during the handshake: ${error.message}`);
    throw error;
  }
  const end = new ChannelEnd(() => { socket.terminate(); });
  const fail = (error: Error): void => end.fail(error);
  socket.on('close', (code: number) => fail(new Error(`websockify closed with ${code}`)));
  return {
    send: (pdu) => socket.send(pdu, { binary: true }),
    onResponses: (listener) => {
      socket.on('message', end.counting(counter, listener));
    },
    onFailure: (listener) => end.onFailure(listener),
    close: () => {
      end.closing();
      socket.close(1000);
      setTimeout(() => socket.terminate(), 2000).unref();
    },
  };
}
