// Every phase of the server handshake honours the abort signal (a drain, a
// display that broke the protocol) and DNS has its own deadline: a server
// that stalls on purpose must not hold the gateway for the phase's timeout.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectTarget, type ConnectRequest } from './targetConnector.js';
import type { LookupAll } from './hostResolver.js';
import { buildConnectionConfirm, buildConnectionRequest, PROTOCOL } from '@lanterna/protocol';
import { TargetPolicy } from '../policy/targetPolicy.js';
import { CertificatePolicy } from '../policy/certificatePolicy.js';
import { FilePinStore } from '../policy/pinStore.js';
import { SessionError } from '../session/sessionError.js';

const SLOW = 30_000;
const after: (() => void)[] = [];
process.once('exit', () => { for (const cleanup of after) cleanup(); });

/** A server that reads the Connection Request and then, per `confirm`, says nothing or confirms TLS and stalls. */
async function stallingServer(confirm: boolean): Promise<{ port: number; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => socket.destroy());
    socket.once('data', () => {
      if (confirm) socket.write(buildConnectionConfirm({ kind: 'response', selectedProtocol: PROTOCOL.SSL, flags: 0 }));
      // then silence: the Confirm never comes, or the TLS ServerHello never does
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise((resolve) => { for (const socket of sockets) socket.destroy(); server.close(() => resolve()); }),
  };
}

function request(port: number, overrides: Partial<ConnectRequest> = {}): ConnectRequest {
  const dir = mkdtempSync(join(tmpdir(), 'lanterna-connect-'));
  after.push(() => rmSync(dir, { recursive: true, force: true }));
  return {
    target: { host: '127.0.0.1', port },
    connectionRequest: Buffer.from(buildConnectionRequest({ requestedProtocols: PROTOCOL.SSL })),
    policy: new TargetPolicy({ allowNetworks: ['127.0.0.0/8'], allowPorts: ['1024-65535'], ownPorts: [] }),
    certificates: new CertificatePolicy('insecure', {}, new FilePinStore(join(dir, 'pins.json'))),
    timeouts: { dnsMs: SLOW, connectMs: SLOW, confirmMs: SLOW, tlsMs: SLOW },
    ...overrides,
  };
}
async function rejection(promise: Promise<unknown>): Promise<{ error: SessionError; ms: number }> {
  const started = performance.now();
  const error = await promise.then(() => undefined, (e: unknown) => e);
  assert.ok(error instanceof SessionError, `expected a SessionError, got ${String(error)}`);
  return { error, ms: performance.now() - started };
}

test('an abort while the server withholds its Confirm ends the handshake at once', async (t) => {
  const server = await stallingServer(false);
  t.after(() => server.close());
  const controller = new AbortController();
  const pending = connectTarget(request(server.port, {
    signal: controller.signal,
    onPhase: (phase) => { if (phase === 'connect') setImmediate(() => controller.abort()); },
  }));
  const { error, ms } = await rejection(pending);
  assert.deepEqual([error.phase, error.code], ['x224', 'gateway-shutdown']);
  assert.ok(ms < 2000, `ended promptly (${ms.toFixed(0)} ms), not at the ${SLOW} ms Confirm deadline`);
});

test('an abort during the TLS handshake ends it at once, with the reason it was given', async (t) => {
  const server = await stallingServer(true);
  t.after(() => server.close());
  const controller = new AbortController();
  const reason = new SessionError('request', 'bad-message', 'the display sent data before the server connection was secured');
  const pending = connectTarget(request(server.port, {
    signal: controller.signal,
    onPhase: (phase) => { if (phase === 'x224') setImmediate(() => controller.abort(reason)); },
  }));
  const { error, ms } = await rejection(pending);
  assert.equal(error, reason, 'the abort reason is what the handshake ends with');
  assert.ok(ms < 2000, `ended promptly (${ms.toFixed(0)} ms), not at the ${SLOW} ms TLS deadline`);
});

test('a name the resolver never answers for hits the DNS deadline; an abort ends the wait sooner', async () => {
  const neverAnswers: LookupAll = () => new Promise(() => undefined);
  const timedOut = await rejection(connectTarget(request(3389, {
    target: { host: 'rdp.corp', port: 3389 }, lookup: neverAnswers, timeouts: { dnsMs: 200, connectMs: SLOW, confirmMs: SLOW, tlsMs: SLOW },
  })));
  assert.deepEqual([timedOut.error.phase, timedOut.error.code, timedOut.error.detail.phase], ['connect', 'timeout', 'dns']);
  assert.ok(timedOut.ms >= 190 && timedOut.ms < 2000, `at the deadline (${timedOut.ms.toFixed(0)} ms)`);

  const controller = new AbortController();
  const pending = connectTarget(request(3389, { target: { host: 'rdp.corp', port: 3389 }, lookup: neverAnswers, signal: controller.signal }));
  controller.abort();
  const aborted = await rejection(pending);
  assert.deepEqual([aborted.error.phase, aborted.error.code], ['connect', 'gateway-shutdown']);
  assert.ok(aborted.ms < 1000);
});

test('a signal aborted before the handshake starts opens no connection', async (t) => {
  let accepted = 0;
  const server = createServer((socket) => { accepted += 1; socket.destroy(); });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const { error } = await rejection(connectTarget(request((server.address() as AddressInfo).port, { signal: AbortSignal.abort() })));
  assert.equal(error.code, 'gateway-shutdown');
  assert.equal(accepted, 0);
});
