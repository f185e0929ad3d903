// The no-relay baseline: the client speaks X.224 + TLS straight to the echo
// host, so a relay's added latency is its response time minus this one.
import { connectDirectTls } from './directTlsClient.js';
import { PduStreamCounter } from '@lanterna/protocol';
import { ChannelEnd, type EchoChannel } from './echoChannel.js';

export async function connectDirectChannel(options: { host: string; port: number; timeoutMs: number }): Promise<EchoChannel> {
  const socket = await connectDirectTls({ host: options.host, port: options.port, handshake: 'x224-then-tls', timeoutMs: options.timeoutMs });
  socket.setNoDelay(true);
  const counter = new PduStreamCounter();
  const end = new ChannelEnd(() => { socket.destroy(); });
  const fail = (error: Error): void => end.fail(error);
  socket.on('error', (error: Error) => fail(error));
  socket.on('close', () => fail(new Error('echo host closed the connection')));
  return {
    send: (pdu) => { socket.write(pdu); },
    onResponses: (listener) => {
      socket.on('data', end.counting(counter, listener));
      socket.resume();
    },
    onFailure: (listener) => end.onFailure(listener),
    close: () => { end.closing(); socket.end(); setTimeout(() => socket.destroy(), 2000).unref(); },
  };
}
