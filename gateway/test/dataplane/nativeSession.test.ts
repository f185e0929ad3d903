// A whole session through the real native data plane (relay.engine
// "native", the built gateway/dataplane/bin/lanterna-dataplane): the kiosk's
// data socket on the data plane's port, the server leg to a scripted RDP peer
// over TLS, PDUs both ways; the admin API and /metrics through the same front
// door, the client named by X-Forwarded-For from a trusted proxy. Skipped
// (said so) when the binary is not built.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { get } from 'node:https';
import { startTestGateway, startFaultyPeer, connectControl, openSecuredData, waitFor } from '@lanterna/testkit';
import { dataPlaneBinary } from '@lanterna/gateway';

const TOKEN = 'display-token-0123456789';
const binary = dataPlaneBinary();
const built = existsSync(binary);
/** The admin API's rate limit (20 a second, 60 at once) holds for tests too: poll gently. */
const ADMIN_POLL_MS = 200;

void test('a session through the native data plane: secured, PDUs both ways, figures in the admin API, /metrics and X-Forwarded-For through its front door, an admin stop', { skip: built ? false : `the native data plane is not built (${binary}): bash gateway/dataplane/build.sh` }, async (t) => {
  const echo = await startFaultyPeer('echo');
  t.after(() => echo.close());
  const gateway = await startTestGateway({
    displays: [{ id: 'room', token: TOKEN }],
    certificates: { mode: 'first-use' },
    relay: { engine: 'native' },
    // The test is the proxy in front: the data plane's peer (127.0.0.1) is trusted to name the client.
    listen: { host: '127.0.0.1', port: 0, tls: false, trustedProxies: ['127.0.0.1'] },
  });
  t.after(() => gateway.close());
  const admin = (path: string, init: { method?: string; body?: string } = {}): Promise<Response> => fetch(`${gateway.httpUrl}${path}`, {
    ...init, headers: { authorization: `Bearer ${gateway.adminToken}`, 'x-forwarded-for': '203.0.113.9' },
  });

  const control = await connectControl(gateway.url, 'room', TOKEN);
  t.after(() => control.close());
  const projected = await admin('/v1/admin/sessions', { method: 'POST', body: JSON.stringify({ displayId: 'room', target: { host: '127.0.0.1', port: echo.port } }) });
  assert.equal(projected.status, 202);
  const project = await control.next('project');
  const sessionId = String(project.sessionId);
  const data = await openSecuredData(gateway.url, project);
  t.after(() => data.socket.close());
  const secured = data.secured;
  assert.equal(secured.protocol, 'ssl');
  assert.equal(secured.trust, 'first-use');
  await data.queue.nextBinary(); // the Connection Confirm
  const probe = Buffer.from([0x03, 0x00, 0x00, 0x0b, 0x02, 0xf0, 0x80, 0x01, 0x02, 0x03, 0x04]);
  data.socket.send(probe);
  assert.deepEqual(await data.queue.nextBinary(), probe, 'relayed to the server and back');

  type Session = { sessionId: string; state: string; endReason?: string; stats?: { bytesToDisplay: number } };
  const session = async (): Promise<Session | undefined> => ((await (await admin('/v1/admin/sessions')).json()) as { sessions: Session[] }).sessions.find((entry) => entry.sessionId === sessionId);
  await waitFor('the session active with figures', async () => {
    const now = await session();
    return now?.state === 'active' && (now.stats?.bytesToDisplay ?? 0) >= probe.length;
  }, 10_000, ADMIN_POLL_MS);
  await waitFor('/metrics with the session and its bytes', async () => {
    const text = await gateway.metricsText();
    return /lanterna_sessions_active 1\n/.test(text) && /lanterna_relay_bytes_total\{direction="to-kiosk"\} [1-9]/.test(text);
  }, 10_000, ADMIN_POLL_MS);
  const audit = await (await admin('/v1/admin/audit')).text();
  assert.match(audit, /admin@203\.0\.113\.9/, 'the client X-Forwarded-For names, past the trusted proxy');

  assert.equal((await admin(`/v1/admin/sessions/${sessionId}`, { method: 'DELETE' })).status, 202);
  const ended = await data.queue.nextText('ended');
  assert.equal(ended.reason, 'stopped');
  await waitFor('the session ended in the broker', async () => (await session())?.endReason === 'stopped', 10_000, ADMIN_POLL_MS);
  assert.match(await gateway.metricsText(), /lanterna_sessions_active 0\n/);
});

void test('over TLS: the data plane serves the gateway\'s certificate, a session secures over wss, and pages carry HSTS as before', { skip: built ? false : `the native data plane is not built (${binary})` }, async (t) => {
  const echo = await startFaultyPeer('echo');
  t.after(() => echo.close());
  const gateway = await startTestGateway({
    displays: [{ id: 'room', token: TOKEN, autoProject: { host: '127.0.0.1', port: echo.port } }],
    certificates: { mode: 'insecure' },
    relay: { engine: 'native' },
    listen: { host: '127.0.0.1', port: 0, tls: true },
  });
  t.after(() => gateway.close());
  const ca = readFileSync(join(gateway.stateDir, 'gateway-cert.pem'), 'utf8');
  const headers = await new Promise<Record<string, unknown>>((resolve, reject) => {
    get(`${gateway.httpUrl}/healthz`, { ca }, (response) => { response.resume(); resolve(response.headers); }).on('error', reject);
  });
  assert.equal(headers['strict-transport-security'], 'max-age=31536000');
  const control = await connectControl(gateway.url, 'room', TOKEN, ca);
  t.after(() => control.close());
  const project = await control.next('project');
  const data = await openSecuredData(gateway.url, project, ca);
  t.after(() => data.socket.close());
  assert.equal(data.secured.trust, 'insecure');
  await data.queue.nextBinary();
  const probe = Buffer.from([0x03, 0x00, 0x00, 0x08, 0x02, 0xf0, 0x80, 0x2a]);
  data.socket.send(probe);
  assert.deepEqual(await data.queue.nextBinary(), probe);
});
