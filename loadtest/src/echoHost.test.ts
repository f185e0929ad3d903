import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import tls from 'node:tls';
import { once } from 'node:events';
import { startEchoHost, type EchoHandshake, type EchoHostOptions } from './echoHost.js';
import { startEchoHostProcess, type EchoHostKind } from './echoHostProcess.js';
import { connectDirectTls } from './directTlsClient.js';
import { generateLoopbackCertificate } from './selfSignedCertificate.js';
import { PduStreamCounter } from '@lanterna/protocol';
import { buildTpktPdu } from './tpktPdu.js';
import { buildSizedRequest, requestedReplyBytes } from './sizedRequest.js';

const certificate = await generateLoopbackCertificate();
const BUILD_SCRIPT = fileURLToPath(new URL('../generator-go/build.sh', import.meta.url));
const goInstalled = spawnSync('go', ['version']).status === 0;
if (goInstalled) execFileSync('bash', [BUILD_SCRIPT], { stdio: 'pipe' });

/** What each check needs of an echo host, whichever implementation answers. */
interface HostUnderTest { port: number; certificatePem: string; openConnections?: () => number; close(): Promise<void> }
type HostSettings = Omit<EchoHostOptions, 'certificate' | 'host' | 'port'>;

// Node in process (its connection count checked too); Go as the process the harness runs
const starters: Record<EchoHostKind, (settings: HostSettings) => Promise<HostUnderTest>> = {
  node: async (settings) => {
    const host = await startEchoHost({ ...settings, certificate });
    return { port: host.port, certificatePem: host.certificatePem, openConnections: () => host.openConnections(), close: () => host.close() };
  },
  go: async (settings) => {
    const echo = await startEchoHostProcess({ ...settings, kind: 'go' });
    return { port: echo.port, certificatePem: echo.certificatePem, close: () => echo.process.stop() };
  },
};

function collect(secure: tls.TLSSocket, bytes: number, timeoutMs: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let total = 0;
    const timer = setTimeout(() => reject(new Error(`only ${total} of ${bytes} bytes within ${timeoutMs} ms`)), timeoutMs);
    secure.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      total += chunk.length;
      if (total >= bytes) { clearTimeout(timer); resolve(Buffer.concat(chunks)); }
    });
    secure.resume();
  });
}

void test('sized requests carry their reply size and refuse what cannot be carried', () => {
  assert.equal(requestedReplyBytes(buildSizedRequest(25, 1669)), 1669);
  assert.equal(requestedReplyBytes(buildSizedRequest(9, 0)), 0);
  assert.equal(requestedReplyBytes(buildTpktPdu(7)), 0, 'too short to name a size: echoed');
  assert.throws(() => buildSizedRequest(8, 90), /at least 9 bytes/);
  assert.throws(() => buildSizedRequest(90, 3), /reply size/);
});

for (const kind of ['node', 'go'] as const) {
  const start = starters[kind];
  const skip = kind === 'go' && !goInstalled ? 'go is not installed' : false;

  for (const handshake of ['x224-then-tls', 'tls-first'] as EchoHandshake[]) {
    void test(`${kind} echo host (${handshake}) echoes tpkt pdus byte for byte`, { skip }, async (t) => {
      const host = await start({ handshake, sessionTickets: true });
      t.after(() => host.close());
      const secure = await connectDirectTls({ host: '127.0.0.1', port: host.port, handshake });
      t.after(() => secure.destroy());
      const sent = Buffer.concat([buildTpktPdu(90), buildTpktPdu(7), buildTpktPdu(2000)]);
      const received = collect(secure, sent.length, 5000);
      secure.write(sent.subarray(0, 50));
      secure.write(sent.subarray(50));
      assert.deepEqual(await received, sent);
      if (host.openConnections) assert.equal(host.openConnections(), 1);
    });
  }

  void test(`${kind} echo host answers each request pdu with one reply of the configured size`, { skip }, async (t) => {
    const host = await start({ handshake: 'x224-then-tls', sessionTickets: false, replyBytes: 1669 });
    t.after(() => host.close());
    const secure = await connectDirectTls({ host: '127.0.0.1', port: host.port, handshake: 'x224-then-tls' });
    t.after(() => secure.destroy());
    assert.equal(secure.getProtocol(), 'TLSv1.2');
    const received = collect(secure, 3 * 1669, 5000);
    const request = buildTpktPdu(25);
    // split mid-header to exercise the counter across chunks
    const three = Buffer.concat([request, request, request]);
    secure.write(three.subarray(0, 27));
    secure.write(three.subarray(27));
    const replies = await received;
    assert.equal(replies.length, 3 * 1669);
    assert.equal(new PduStreamCounter().push(replies), 3);
  });

  void test(`${kind} echo host with sized replies answers each request with the size it names, echoing when it names none`, { skip }, async (t) => {
    const host = await start({ handshake: 'x224-then-tls', sessionTickets: true, sizedReplies: true });
    t.after(() => host.close());
    const secure = await connectDirectTls({ host: '127.0.0.1', port: host.port, handshake: 'x224-then-tls' });
    t.after(() => secure.destroy());
    const echoed = buildSizedRequest(90, 0);
    const requests = Buffer.concat([buildSizedRequest(25, 1669), echoed, buildSizedRequest(200, 8000)]);
    const received = collect(secure, 1669 + 90 + 8000, 5000);
    // one byte at a time through the size field and across pdu boundaries
    for (const cut of [8, 26, 30]) secure.write(requests.subarray(cut === 8 ? 0 : cut === 26 ? 8 : 26, cut));
    secure.write(requests.subarray(30));
    const replies = await received;
    assert.equal(replies.length, 1669 + 90 + 8000);
    assert.equal(replies.readUInt16BE(2), 1669);
    assert.deepEqual(replies.subarray(1669, 1669 + 90), echoed);
    assert.equal(replies.readUInt16BE(1669 + 90 + 2), 8000);
    assert.equal(new PduStreamCounter().push(replies), 3);
  });

  void test(`${kind} echo host without session tickets sends none`, { skip }, async (t) => {
    const host = await start({ handshake: 'x224-then-tls', sessionTickets: false });
    t.after(() => host.close());
    const secure = await connectDirectTls({ host: '127.0.0.1', port: host.port, handshake: 'x224-then-tls' });
    t.after(() => secure.destroy());
    let tickets = 0;
    secure.on('session', () => { tickets += 1; });
    assert.equal(secure.getProtocol(), 'TLSv1.2');
    const echoed = collect(secure, 90, 5000);
    secure.write(buildTpktPdu(90));
    await echoed;
    assert.equal(tickets, 0);
    assert.equal(secure.isSessionReused(), false);
  });

  void test(`${kind} echo host with session tickets sends them on tls 1.3`, { skip }, async (t) => {
    const host = await start({ handshake: 'x224-then-tls', sessionTickets: true });
    t.after(() => host.close());
    const secure = await connectDirectTls({ host: '127.0.0.1', port: host.port, handshake: 'x224-then-tls' });
    t.after(() => secure.destroy());
    const ticket = new Promise<void>((resolve) => secure.once('session', () => resolve()));
    secure.resume();
    secure.write(buildTpktPdu(90));
    const deadline = new Promise<never>((_resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('no ticket in 5 s')), 5000);
      t.after(() => clearTimeout(timer));
    });
    await Promise.race([ticket, deadline]);
    assert.equal(secure.getProtocol(), 'TLSv1.3');
  });

  void test(`${kind} echo host in stream mode keeps sending whole pdus`, { skip }, async (t) => {
    const host = await start({ handshake: 'x224-then-tls', sessionTickets: true, streamPduBytes: 16_000 });
    t.after(() => host.close());
    const secure = await connectDirectTls({ host: '127.0.0.1', port: host.port, handshake: 'x224-then-tls' });
    t.after(() => secure.destroy());
    const data = await collect(secure, 1_000_000, 5000);
    assert.ok(new PduStreamCounter().push(data.subarray(0, 16_000 * 60)) === 60);
  });

  void test(`${kind} echo host's announced certificate verifies it at 127.0.0.1 (as websockify --ssl-target checks it)`, { skip }, async (t) => {
    const host = await start({ handshake: 'tls-first', sessionTickets: false });
    t.after(() => host.close());
    const secure = tls.connect({ host: '127.0.0.1', port: host.port, ca: [host.certificatePem] });
    t.after(() => secure.destroy());
    await once(secure, 'secureConnect');
    assert.equal(secure.authorized, true, String(secure.authorizationError));
  });

  void test(`${kind} echo host process announces its port and exits cleanly on sigterm`, { skip }, async () => {
    const echo = await startEchoHostProcess({ kind, handshake: 'x224-then-tls', sessionTickets: true, replyBytes: 1669 });
    assert.equal(echo.kind, kind);
    const secure = await connectDirectTls({ host: '127.0.0.1', port: echo.port, handshake: 'x224-then-tls' });
    const received = collect(secure, 1669, 5000);
    secure.write(buildTpktPdu(25));
    assert.equal((await received).readUInt16BE(2), 1669);
    const exited = once(echo.process.child, 'exit');
    await echo.process.stop();
    const [code, signal] = await exited as [number | null, string | null];
    secure.destroy();
    assert.deepEqual({ code, signal }, { code: 0, signal: null });
  });
}
