// A test driver in the data plane's place: the gateway spawns a small
// program as its "data plane" (LANTERNA_DATAPLANE_BIN's role) that joins its
// file descriptor 3 to a Unix socket this driver listens on, so the test
// reads what the gateway sends and writes RPC lines as the data plane would.
import { mkdtempSync, rmSync, writeFileSync, chmodSync } from 'node:fs';
import { createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'node:http';
import { waitFor } from '@lanterna/testkit';

export interface RpcDriver {
  /** The program to give the gateway as its data plane binary. */
  binary: string;
  /** Every line the gateway sent, in order. */
  received: Record<string, unknown>[];
  /** The first message from the gateway with this op (already received ones count) after `after` messages. */
  next(op: string, after?: number, timeoutMs?: number): Promise<Record<string, unknown>>;
  /** A request as the data plane makes one; resolves with its answer line. */
  request(op: string, body?: Record<string, unknown>): Promise<Record<string, unknown>>;
  /** Writes a line (an object, or raw text for garbage) as the data plane would. */
  send(message: Record<string, unknown> | string): void;
  /** The gateway started its data plane (the stand-in joined the driver). */
  connected: Promise<void>;
  /** The gateway closed its end (the data plane's stop). */
  ended: Promise<void>;
  close(): void;
}

export async function startRpcDriver(): Promise<RpcDriver> {
  const dir = mkdtempSync(join(tmpdir(), 'lanterna-rpc-driver-'));
  const socketPath = join(dir, 'driver.sock');
  // The stand-in program: fd 3 both ways onto the driver's socket; it ends when either side does.
  writeFileSync(join(dir, 'relay.cjs'), [
    "const net = require('node:net');",
    'const rpc = new net.Socket({ fd: 3, readable: true, writable: true });',
    `const driver = net.connect(${JSON.stringify(socketPath)});`,
    'rpc.pipe(driver); driver.pipe(rpc);',
    "for (const end of [rpc, driver]) { end.on('close', () => process.exit(0)); end.on('error', () => process.exit(0)); }",
    "process.on('SIGTERM', () => process.exit(0));",
  ].join('\n'));
  const binary = join(dir, 'lanterna-dataplane');
  writeFileSync(binary, `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(join(dir, 'relay.cjs'))}\n`);
  chmodSync(binary, 0o755);

  const received: Record<string, unknown>[] = [];
  let socket: Socket | undefined;
  let nextId = 1;
  let endedResolve: () => void = () => undefined;
  const ended = new Promise<void>((resolve) => { endedResolve = resolve; });
  let connectedResolve: () => void = () => undefined;
  const connected = new Promise<void>((resolve) => { connectedResolve = resolve; });
  const server = createServer((connection) => {
    socket = connection;
    connectedResolve();
    let buffered = '';
    connection.on('data', (chunk: Buffer) => {
      buffered += chunk.toString('utf8');
      for (let newline = buffered.indexOf('\n'); newline !== -1; newline = buffered.indexOf('\n')) {
        received.push(JSON.parse(buffered.slice(0, newline)) as Record<string, unknown>);
        buffered = buffered.slice(newline + 1);
      }
    });
    connection.on('close', () => endedResolve());
    connection.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(socketPath, resolve));

  const next = async (op: string, after = 0, timeoutMs = 10_000): Promise<Record<string, unknown>> => {
    let found: Record<string, unknown> | undefined;
    await waitFor(`the gateway's ${op}`, () => {
      found = received.slice(after).find((message) => message.op === op);
      return found !== undefined;
    }, timeoutMs);
    return found ?? {};
  };
  const send = (message: Record<string, unknown> | string): void => {
    if (!socket) throw new Error('the gateway has not started its data plane');
    socket.write(`${typeof message === 'string' ? message : JSON.stringify(message)}\n`);
  };
  return {
    binary, received, next, send, connected, ended,
    request: async (op, body = {}) => {
      const id = 1_000_000 + nextId++;
      send({ ...body, id, op });
      let answer: Record<string, unknown> | undefined;
      await waitFor(`the gateway's answer to ${op}`, () => {
        answer = received.find((message) => message.id === id && message.op === undefined);
        return answer !== undefined;
      }, 10_000);
      return answer ?? {};
    },
    close: () => {
      socket?.destroy();
      server.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** An HTTP request over the gateway's Unix socket, as the data plane passes one on. */
export function overUnixSocket(
  socketPath: string, method: string, path: string, headers: Record<string, string>, body?: string,
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const outgoing = request({ socketPath, method, path, headers: { host: '127.0.0.1:8443', ...headers } }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => { text += chunk; });
      response.on('end', () => resolve({ status: response.statusCode ?? 0, text }));
    });
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}
