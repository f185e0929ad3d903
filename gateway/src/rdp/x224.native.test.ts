// The X.224 parsers against real peers: FreeRDP's xfreerdp3 sends its
// Connection Request through a tiny TCP proxy in this test to a real
// freerdp-shadow-cli3, whose Confirm comes back the same way.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { buildConnectionRequest, parseConnectionConfirm, parseConnectionRequest, PROTOCOL } from './x224.js';

const START_DEADLINE_MS = 15_000;
const EXCHANGE_DEADLINE_MS = 15_000;

function withDeadline<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not happen within ${ms} ms`)), ms);
  });
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
}

/** Starts a child and ends it (TERM, then KILL) when the test ends, even on failure. */
function startChild(t: TestContext, command: string, args: string[], env: NodeJS.ProcessEnv = {}): ChildProcess {
  const child = spawn(command, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe', 'pipe'] });
  child.stderr?.resume();
  t.after(async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 3000);
    await exited;
    clearTimeout(timer);
  });
  return child;
}

/** Xvfb on a display number it picks itself (-displayfd), so parallel workers never collide. */
async function startXvfb(t: TestContext): Promise<string> {
  const xvfb = startChild(t, 'Xvfb', ['-displayfd', '3', '-screen', '0', '1024x768x24', '-nolisten', 'tcp']);
  const fd3 = xvfb.stdio[3];
  assert.ok(fd3 && 'on' in fd3);
  const [chunk] = (await withDeadline(once(fd3, 'data'), START_DEADLINE_MS, 'Xvfb start')) as [Buffer];
  return `:${chunk.toString().trim()}`;
}

async function listen(t: TestContext, server: Server): Promise<number> {
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return (server.address() as AddressInfo).port;
}

async function freePort(t: TestContext): Promise<number> {
  const server = createServer();
  const port = await listen(t, server);
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

async function waitForPort(port: number): Promise<void> {
  const started = Date.now();
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (ok) return;
    if (Date.now() - started > START_DEADLINE_MS) throw new Error(`nothing listened on port ${port} within ${START_DEADLINE_MS} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Reads one whole TPKT from a socket. */
async function readTpkt(socket: Socket): Promise<Buffer> {
  let data = Buffer.alloc(0);
  for (;;) {
    if (data.length >= 4 && data.length >= data.readUInt16BE(2)) return data.subarray(0, data.readUInt16BE(2));
    const [chunk] = (await once(socket, 'data')) as [Buffer];
    data = Buffer.concat([data, chunk]);
  }
}

async function startShadow(t: TestContext, display: string): Promise<number> {
  const port = await freePort(t);
  startChild(t, 'freerdp-shadow-cli3', ['/bind-address:127.0.0.1', `/port:${port}`, '-auth'], { DISPLAY: display });
  await waitForPort(port);
  return port;
}

void test('xfreerdp3 Connection Request and freerdp-shadow-cli3 Confirm parse, through a proxy', { timeout: 60_000 }, async (t) => {
  const display = await startXvfb(t);
  const shadowPort = await startShadow(t, display);
  const sockets: Socket[] = [];
  t.after(() => {
    for (const socket of sockets) socket.destroy();
  });
  const exchange = new Promise<{ request: Buffer; confirm: Buffer }>((resolve, reject) => {
    const proxy = createServer((client) => {
      sockets.push(client);
      client.pause();
      void (async () => {
        client.resume();
        const request = await readTpkt(client);
        const server = connect(shadowPort, '127.0.0.1');
        sockets.push(server);
        server.write(request);
        const confirm = await readTpkt(server);
        resolve({ request, confirm });
      })().catch(reject);
    });
    void listen(t, proxy).then((proxyPort) => {
      startChild(t, 'xfreerdp3', [`/v:127.0.0.1:${proxyPort}`, '/u:alice', '/p:not-used', '/cert:ignore'], { DISPLAY: display });
    }, reject);
  });
  const { request, confirm } = await withDeadline(exchange, EXCHANGE_DEADLINE_MS, 'the X.224 exchange');

  const parsedRequest = parseConnectionRequest(request);
  assert.equal(parsedRequest.cookie, 'alice');
  assert.equal(parsedRequest.negotiation, true);
  assert.ok(parsedRequest.requestedProtocols & PROTOCOL.SSL, `requested 0x${parsedRequest.requestedProtocols.toString(16)}`);
  assert.ok(parsedRequest.requestedProtocols & PROTOCOL.HYBRID, `requested 0x${parsedRequest.requestedProtocols.toString(16)}`);

  const parsedConfirm = parseConnectionConfirm(confirm);
  // Shadow without authentication (-auth) cannot do NLA: it picks TLS.
  assert.deepEqual(parsedConfirm.kind === 'response' ? parsedConfirm.selectedProtocol : parsedConfirm, PROTOCOL.SSL);
});

void test('freerdp-shadow-cli3 answers built requests with Confirms that parse', { timeout: 60_000 }, async (t) => {
  const display = await startXvfb(t);
  const port = await startShadow(t, display);
  const ask = async (requestedProtocols: number | undefined): Promise<Buffer> => {
    const socket = connect(port, '127.0.0.1');
    t.after(() => socket.destroy());
    await once(socket, 'connect');
    socket.write(buildConnectionRequest({ requestedProtocols, cookie: 'lanterna' }));
    const confirm = await withDeadline(readTpkt(socket), EXCHANGE_DEADLINE_MS, 'a Connection Confirm');
    socket.destroy();
    return confirm;
  };
  for (const requested of [PROTOCOL.SSL | PROTOCOL.HYBRID | PROTOCOL.HYBRID_EX, PROTOCOL.SSL]) {
    const confirm = parseConnectionConfirm(await ask(requested));
    assert.deepEqual(confirm.kind === 'response' ? confirm.selectedProtocol : confirm, PROTOCOL.SSL);
  }
  const legacy = parseConnectionConfirm(await ask(undefined));
  assert.deepEqual(legacy.kind === 'response' ? legacy.selectedProtocol : legacy, PROTOCOL.RDP);
});
