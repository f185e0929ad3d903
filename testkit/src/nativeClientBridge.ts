import { createServer, type Socket, type AddressInfo } from 'node:net';
import { TLSSocket } from 'node:tls';
import { readOneTpkt } from './socketPdu.js';
import { PduFramer, splitWholePdus, nextFramingMode, framingModeFor, type SecurityProtocolName } from '@lanterna/protocol';
import { openData } from './kioskTestClient.js';

export interface BridgeOptions {
  gateway: string; // ws://127.0.0.1:PORT
  sessionId: string;
  sessionToken: string;
  /** The RDP server's own certificate and key: CredSSP binds to the server's key, so the bridge must present it. */
  serverCert: string;
  serverKey: string;
  ca?: string;
}

export interface BridgeObservation {
  secured?: Record<string, unknown>;
  /** First bytes of every whole PDU seen, per direction, in order. */
  toClient: Buffer[];
  toServer: Buffer[];
  closeCode?: number;
  error?: Record<string, unknown>;
}

/**
 * Test harness only: lets the native FreeRDP client (xfreerdp3) act as a
 * kiosk. It accepts the client's TCP connection, sends the X.224 request over
 * the gateway's data socket, terminates the client's TLS with the server's
 * own certificate (so NLA's key binding holds), and relays whole PDUs — the
 * same job the wasm client's transport does in a browser.
 */
export async function startNativeClientBridge(options: BridgeOptions): Promise<{ port: number; observation: BridgeObservation; done: Promise<void>; close(): void }> {
  const observation: BridgeObservation = { toClient: [], toServer: [] };
  let finish!: () => void;
  const done = new Promise<void>((resolve) => { finish = resolve; });
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    sockets.add(client);
    server.close();
    bridge(client, options, observation).catch((error: unknown) => {
      observation.error ??= { bridge: String(error) };
    }).finally(() => { client.destroy(); finish(); });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    observation,
    done,
    close: () => { server.close(); for (const socket of sockets) socket.destroy(); finish(); },
  };
}

async function bridge(client: Socket, options: BridgeOptions, observation: BridgeObservation): Promise<void> {
  client.setNoDelay(true);
  const request = await readOneTpkt(client, { timeoutMs: 10_000, maxBytes: 1024 });
  const { socket, queue } = await openData(options.gateway, options.sessionId, options.sessionToken, options.ca);
  socket.send(request);
  const first = await queue.next();
  if ('closed' in first) { observation.closeCode = first.closed.code; return; }
  if ('text' in first && first.text.type === 'error') {
    observation.error = first.text;
    observation.closeCode = (await queue.closed()).code;
    return;
  }
  if (!('text' in first) || first.text.type !== 'secured') throw new Error('expected secured');
  observation.secured = first.text;
  const confirm = await queue.nextBinary();
  client.write(confirm);
  const protocol = first.text.protocol as SecurityProtocolName;
  const tls = new TLSSocket(client, { isServer: true, cert: options.serverCert, key: options.serverKey });
  const toServer = new PduFramer<Buffer>({ mode: framingModeFor(protocol, 'client-to-server'), maxFrameBytes: 256 * 1024 });
  let toClientMode = framingModeFor(protocol, 'server-to-client');

  await new Promise<void>((resolve) => {
    tls.on('data', (chunk: Buffer) => {
      let batches: Buffer[];
      try {
        batches = toServer.push(chunk);
      } catch (error) {
        observation.error = { bridge: String(error) };
        tls.destroy();
        return;
      }
      for (const pdu of toServer.lastPdus()) observation.toServer.push(Buffer.from(pdu.subarray(0, 16)));
      for (const batch of batches) socket.send(batch);
    });
    socket.on('message', (data, isBinary) => {
      const buffer = data as Buffer;
      if (!isBinary) {
        const message = JSON.parse(buffer.toString('utf8')) as Record<string, unknown>;
        if (message.type === 'error') observation.error = message;
        return;
      }
      for (const pdu of splitWholePdus(buffer, toClientMode)) {
        observation.toClient.push(Buffer.from(pdu.subarray(0, 16)));
        toClientMode = nextFramingMode(toClientMode, pdu);
      }
      tls.write(buffer);
    });
    socket.on('close', (code) => { observation.closeCode = code; tls.end(); resolve(); });
    tls.on('close', () => { socket.close(); resolve(); });
    tls.on('error', () => { socket.close(); resolve(); });
  });
}
