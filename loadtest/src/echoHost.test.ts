import { test } from 'node:test';
import assert from 'node:assert/strict';
import type tls from 'node:tls';
import { startEchoHost, type EchoHandshake } from './echoHost.js';
import { connectDirectTls } from './directTlsClient.js';
import { generateLoopbackCertificate } from './selfSignedCertificate.js';
import { PduStreamCounter } from '@lanterna/protocol';
import { buildTpktPdu } from './tpktPdu.js';
import { buildSizedRequest, requestedReplyBytes } from './sizedRequest.js';

const certificate = await generateLoopbackCertificate();

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

for (const handshake of ['x224-then-tls', 'tls-first'] as EchoHandshake[]) {
  void test(`echo host (${handshake}) echoes tpkt pdus byte for byte`, async (t) => {
    const host = await startEchoHost({ handshake, sessionTickets: true, certificate });
    t.after(() => host.close());
    const secure = await connectDirectTls({ host: '127.0.0.1', port: host.port, handshake });
    t.after(() => secure.destroy());
    const sent = Buffer.concat([buildTpktPdu(90), buildTpktPdu(7), buildTpktPdu(2000)]);
    const received = collect(secure, sent.length, 5000);
    secure.write(sent.subarray(0, 50));
    secure.write(sent.subarray(50));
    assert.deepEqual(await received, sent);
    assert.equal(host.openConnections(), 1);
  });
}

void test('echo host answers each request pdu with one reply of the configured size', async (t) => {
  const host = await startEchoHost({ handshake: 'x224-then-tls', sessionTickets: false, replyBytes: 1669, certificate });
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

void test('echo host with sized replies answers each request with the size it names, echoing when it names none', async (t) => {
  const host = await startEchoHost({ handshake: 'x224-then-tls', sessionTickets: true, sizedReplies: true, certificate });
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

void test('sized requests carry their reply size and refuse what cannot be carried', () => {
  assert.equal(requestedReplyBytes(buildSizedRequest(25, 1669)), 1669);
  assert.equal(requestedReplyBytes(buildSizedRequest(9, 0)), 0);
  assert.equal(requestedReplyBytes(buildTpktPdu(7)), 0, 'too short to name a size: echoed');
  assert.throws(() => buildSizedRequest(8, 90), /at least 9 bytes/);
  assert.throws(() => buildSizedRequest(90, 3), /reply size/);
});

void test('echo host without session tickets sends none', async (t) => {
  const host = await startEchoHost({ handshake: 'x224-then-tls', sessionTickets: false, certificate });
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

void test('echo host with session tickets sends them on tls 1.3', async (t) => {
  const host = await startEchoHost({ handshake: 'x224-then-tls', sessionTickets: true, certificate });
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

void test('echo host in stream mode keeps sending whole pdus', async (t) => {
  const host = await startEchoHost({ handshake: 'x224-then-tls', sessionTickets: true, streamPduBytes: 16_000, certificate });
  t.after(() => host.close());
  const secure = await connectDirectTls({ host: '127.0.0.1', port: host.port, handshake: 'x224-then-tls' });
  t.after(() => secure.destroy());
  const data = await collect(secure, 1_000_000, 5000);
  assert.ok(new PduStreamCounter().push(data.subarray(0, 16_000 * 60)) === 60);
});
