// The least a Node relay can do, as the baseline the gateway's overhead is a
// ratio of (`--relay pipe`): each WebSocket to a TLS connection to one target,
// bytes both ways, on the gateway's own libraries (ws, node:tls). No kiosk
// protocol, no framing, no metrics, no batching; the generator sends its
// X.224 Connection Request over the WebSocket and the echo host (tls-first)
// confirms inside TLS, as for websockify. Backpressure is the least that keeps
// memory bounded: each side pauses the other while its buffer is full.
// With a certificate it listens on wss:// (node:https, as the gateway's
// listener), so `--kiosk-tls` compares like with like.
import tls from 'node:tls';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type RawData } from 'ws';

export interface PipeRelayOptions {
  host: string;
  port: number;
  target: { host: string; port: number };
  /** Listen with TLS (wss://) using this certificate and key. */
  tls?: { certPem: string; keyPem: string } | undefined;
}

export interface PipeRelay { port: number; close(): Promise<void> }

const HIGH_WATER_BYTES = 1 << 20;

export async function startPipeRelay(options: PipeRelayOptions): Promise<PipeRelay> {
  const wsOptions = { perMessageDeflate: false, maxPayload: 1 << 20 } as const;
  const httpsServer = options.tls === undefined ? undefined : createHttpsServer({ cert: options.tls.certPem, key: options.tls.keyPem });
  const server = httpsServer === undefined
    ? new WebSocketServer({ host: options.host, port: options.port, ...wsOptions })
    : new WebSocketServer({ server: httpsServer, ...wsOptions });
  server.on('connection', (ws) => {
    // a measuring stick toward the load test's self-signed echo host, not a trust decision
    const target = tls.connect({ ...options.target, rejectUnauthorized: false });
    target.setNoDelay(true);
    ws.on('message', (data: RawData) => {
      if (!target.write(data as Buffer)) ws.pause();
    });
    target.on('drain', () => ws.resume());
    target.on('data', (chunk: Buffer) => {
      if (ws.bufferedAmount <= HIGH_WATER_BYTES) {
        ws.send(chunk);
        return;
      }
      // the kiosk lags: read the target again once this chunk has left
      target.pause();
      ws.send(chunk, () => target.resume());
    });
    ws.on('close', () => target.destroy());
    ws.on('error', () => target.destroy());
    target.on('close', () => ws.terminate());
    target.on('error', () => ws.terminate());
  });
  const listener = httpsServer ?? server;
  await new Promise<void>((resolve, reject) => {
    listener.once('listening', resolve);
    listener.once('error', reject);
    httpsServer?.listen(options.port, options.host);
  });
  return {
    port: (listener.address() as AddressInfo).port,
    close: () => new Promise((resolve) => {
      for (const client of server.clients) client.terminate();
      // ws does not close a server it was handed
      server.close(() => { if (httpsServer === undefined) resolve(); else httpsServer.close(() => resolve()); });
    }),
  };
}
