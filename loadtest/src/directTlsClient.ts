// Connects straight to an echo host the way the gateway's target leg does
// (X.224 in the clear, then TLS): the raw-TLS baseline of the throughput runs.
import net from 'node:net';
import tls from 'node:tls';
import { buildConnectionRequest, PROTOCOL } from '@lanterna/protocol';
import { readFirstPdu } from './firstPduReader.js';
import { expectTlsConfirm } from './tlsConfirm.js';
import type { EchoHandshake } from './echoHost.js';

export interface DirectTlsOptions {
  host: string;
  port: number;
  handshake: EchoHandshake;
  timeoutMs?: number;
}

/** The returned socket is paused: attach a 'data' listener, then resume() it. */
export async function connectDirectTls(options: DirectTlsOptions): Promise<tls.TLSSocket> {
  const timeoutMs = options.timeoutMs ?? 10_000;
  if (options.handshake === 'tls-first') {
    const secure = await tlsOver({ host: options.host, port: options.port }, timeoutMs);
    await negotiate(secure, timeoutMs);
    return secure;
  }
  const socket = net.connect({ host: options.host, port: options.port, noDelay: true });
  try {
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', resolve);
      socket.once('error', reject);
    });
    await negotiate(socket, timeoutMs);
    return await tlsOver({ socket }, timeoutMs);
  } catch (error) {
    socket.destroy();
    throw error;
  }
}

async function negotiate(stream: net.Socket, timeoutMs: number): Promise<void> {
  stream.write(buildConnectionRequest({ requestedProtocols: PROTOCOL.SSL, cookie: 'loadtest' }));
  const { pdu } = await readFirstPdu(stream, 1024, timeoutMs);
  expectTlsConfirm(pdu, 'server');
}

function tlsOver(target: { socket: net.Socket } | { host: string; port: number }, timeoutMs: number): Promise<tls.TLSSocket> {
  return new Promise((resolve, reject) => {
    // the echo host's certificate is self-signed on purpose; this client is a
    // measuring stick, not a trust decision
    const secure = tls.connect({ ...target, rejectUnauthorized: false });
    const timer = setTimeout(() => { secure.destroy(); reject(new Error(`tls handshake over ${timeoutMs} ms`)); }, timeoutMs);
    secure.once('secureConnect', () => { clearTimeout(timer); resolve(secure); });
    secure.once('error', (error: Error) => { clearTimeout(timer); reject(error); });
  });
}
