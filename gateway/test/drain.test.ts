// A gateway that shuts down must end every session, also one whose handshake
// is still under way when the drain begins, and must not wait longer than
// its sessions need.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { startTestGateway, startFaultyPeer, SLOW_CONFIRM_MS, connectControl, openData, openSecuredData, waitFor } from '@lanterna/testkit';
import { buildConnectionRequest, PROTOCOL } from '@lanterna/protocol';
import { configSchema, createGatewayMetrics, createGatewayServer, LocalBus, type GatewayMetrics } from '@lanterna/gateway';

const TOKEN = 'display-token-0123456789';

async function connectPhasesDone(metrics: GatewayMetrics): Promise<number> {
  const histogram = await metrics.handshake.get();
  return histogram.values.find((v) => v.metricName === 'lanterna_handshake_phase_seconds_count' && v.labels.phase === 'connect')?.value ?? 0;
}

test('a session whose handshake is under way when the drain begins ends at once, and the shutdown completes', { timeout: 30_000 }, async (t) => {
  const peer = await startFaultyPeer('slow-confirm');
  t.after(() => peer.close());
  const gateway = await startTestGateway({
    displays: [{ id: 'room', token: TOKEN }],
    certificates: { mode: 'insecure' },
  });
  const control = await connectControl(gateway.url, 'room', TOKEN);
  t.after(() => control.close());
  const response = await fetch(`${gateway.httpUrl}/v1/admin/sessions`, {
    method: 'POST', headers: { authorization: `Bearer ${gateway.adminToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ displayId: 'room', target: { host: '127.0.0.1', port: peer.port } }),
  });
  assert.equal(response.status, 202);
  const project = await control.next('project');
  const data = await openData(gateway.url, String(project.sessionId), String(project.sessionToken));
  data.socket.send(buildConnectionRequest({ requestedProtocols: PROTOCOL.SSL, cookie: 'drain' }));
  // The server is reached; its Confirm comes SLOW_CONFIRM_MS later.
  await waitFor('the TCP leg connected', async () => (await connectPhasesDone(gateway.metrics)) >= 1, SLOW_CONFIRM_MS / 2);
  const started = performance.now();
  const closing = gateway.close();
  const outcome = await Promise.race([
    closing.then(() => 'closed'),
    new Promise((resolve) => setTimeout(() => resolve('still draining'), 10_000).unref()),
  ]);
  assert.equal(outcome, 'closed', 'the drain waited for a session nobody stopped');
  const end = await data.queue.closed();
  assert.equal(end.code, 1001, 'the session ends as the gateway goes away');
  assert.deepEqual([end.error?.phase, end.error?.code], ['x224', 'gateway-shutdown'], 'the Confirm read was aborted, not waited for');
  assert.ok(performance.now() - started < SLOW_CONFIRM_MS, 'before the slow Confirm would have come');
});

test('the drain ends as soon as the last session ends, long before its deadline', { timeout: 30_000 }, async (t) => {
  const peer = await startFaultyPeer('echo');
  t.after(() => peer.close());
  const stateDir = mkdtempSync(join(tmpdir(), 'lanterna-drain-'));
  t.after(() => rmSync(stateDir, { recursive: true, force: true }));
  const config = {
    ...configSchema.parse({
      listen: { host: '127.0.0.1', port: 0, tls: false },
      policy: { allowNetworks: ['127.0.0.0/8'], allowPorts: ['1024-65535'] },
      displays: [{ id: 'room', token: TOKEN, autoProject: { host: '127.0.0.1', port: peer.port } }],
      certificates: { mode: 'insecure' },
      logLevel: 'silent',
    }),
    stateDir,
  };
  const identity = { adminToken: 'admin-token-0123456789abcdef', sessionSecret: Buffer.alloc(32, 3), tls: { cert: '', key: '', fingerprint: '', generated: false }, repairs: [] };
  const gateway = createGatewayServer({ config, identity, metrics: createGatewayMetrics(), logger: pino({ level: 'silent' }), bus: new LocalBus() });
  const url = `ws://127.0.0.1:${await gateway.listen()}`;
  const control = await connectControl(url, 'room', TOKEN);
  const project = await control.next('project');
  control.close();
  const data = await openSecuredData(url, project);
  await data.queue.nextBinary();

  const DRAIN_DEADLINE_MS = 20_000;
  let drained = false;
  const closing = gateway.close(DRAIN_DEADLINE_MS).then(() => { drained = true; });
  const probe = Buffer.from([0x03, 0x00, 0x00, 0x08, 0x02, 0xf0, 0x80, 0x07]);
  data.socket.send(probe);
  assert.deepEqual(await data.queue.nextBinary(), probe, 'a running session keeps relaying while the gateway drains');
  assert.equal(drained, false);
  const endedAt = performance.now();
  data.socket.send('{"type":"close"}');
  assert.deepEqual(await data.queue.nextText('ended'), { type: 'ended', reason: 'client-closed' });
  await closing;
  const after = performance.now() - endedAt;
  assert.ok(after < 3000, `the drain ended ${after.toFixed(0)} ms after the last session, not at its ${DRAIN_DEADLINE_MS} ms deadline`);
});
