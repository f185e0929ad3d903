import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startEchoHost } from './echoHost.js';
import { generateLoopbackCertificate } from './selfSignedCertificate.js';
import { startWebsockify } from './websockifyInstance.js';
import { connectWebsockifyKiosk } from './websockifyKiosk.js';
import { PacedConnection, type WindowCounters } from './pacedConnection.js';
import { LatencyRecorder } from './latencyHistogram.js';
import { buildTpktPdu } from './tpktPdu.js';
import { waitFor } from './httpReadiness.js';

void test('paced connections through real websockify get timed echoes', async (t) => {
  const certificate = await generateLoopbackCertificate();
  const echo = await startEchoHost({ handshake: 'tls-first', sessionTickets: false, replyBytes: 1669, certificate });
  t.after(() => echo.close());
  const relay = await startWebsockify({ targetPort: echo.port, targetCertPem: echo.certificatePem });
  t.after(() => relay.stop());

  const recorder = new LatencyRecorder();
  const counters: WindowCounters = { sent: 0, received: 0, failures: 0, lastFailure: undefined };
  const connections: PacedConnection[] = [];
  t.after(() => { for (const connection of connections) connection.close(); });
  for (let i = 0; i < 5; i += 1) {
    const channel = await connectWebsockifyKiosk({ url: relay.url, timeoutMs: 10_000 });
    const connection = new PacedConnection(channel, buildTpktPdu(25), 50, recorder, counters);
    connections.push(connection);
    connection.start();
  }
  await waitFor(() => counters.failures > 0 || (counters.sent >= 5 * 20 && recorder.summary().count >= counters.sent - 10), 20_000);
  assert.equal(counters.failures, 0, counters.lastFailure);
  assert.ok(counters.sent >= 5 * 20, `sent ${counters.sent}`);
  const summary = recorder.summary();
  assert.ok(summary.count >= counters.sent - 10, `received ${summary.count} of ${counters.sent}`);
  assert.ok(summary.p50Ms > 0 && summary.p50Ms < 1000, `p50 ${summary.p50Ms}`);
  assert.ok(echo.openConnections() === 5);
});
