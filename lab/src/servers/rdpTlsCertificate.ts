import { connect as connectTcp } from 'node:net';
import { connect as connectTls } from 'node:tls';
import { buildConnectionRequest, eventByteSource, parseConnectionConfirm, PROTOCOL, readOnePdu, selectedProtocol } from '@lanterna/protocol';

// TLS or CredSSP (PROTOCOL_SSL | PROTOCOL_HYBRID): both security modes start
// with a TLS handshake, which is all we need to see the server's certificate.
const CONNECTION_REQUEST = buildConnectionRequest({ requestedProtocols: PROTOCOL.SSL | PROTOCOL.HYBRID });
/** A Confirm is 19 bytes; a server that announces more is not speaking RDP. */
const MAX_CONFIRM_BYTES = 1024;

/** The TLS-based protocol a server's Connection Confirm selected; throws when it selected none (pure). */
export function tlsProtocolOf(confirm: Uint8Array): number {
  const selected = selectedProtocol(parseConnectionConfirm(confirm));
  if (selected === PROTOCOL.RDP) throw new Error('server chose standard rdp security, no tls');
  return selected;
}

/**
 * Connects to an RDP server, negotiates TLS, and returns the DER certificate it
 * presents. Proves the server is up and speaking RDP, not only listening.
 */
export async function fetchRdpCertificate(host: string, port: number, timeoutMs = 5000): Promise<Buffer> {
  const socket = connectTcp({ host, port });
  const deadline = AbortSignal.timeout(timeoutMs);
  const onDeadline = (): void => { socket.destroy(new Error(`no tls handshake with ${host}:${port} within ${timeoutMs} ms`)); };
  deadline.addEventListener('abort', onDeadline, { once: true });
  try {
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', resolve);
      socket.once('error', reject);
    });
    socket.write(CONNECTION_REQUEST);
    // The deadline destroys the socket with its own error, which ends this read too.
    const reply = eventByteSource<Buffer>(socket);
    let confirm: Buffer;
    let unread: Buffer[];
    try {
      confirm = (await readOnePdu(reply, { maxBytes: MAX_CONFIRM_BYTES })).pdu;
    } finally {
      socket.pause();
      unread = reply.detach();
    }
    if (unread.length > 0) throw new Error('server sent data after the x224 confirm');
    tlsProtocolOf(confirm);
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
    deadline.removeEventListener('abort', onDeadline);
    socket.destroy();
  }
}
