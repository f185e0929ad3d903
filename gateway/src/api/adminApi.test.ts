// The admin API over the broker: a target name the resolver never answers for
// is refused at the DNS deadline (the request does not hang), and the
// broker's displays and sessions are what the API lists.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { configSchema } from '../config/configSchema.js';
import { createGatewayMetrics } from '../metrics/gatewayMetrics.js';
import { LocalBus } from '../cluster/gatewayBus.js';
import { createGatewayServer } from '../gatewayServer.js';
import type { LookupAll } from '../connect/hostResolver.js';

const ADMIN = 'admin-token-0123456789abcdef';

async function startGateway(lookup: LookupAll, dnsMs: number): Promise<{ url: string; close(): Promise<void> }> {
  const stateDir = mkdtempSync(join(tmpdir(), 'lanterna-admin-'));
  const config = {
    ...configSchema.parse({
      listen: { host: '127.0.0.1', port: 0, tls: false },
      policy: { allowNetworks: ['10.0.0.0/8'], allowPorts: ['3389'] },
      displays: [{ id: 'room', token: 'display-token-0123456789', name: 'Room 1' }],
      timeouts: { dnsMs },
      logLevel: 'silent',
    }),
    stateDir,
  };
  const identity = { adminToken: ADMIN, sessionSecret: Buffer.alloc(32, 7), tls: { cert: '', key: '', fingerprint: '', generated: false }, repairs: [] };
  const gateway = createGatewayServer({ config, identity, metrics: createGatewayMetrics(), logger: pino({ level: 'silent' }), bus: new LocalBus(), lookup });
  const port = await gateway.listen();
  return {
    url: `http://127.0.0.1:${port}`,
    close: async () => { await gateway.close(100); rmSync(stateDir, { recursive: true, force: true }); },
  };
}

function post(url: string, body: unknown): Promise<Response> {
  return fetch(`${url}/v1/admin/sessions`, { method: 'POST', headers: { authorization: `Bearer ${ADMIN}` }, body: JSON.stringify(body) });
}

test('a target name that never resolves is refused at the DNS deadline', async (t) => {
  const neverAnswers: LookupAll = () => new Promise(() => undefined);
  const gateway = await startGateway(neverAnswers, 300);
  t.after(() => gateway.close());
  const started = performance.now();
  const response = await post(gateway.url, { displayId: 'room', target: { host: 'rdp.corp', port: 3389 } });
  const took = performance.now() - started;
  assert.equal(response.status, 403);
  assert.deepEqual(await response.json(), { code: 'target-forbidden', message: 'the name "rdp.corp" did not resolve within 300 ms' });
  assert.ok(took >= 290 && took < 3000, `answered at the deadline (${took.toFixed(0)} ms)`);
});

test('projections go through the broker: resolved names are checked, sessions and displays are listed', async (t) => {
  const lookup: LookupAll = (host) => Promise.resolve(host === 'rdp.corp' ? ['10.0.0.9'] : ['192.0.2.1']);
  const gateway = await startGateway(lookup, 1000);
  t.after(() => gateway.close());
  const outside = await post(gateway.url, { displayId: 'room', target: { host: 'elsewhere.example', port: 3389 } });
  assert.equal(outside.status, 403);
  assert.match(((await outside.json()) as { message: string }).message, /192\.0\.2\.1 is outside the allowed networks/);
  assert.equal((await post(gateway.url, { displayId: 'nowhere', target: { host: 'rdp.corp', port: 3389 } })).status, 404);

  const created = await post(gateway.url, { displayId: 'room', target: { host: 'rdp.corp', port: 3389 } });
  assert.equal(created.status, 202);
  const { sessionId } = await created.json() as { sessionId: string };
  const headers = { authorization: `Bearer ${ADMIN}` };
  const sessions = await (await fetch(`${gateway.url}/v1/admin/sessions`, { headers })).json() as { sessions: { sessionId: string; state: string; displayId: string }[] };
  assert.deepEqual(sessions.sessions.map((s) => [s.sessionId, s.displayId, s.state]), [[sessionId, 'room', 'minted']]);
  const displays = await (await fetch(`${gateway.url}/v1/admin/displays`, { headers })).json();
  assert.deepEqual(displays, { displays: [{ id: 'room', name: 'Room 1', online: false }] });
});

test('an invitation of names that never resolve is answered at one DNS deadline, not one per name', async (t) => {
  const neverAnswers: LookupAll = () => new Promise(() => undefined);
  const gateway = await startGateway(neverAnswers, 300);
  t.after(() => gateway.close());
  const names = Array.from({ length: 16 }, (_, i) => `pc${i}.corp:3389`).join(';');
  const invitation = `<?xml version="1.0"?><UPLOADINFO TYPE="Escalated"><UPLOADDATA RCTICKET="65538,1,${names},*,c2Vzc2lvbg==,*,*,x" PassStub="x" L="0"/></UPLOADINFO>`;
  const started = performance.now();
  const response = await post(gateway.url, { displayId: 'room', assistance: { invitation, password: '' } });
  const took = performance.now() - started;
  assert.equal(response.status, 403);
  assert.ok(took < 1500, `answered in ${took.toFixed(0)} ms (16 deadlines in a row would be 4800 ms)`);
});

test('a malformed percent-encoding in a path is a 400, not a 500', async (t) => {
  const gateway = await startGateway(() => Promise.resolve(['10.0.0.9']), 1000);
  t.after(() => gateway.close());
  const response = await fetch(`${gateway.url}/v1/admin/displays/room/sessions/%zz`, { method: 'DELETE', headers: { authorization: `Bearer ${ADMIN}` } });
  assert.equal(response.status, 400);
  assert.equal(((await response.json()) as { code: string }).code, 'bad-request');
});
