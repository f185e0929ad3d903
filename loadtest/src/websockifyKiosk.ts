// The baseline client: websockify has no kiosk protocol, so the client sends
// its X.224 Connection Request straight over the WebSocket; websockify relays
// the bytes into a TLS connection it opened to the echo host (tls-first mode),
// which confirms inside TLS. websockify forwards TCP chunks as they come, so
// responses are counted on the byte stream, not per message.
import WebSocket from 'ws';
import { buildConnectionRequest, parseConnectionConfirm, PROTOCOL_SSL } from './x224Negotiation.js';
import { TpktPduCounter } from './tpktPdu.js';
import { ChannelEnd, loadClientSocketOptions, type EchoChannel } from './echoChannel.js';

export interface WebsockifyKioskOptions {
  url: string;
  localAddress?: string | undefined;
  timeoutMs: number;
}

export async function connectWebsockifyKiosk(options: WebsockifyKioskOptions): Promise<EchoChannel> {
  const socket = new WebSocket(options.url, {
    ...loadClientSocketOptions,
    handshakeTimeout: options.timeoutMs,
    ...(options.localAddress === undefined ? {} : { localAddress: options.localAddress }),
  });
  socket.on('error', () => { /* reported through the handshake promise or onFailure */ });
  const counter = new TpktPduCounter();
  try {
    await new Promise<void>((resolve, reject) => {
      let buffered = Buffer.alloc(0);
      const timer = setTimeout(() => reject(new Error(`websockify: no connection confirm within ${options.timeoutMs} ms`)), options.timeoutMs);
      const onMessage = (raw: Buffer): void => {
        buffered = Buffer.concat([buffered, raw]);
        if (buffered.length < 4) return;
        const length = buffered.readUInt16BE(2);
        if (buffered.length < length) return;
        cleanup();
        try {
          const selected = parseConnectionConfirm(buffered.subarray(0, length));
          if (selected !== PROTOCOL_SSL) throw new Error(`echo host confirmed protocol ${selected}`);
          if (buffered.length > length) counter.push(buffered.subarray(length));
          resolve();
        } catch (error) { reject(error instanceof Error ? error : new Error(String(error))); }
      };
      const onClose = (code: number): void => { cleanup(); reject(new Error(`websockify closed with ${code} during the handshake`)); };
      const onError = (error: Error): void => { cleanup(); reject(new Error(`websockify: ${error.message}`)); };
      const cleanup = (): void => {
        clearTimeout(timer);
        socket.off('message', onMessage);
        socket.off('close', onClose);
        socket.off('error', onError);
      };
      socket.on('message', onMessage);
      socket.once('close', onClose);
      socket.once('error', onError);
      socket.once('open', () => socket.send(buildConnectionRequest(PROTOCOL_SSL)));
    });
  } catch (error) {
    socket.terminate();
    throw error;
  }
  const end = new ChannelEnd(() => { socket.terminate(); });
  const fail = (error: Error): void => end.fail(error);
  socket.on('close', (code: number) => fail(new Error(`websockify closed with ${code}`)));
  return {
    send: (pdu) => socket.send(pdu, { binary: true }),
    onResponses: (listener) => {
      socket.on('message', (raw: Buffer) => {
        try {
          const completed = counter.push(raw);
          if (completed > 0) listener(completed);
        } catch (error) { fail(error instanceof Error ? error : new Error(String(error))); }
      });
    },
    onFailure: (listener) => end.onFailure(listener),
    close: () => {
      end.closing();
      socket.close(1000);
      setTimeout(() => socket.terminate(), 2000).unref();
    },
  };
}
