// The stand-in RDP server of the load test: accepts the X.224 Connection
// Request, confirms PROTOCOL_SSL, terminates TLS, then answers every TPKT PDU
// (echo, fixed-size reply, or a continuous stream for throughput runs). It must
// never be the bottleneck, so the echo path does no parsing beyond counting.
import net from 'node:net';
import tls from 'node:tls';
import { constants as cryptoConstants } from 'node:crypto';
import type { Duplex } from 'node:stream';
import { buildConnectionConfirm, parseConnectionRequest, PduFramer, PduStreamCounter, PROTOCOL } from '@lanterna/protocol';
import { buildTpktPdu } from './tpktPdu.js';
import { requestedReplyBytes } from './sizedRequest.js';
import { readFirstPdu } from './firstPduReader.js';
import type { CertificatePair } from './selfSignedCertificate.js';

export type EchoHandshake = 'x224-then-tls' | 'tls-first';

export interface EchoHostOptions {
  host?: string;
  port?: number;
  /**
   * `x224-then-tls`: what an RDP server does (the Lanterna gateway's target).
   * `tls-first`: TLS from the first byte, then the same X.224 exchange inside
   * it, for relays such as websockify --ssl-target that cannot carry a
   * plaintext preamble.
   */
  handshake: EchoHandshake;
  /** TLS session tickets; websockify hangs when a TLS 1.3 server sends them. */
  sessionTickets: boolean;
  /** Reply to each request PDU with one PDU of this size; echo the bytes back when absent. */
  replyBytes?: number | undefined;
  /** Reply to each request PDU with one PDU of the size it names (sizedRequest.ts): mixed traffic from one host. */
  sizedReplies?: boolean | undefined;
  /** Throughput mode: after the handshake, send PDUs of this size as fast as the peer reads. */
  streamPduBytes?: number | undefined;
  certificate: CertificatePair;
}

export interface EchoHost {
  readonly port: number;
  readonly certificatePem: string;
  openConnections(): number;
  close(): Promise<void>;
}

const HANDSHAKE_TIMEOUT_MS = 15_000;
const MAX_REQUEST_BYTES = 1024;

export async function startEchoHost(options: EchoHostOptions): Promise<EchoHost> {
  const tlsOptions: tls.TlsOptions = {
    cert: options.certificate.certPem,
    key: options.certificate.keyPem,
    // OpenSSL keeps sending TLS 1.3 tickets even with SSL_OP_NO_TICKET, so
    // "no tickets" also means TLS 1.2 (see the README)
    ...(options.sessionTickets ? {} : { maxVersion: 'TLSv1.2' as const, secureOptions: cryptoConstants.SSL_OP_NO_TICKET }),
  };
  const secureContext = tls.createSecureContext(tlsOptions);
  const reply = options.replyBytes === undefined ? undefined : buildTpktPdu(options.replyBytes);
  const streamPdu = options.streamPduBytes === undefined ? undefined : buildTpktPdu(options.streamPduBytes);
  const sockets = new Set<net.Socket>();

  const serve = (secure: Duplex): void => {
    if (streamPdu) { streamForever(secure, streamPdu); return; }
    if (options.sizedReplies === true) { answerSized(secure); return; }
    if (!reply) { secure.on('data', (chunk: Buffer) => { secure.write(chunk); }); return; }
    const counter = new PduStreamCounter();
    secure.on('data', (chunk: Buffer) => {
      const answers = counter.push(chunk);
      for (let i = 0; i < answers; i += 1) secure.write(reply);
    });
  };

  const answerRequest = async (stream: Duplex): Promise<Buffer> => {
    const { pdu, rest } = await readFirstPdu(stream, MAX_REQUEST_BYTES, HANDSHAKE_TIMEOUT_MS);
    const requested = parseConnectionRequest(pdu).requestedProtocols;
    if ((requested & PROTOCOL.SSL) === 0) throw new Error(`client did not offer tls (requested ${requested})`);
    stream.write(buildConnectionConfirm({ kind: 'response', selectedProtocol: PROTOCOL.SSL, flags: 0 }));
    return rest;
  };

  const onPlainConnection = (socket: net.Socket): void => {
    track(socket);
    answerRequest(socket).then((rest) => {
      if (rest.length > 0) socket.unshift(rest);
      const secure = new tls.TLSSocket(socket, { secureContext, isServer: true });
      secure.on('error', () => socket.destroy());
      socket.resume();
      serve(secure);
    }).catch(() => socket.destroy());
  };

  const onTlsConnection = (secure: tls.TLSSocket): void => {
    answerRequest(secure).then((rest) => {
      if (rest.length > 0) secure.unshift(rest);
      secure.resume();
      serve(secure);
    }).catch(() => secure.destroy());
  };

  const track = (socket: net.Socket): void => {
    sockets.add(socket);
    socket.setNoDelay(true);
    socket.on('error', () => socket.destroy());
    socket.on('close', () => sockets.delete(socket));
  };

  let server: net.Server;
  if (options.handshake === 'x224-then-tls') {
    server = net.createServer(onPlainConnection);
  } else {
    const tlsServer = tls.createServer(tlsOptions, onTlsConnection);
    tlsServer.on('connection', track);
    tlsServer.on('tlsClientError', (_error, socket) => socket.destroy());
    server = tlsServer;
  }
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host: options.host ?? '127.0.0.1', port: options.port ?? 0, backlog: 4096 }, () => resolve());
  });
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('echo host has no tcp address');

  return {
    port: address.port,
    certificatePem: options.certificate.certPem,
    openConnections: () => sockets.size,
    close: () => new Promise<void>((resolve) => {
      for (const socket of sockets) socket.destroy();
      server.close(() => resolve());
    }),
  };
}

/** Each request answered by a PDU of the size it names (0: echoed); replies of one size are built once. */
function answerSized(stream: Duplex): void {
  const framer = new PduFramer<Buffer>({ mode: 'rdp', allocate: (length) => Buffer.allocUnsafe(length) });
  stream.on('data', (chunk: Buffer) => {
    let pdus: Buffer[];
    try { pdus = framer.pushPdus(chunk); } catch { stream.destroy(); return; }
    for (const pdu of pdus) {
      const size = requestedReplyBytes(pdu);
      stream.write(size === 0 ? pdu : replyOfSize(size));
    }
  });
}

const replies = new Map<number, Buffer>();
function replyOfSize(size: number): Buffer {
  let reply = replies.get(size);
  if (!reply) { reply = buildTpktPdu(size); replies.set(size, reply); }
  return reply;
}

function streamForever(stream: Duplex, pdu: Buffer): void {
  let open = true;
  stream.on('close', () => { open = false; });
  stream.on('error', () => { open = false; });
  stream.resume(); // discard whatever the client sends
  const pump = (): void => {
    while (open && stream.write(pdu)) { /* fill the socket buffer */ }
    if (open) stream.once('drain', pump);
  };
  pump();
}
