import { connect as connectTcp, type Socket } from 'node:net';
import { connect as connectTls } from 'node:tls';

// X.224 Connection Request carrying an RDP_NEG_REQ for TLS or CredSSP
// (PROTOCOL_SSL | PROTOCOL_HYBRID): both security modes start with a TLS
// handshake, which is all we need to see the server's certificate.
const CONNECTION_REQUEST = Buffer.from([
  0x03, 0x00, 0x00, 0x13, // TPKT, 19 bytes
  0x0e, 0xe0, 0x00, 0x00, 0x00, 0x00, 0x00, // X.224 CR
  0x01, 0x00, 0x08, 0x00, 0x03, 0x00, 0x00, 0x00, // RDP_NEG_REQ, protocols 0x3
]);
const TYPE_RDP_NEG_RSP = 0x02;
const TYPE_RDP_NEG_FAILURE = 0x03;

/** What an X.224 Connection Confirm says about negotiation. */
export interface NegotiationResult {
  selectedProtocol: number;
}

/** Parses a TPKT-framed X.224 Connection Confirm (pure). */
export function parseConnectionConfirm(pdu: Buffer): NegotiationResult {
  if (pdu.length < 11 || pdu[0] !== 0x03) throw new Error('x224 confirm is not a tpkt packet');
  if (((pdu[5] ?? 0) & 0xf0) !== 0xd0) throw new Error(`expected x224 connection confirm, got code 0x${(pdu[5] ?? 0).toString(16)}`);
  if (pdu.length < 19) return { selectedProtocol: 0 }; // no negotiation response: standard RDP security
  const type = pdu[11];
  if (type === TYPE_RDP_NEG_FAILURE) throw new Error(`server refused the requested security, failure code ${pdu.readUInt32LE(15)}`);
  if (type !== TYPE_RDP_NEG_RSP) throw new Error(`unexpected negotiation type ${type ?? 'none'}`);
  return { selectedProtocol: pdu.readUInt32LE(15) };
}

function readConfirm(socket: Socket): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    let buffered = Buffer.alloc(0);
    const onData = (chunk: Buffer): void => {
      buffered = Buffer.concat([buffered, chunk]);
      if (buffered.length >= 4) {
        const length = buffered.readUInt16BE(2);
        if (buffered.length >= length) {
          socket.off('data', onData);
          socket.pause();
          if (buffered.length > length) reject(new Error('server sent data after the x224 confirm'));
          else resolve(buffered);
        }
      }
    };
    socket.on('data', onData);
    socket.once('error', reject);
    socket.once('close', () => reject(new Error('connection closed before the x224 confirm')));
  });
}

/**
 * Connects to an RDP server, negotiates TLS, and returns the DER certificate it
 * presents. Proves the server is up and speaking RDP, not only listening.
 */
export async function fetchRdpCertificate(host: string, port: number, timeoutMs = 5000): Promise<Buffer> {
  const socket = connectTcp({ host, port });
  const timer = setTimeout(() => socket.destroy(new Error(`no tls handshake with ${host}:${port} within ${timeoutMs} ms`)), timeoutMs);
  try {
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', resolve);
      socket.once('error', reject);
    });
    socket.write(CONNECTION_REQUEST);
    const confirm = parseConnectionConfirm(await readConfirm(socket));
    if (confirm.selectedProtocol === 0) throw new Error('server chose standard rdp security, no tls');
    return await new Promise<Buffer>((resolve, reject) => {
      const tls = connectTls({ socket, rejectUnauthorized: false, servername: undefined }, () => {
        const certificate = tls.getPeerCertificate();
        tls.destroy();
        if (certificate.raw.length === 0) reject(new Error('server presented no certificate'));
        else resolve(certificate.raw);
      });
      tls.once('error', reject);
    });
  } finally {
    clearTimeout(timer);
    socket.destroy();
  }
}
