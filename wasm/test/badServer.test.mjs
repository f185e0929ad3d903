// What the client does when the server misbehaves during the handshake: a
// negotiation failure (no second Connection Request on the same data socket),
// garbage, a truncated PDU, a reset. Each must end with a typed reason within
// a deadline, without abort() (the module keeps working for the next session).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import WebSocket from 'ws';

import { loadLanternaRdp } from '../js/nodeLoader.js';
import { runOverGateway } from '../js/gatewaySession.js';
import { buildConnectionConfirm, NEG_FAILURE } from '@lanterna/protocol';
import { GatewayStandIn, isConnectionRequest, scriptedHandshake, tlsConnectionConfirm, waitFor } from '@lanterna/testkit';

const DEADLINE_MS = 15000;
let rdp;
before(async () => { rdp = await loadLanternaRdp({ logLevel: process.env.LT_LOG ?? 'OFF' }); });
after(() => rdp.close());

async function runAgainst(script, t) {
  // the testkit's gateway stand-in, playing a misbehaving server from the script
  const server = await GatewayStandIn.listen({ dataScript: scriptedHandshake(script) });
  t.after(() => server.close());
  const session = rdp.createSession({ width: 1024, height: 768, connectTimeoutMs: 5000 });
  let frames = 0;
  session.onframe = () => { frames += 1; };
  const socket = new WebSocket(server.dataUrl('scripted'), 'lanterna.v1');
  const started = Date.now();
  const ended = runOverGateway(session, socket, { token: 'k' });
  let timer;
  const deadline = new Promise((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`no end within ${DEADLINE_MS} ms`)), DEADLINE_MS);
  });
  try {
    const end = await Promise.race([ended, deadline]);
    // FreeRDP retries after some failures; over the gateway that must never mean a second request
    assert.ok(server.binaryFramesReceived.filter(isConnectionRequest).length <= 1, 'one Connection Request at most');
    return {
      end, frames, ms: Date.now() - started,
      get received() { return server.binaryFramesReceived; },
      /** Every data socket closed at the stand-in: nothing more can arrive on them. */
      allClosed: () => server.dataSockets.every((record) => record.closed),
    };
  } finally {
    clearTimeout(timer);
    session.stop();
  }
}

const confirmTls = tlsConnectionConfirm();
const sslRefused = buildConnectionConfirm({ kind: 'failure', failureCode: NEG_FAILURE.SSL_NOT_ALLOWED_BY_SERVER });

test('a negotiation failure ends it as negotiation-failed after one Connection Request', async (t) => {
  const run = await runAgainst({ confirm: sslRefused }, t);
  assert.equal(run.end.reason, 'negotiation-failed');
  // Once the data socket is closed at the stand-in, anything sent late has arrived.
  await waitFor('the data socket closed', run.allClosed, 5000);
  assert.equal(run.received.filter(isConnectionRequest).length, 1, 'connection requests on the data socket');
});

test('garbage instead of the MCS Connect-Response ends it as protocol-error', async (t) => {
  const garbage = Buffer.from([0x03, 0x00, 0x00, 0x40, ...Array.from({ length: 60 }, (_v, i) => (i * 37 + 11) & 0xff)]);
  const run = await runAgainst({ confirm: confirmTls, reply: [garbage] }, t);
  assert.equal(run.end.reason, 'protocol-error');
  assert.equal(run.frames, 0);
});

test('bytes that are not RDP at all end it as protocol-error', async (t) => {
  const run = await runAgainst({ confirm: confirmTls, reply: [Buffer.from(`HTTP/1.1 400 Bad Request\r\n\r\n${'<p>no</p>'.repeat(40)}`)] }, t);
  assert.equal(run.end.reason, 'protocol-error');
});

test('a truncated PDU followed by the next one ends it as protocol-error', async (t) => {
  // TPKT says 200 bytes, 40 come; the next PDU's bytes complete it as nonsense
  const head = Buffer.alloc(40, 0x41);
  head.set([0x03, 0x00, 0x00, 0xc8, 0x02, 0xf0, 0x80, 0x7f, 0x66]);
  const run = await runAgainst({ confirm: confirmTls, reply: [head, Buffer.alloc(200, 0x42)] }, t);
  assert.equal(run.end.reason, 'protocol-error');
});

test('a truncated PDU and then a reset ends it as connection-reset', async (t) => {
  const head = Buffer.from([0x03, 0x00, 0x00, 0xc8, 0x02, 0xf0, 0x80, 0x7f, 0x66, 0x82, 0x00]);
  const run = await runAgainst({ confirm: confirmTls, reply: [head], dropAfterReply: true }, t);
  assert.equal(run.end.reason, 'connection-reset');
  assert.ok(run.ms < 5000, `took ${run.ms} ms`);
});

test('the server resetting right after the Connection Confirm ends it as connection-reset', async (t) => {
  const run = await runAgainst({ confirm: confirmTls, reply: [], dropAfterReply: true }, t);
  assert.equal(run.end.reason, 'connection-reset');
});

test('the module still runs sessions after all of that', async (t) => {
  const run = await runAgainst({ confirm: sslRefused }, t);
  assert.equal(run.end.reason, 'negotiation-failed');
});
