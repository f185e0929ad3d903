// The X.224 parsers against real peers: FreeRDP's xfreerdp3 sends its
// Connection Request through a tiny TCP proxy in this test to a real
// freerdp-shadow-cli3, whose Confirm comes back the same way.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { Lab } from '@lanterna/lab';
import { buildConnectionRequest, parseConnectionConfirm, parseConnectionRequest, NEG_FAILURE, PROTOCOL } from '@lanterna/protocol';

const EXCHANGE_DEADLINE_MS = 15_000;

function withDeadline<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not happen within ${ms} ms`)), ms);
  });
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
}

async function listen(t: TestContext, server: Server): Promise<number> {
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return (server.address() as AddressInfo).port;
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

/** A real shadow server (TLS security) on its own Xvfb, from the test lab: readiness, port clashes and cleanup are its job. */
async function startShadow(t: TestContext): Promise<{ display: string; port: number }> {
  const lab = await Lab.create({ name: 'x224-native' });
  t.after(() => lab.close());
  const display = await lab.display({ width: 1024, height: 768 });
  const server = await lab.shadowServer({ display, auth: 'tls' });
  return { display: display.name, port: server.port };
}

void test('xfreerdp3 Connection Request and freerdp-shadow-cli3 Confirm parse, through a proxy', { timeout: 60_000 }, async (t) => {
  const { display, port: shadowPort } = await startShadow(t);
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
      const client = spawn('xfreerdp3', [`/v:127.0.0.1:${proxyPort}`, '/u:alice', '/p:not-used', '/cert:ignore'], { env: { ...process.env, DISPLAY: display }, stdio: 'ignore' });
      t.after(() => { client.kill('SIGKILL'); });
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
  const { port } = await startShadow(t);
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
  // The lab's server insists on TLS, so a legacy request gets a negotiation failure.
  const legacy = parseConnectionConfirm(await ask(undefined));
  assert.deepEqual(legacy, { kind: 'failure', failureCode: NEG_FAILURE.SSL_REQUIRED_BY_SERVER });
});
