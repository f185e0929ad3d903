// A man in the middle for pixel tests: it sits between the gateway and an RDP
// server that uses TLS security (no NLA: CredSSP binds to the server's own
// key), forwards the X.224 exchange as it is, then terminates TLS on both legs
// with a certificate of its own (the gateway pins it on first use) and records
// the plaintext as whole PDUs, in FreeRDP's /dump order: the very stream a
// kiosk decoded, which a native client can replay to draw the same picture.
// `hold()` stops passing the server's bytes on, so the recording ends exactly
// where what the kiosk received ends.
import { createServer, connect, type Server, type Socket, type AddressInfo } from 'node:net';
import { connect as connectTls, TLSSocket } from 'node:tls';
import { once } from 'node:events';
import { PduFramer, parseConnectionConfirm, PROTOCOL, selectedProtocol } from '@lanterna/protocol';
import { generateTestCertificate } from './faultyRdpPeer.js';
import { readOneTpkt } from './socketPdu.js';

export interface ProxiedPdu {
  /** ms since the proxy's TLS legs were up */
  readonly tickMs: number;
  readonly direction: 'client-to-server' | 'server-to-client';
  readonly data: Buffer;
}

export interface RecordingTlsProxy {
  readonly host: '127.0.0.1';
  readonly port: number;
  /** The latest connection's PDUs after TLS, both directions, in the order they were passed on. */
  records(): readonly ProxiedPdu[];
  /** Stops passing the server's bytes to the gateway (TCP pushes back on the server); nothing after this is recorded. */
  hold(): void;
  /** Why the latest connection failed, if it did. */
  readonly failure: string | undefined;
  close(): Promise<void>;
}

const HANDSHAKE_TIMEOUT_MS = 10_000;

export async function startRecordingTlsProxy(target: { host: string; port: number }): Promise<RecordingTlsProxy> {
  const identity = await generateTestCertificate('lanterna-recording-proxy');
  const sockets = new Set<Socket>();
  let records: ProxiedPdu[] = [];
  let held = false;
  let failure: string | undefined;
  const holds: (() => void)[] = [];
  const track = (socket: Socket): void => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  };

  const relay = async (gateway: Socket): Promise<void> => {
    const server = connect({ host: target.host, port: target.port });
    track(server);
    server.on('error', () => gateway.destroy());
    gateway.on('error', () => server.destroy());
    await once(server, 'connect');
    const request = await readOneTpkt(gateway, { timeoutMs: HANDSHAKE_TIMEOUT_MS, maxBytes: 1024 });
    server.write(request);
    const confirm = await readOneTpkt(server, { timeoutMs: HANDSHAKE_TIMEOUT_MS, maxBytes: 1024 });
    const protocol = selectedProtocol(parseConnectionConfirm(confirm));
    if (protocol !== PROTOCOL.SSL) throw new Error(`the server selected security protocol ${protocol}; the recording proxy only passes TLS security`);
    gateway.write(confirm);
    // The gateway checks the certificate it is shown (this proxy's); the server's is not this test's concern.
    const serverTls = connectTls({ socket: server, rejectUnauthorized: false });
    const gatewayTls = new TLSSocket(gateway, { isServer: true, cert: identity.cert, key: identity.key });
    serverTls.on('error', () => gatewayTls.destroy());
    gatewayTls.on('error', () => serverTls.destroy());
    serverTls.on('close', () => gatewayTls.end());
    gatewayTls.on('close', () => serverTls.end());
    const started = Date.now();
    const session: ProxiedPdu[] = [];
    records = session;
    const record = (framer: PduFramer<Buffer>, direction: ProxiedPdu['direction'], chunk: Buffer): void => {
      const tickMs = Date.now() - started;
      for (const pdu of framer.pushPdus(chunk)) session.push({ tickMs, direction, data: Buffer.from(pdu) });
    };
    // After TLS security every PDU is a TPKT or a fast-path PDU both ways.
    const fromServer = new PduFramer<Buffer>({ mode: 'rdp', allocate: (n) => Buffer.allocUnsafe(n) });
    const fromGateway = new PduFramer<Buffer>({ mode: 'rdp', allocate: (n) => Buffer.allocUnsafe(n) });
    holds.push(() => serverTls.pause());
    if (held) serverTls.pause();
    serverTls.on('data', (chunk: Buffer) => {
      if (held) {
        serverTls.pause();
        return; // dropped: the session is over for the test once it holds
      }
      record(fromServer, 'server-to-client', chunk);
      gatewayTls.write(chunk);
    });
    gatewayTls.on('data', (chunk: Buffer) => {
      record(fromGateway, 'client-to-server', chunk);
      serverTls.write(chunk);
    });
  };

  const listener: Server = createServer((gateway) => {
    track(gateway);
    relay(gateway).catch((error: unknown) => {
      failure = error instanceof Error ? error.message : String(error);
      gateway.destroy();
    });
  });
  listener.listen(0, '127.0.0.1');
  await once(listener, 'listening');
  return {
    host: '127.0.0.1',
    port: (listener.address() as AddressInfo).port,
    records: () => records,
    hold() {
      held = true;
      for (const pause of holds) pause();
    },
    get failure() { return failure; },
    async close() {
      const closed = new Promise<void>((resolve) => listener.close(() => resolve()));
      for (const socket of sockets) socket.destroy();
      await closed;
    },
  };
}
