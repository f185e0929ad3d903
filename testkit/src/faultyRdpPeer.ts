import { createServer, type Server, type Socket, type AddressInfo } from 'node:net';
import { TLSSocket } from 'node:tls';
import { generate } from 'selfsigned';
import { readOneTpkt } from './socketPdu.js';
import { buildConnectionConfirm, NEG_FAILURE, PduFramer, PROTOCOL } from '@lanterna/protocol';

/**
 * A stand-in RDP server for fault tests only: a real server cannot be made to
 * send garbage or stall on purpose. In `echo` mode it behaves (X.224 confirm
 * selecting TLS, then echoes whole PDUs), so it also carries the healthy
 * sessions that run beside the faulty ones.
 */
export type PeerBehaviour =
  | 'echo' | 'silent' | 'garbage-confirm' | 'legacy-confirm' | 'negotiation-failure'
  | 'no-tls' | 'garbage-after-tls' | 'close-after-tls' | 'stream'
  /** Resets the TCP connection (RST) as soon as TLS is up: counted in `resets`. */
  | 'reset-after-tls'
  /** Waits SLOW_CONFIRM_MS before its Connection Confirm, then echoes: a slow handshake. */
  | 'slow-confirm';

export const SLOW_CONFIRM_MS = 1000;

/** In `stream` mode a PDU whose first payload byte is this asks for a burst: u32 BE byte count at offset 8. */
export const STREAM_REQUEST = 0xff;
/** The burst's PDUs are this size; the last one carries STREAM_END as its first payload byte. */
export const STREAM_PDU_BYTES = 16 * 1024;
export const STREAM_END = 0xfe;

export interface FaultyPeer {
  port: number; certPem: string; keyPem: string;
  /** Connections reset so far (`reset-after-tls`). */
  readonly resets: number;
  close(): Promise<void>;
}

export async function generateTestCertificate(commonName = 'lanterna-test-peer'): Promise<{ cert: string; key: string }> {
  const pems = await generate([{ name: 'commonName', value: commonName }], { keySize: 2048, algorithm: 'sha256' });
  return { cert: pems.cert, key: pems.private };
}

export async function startFaultyPeer(behaviour: PeerBehaviour, identity?: { cert: string; key: string }): Promise<FaultyPeer> {
  const { cert, key } = identity ?? await generateTestCertificate();
  const sockets = new Set<Socket>();
  let resets = 0;
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    serve(socket).catch(() => socket.destroy());
  });
  const tlsConfirm = buildConnectionConfirm({ kind: 'response', selectedProtocol: PROTOCOL.SSL, flags: 0 });
  async function serve(socket: Socket): Promise<void> {
    await readOneTpkt(socket, { timeoutMs: 10_000, maxBytes: 1024 });
    switch (behaviour) {
      case 'silent': return;
      case 'garbage-confirm': socket.write(Buffer.from('HTTP/1.1 400 Bad Request\r\n\r\n')); return;
      case 'legacy-confirm': socket.write(buildConnectionConfirm({ kind: 'none' })); return;
      case 'negotiation-failure': socket.write(buildConnectionConfirm({ kind: 'failure', failureCode: NEG_FAILURE.HYBRID_REQUIRED_BY_SERVER })); socket.end(); return;
      case 'no-tls':
        // Answers the client's TLS hello with plain text, as a misconfigured server would.
        socket.write(tlsConfirm);
        socket.once('data', () => socket.end('this is not a TLS handshake\n'));
        socket.resume();
        return;
      case 'slow-confirm': await new Promise((resolve) => setTimeout(resolve, SLOW_CONFIRM_MS)); break;
      default: break;
    }
    socket.write(tlsConfirm);
    const tls = new TLSSocket(socket, { isServer: true, cert, key });
    tls.on('error', () => socket.destroy());
    await new Promise((resolve) => tls.once('secure', resolve));
    if (behaviour === 'close-after-tls') { tls.destroy(); return; }
    if (behaviour === 'reset-after-tls') { socket.resetAndDestroy(); resets += 1; return; }
    if (behaviour === 'garbage-after-tls') { tls.write(Buffer.from([0x03, 0x01, 0x00, 0x09, 1, 2, 3, 4, 5])); return; }
    const framer = new PduFramer<Buffer>({ mode: 'rdp' });
    tls.on('data', (chunk: Buffer) => {
      try {
        const frames = framer.push(chunk);
        if (behaviour === 'stream') {
          for (const pdu of framer.lastPdus()) {
            if (pdu[7] === STREAM_REQUEST) void streamBurst(tls, pdu.readUInt32BE(8)); else tls.write(pdu);
          }
        } else {
          for (const frame of frames) tls.write(frame);
        }
      } catch {
        tls.destroy();
      }
    });
  }
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    certPem: cert,
    keyPem: key,
    get resets() { return resets; },
    close: () => new Promise((resolve) => {
      for (const socket of sockets) socket.destroy();
      server.close(() => resolve());
    }),
  };
}

/** Sends `bytes` of 16 KiB TPKTs as fast as the socket takes them, honouring backpressure. */
async function streamBurst(tls: TLSSocket, bytes: number): Promise<void> {
  const pdu = Buffer.alloc(STREAM_PDU_BYTES, 0x5a);
  pdu.writeUInt32BE(0x03000000 | STREAM_PDU_BYTES, 0);
  pdu.set([0x02, 0xf0, 0x80, 0x00], 4);
  const last = Buffer.from(pdu);
  last[7] = STREAM_END;
  for (let sent = STREAM_PDU_BYTES; sent < bytes; sent += STREAM_PDU_BYTES) {
    if (!tls.write(pdu)) await new Promise((resolve) => tls.once('drain', resolve));
    if (tls.destroyed) return;
  }
  tls.write(last);
}
