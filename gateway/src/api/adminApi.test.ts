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
import { openApiDocument, requestSchema } from './openApiDocument.js';
import { adminRoutes } from './adminRoutes.js';

const ADMIN = 'admin-token-0123456789abcdef';

/** The admin API's own logic, on Node's engine unless a test asks for the data plane's front door in front of it. */
async function startGateway(lookup: LookupAll, dnsMs: number, allowedOrigins: string[] = [], engine: 'node' | 'native' = 'node'): Promise<{ url: string; close(): Promise<void> }> {
  const stateDir = mkdtempSync(join(tmpdir(), 'lanterna-admin-'));
  const config = {
    ...configSchema.parse({
      listen: { host: '127.0.0.1', port: 0, tls: false, allowedOrigins },
      policy: { allowNetworks: ['10.0.0.0/8'], allowPorts: ['3389'] },
      displays: [{ id: 'room', token: 'display-token-0123456789', name: 'Room 1' }],
      timeouts: { dnsMs },
      logLevel: 'silent',
      relay: { engine },
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
  assert.deepEqual(displays, { displays: [{ id: 'room', name: 'Room 1', managedBy: 'config', online: false, sessionId, sound: { volume: 100, muted: false } }] }, 'the display is booked for the minted session');
});

const auth = { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' };
const resolveAll: LookupAll = (host) => Promise.resolve(host === 'rdp.corp' ? ['10.0.0.9'] : [host]);

test('the OpenAPI document and the router know the same routes, with the same request schemas', async (t) => {
  const gateway = await startGateway(resolveAll, 1000);
  t.after(() => gateway.close());
  const served = await (await fetch(`${gateway.url}/v1/openapi.json`)).json() as { openapi: string; paths: Record<string, Record<string, { requestBody?: { content: Record<string, { schema: unknown }> } }>> };
  assert.equal(served.openapi, '3.1.0');
  assert.deepEqual(served, JSON.parse(JSON.stringify(openApiDocument())));
  const documented = Object.entries(served.paths).flatMap(([path, methods]) => Object.keys(methods).map((method) => `${method.toUpperCase()} ${path}`)).sort();
  const routed = adminRoutes.map((route) => `${route.method} ${route.path}`).sort();
  assert.deepEqual(documented, routed);
  for (const route of adminRoutes) {
    const operation = served.paths[route.path]?.[route.method.toLowerCase()];
    assert.deepEqual(operation?.requestBody?.content['application/json']?.schema, route.body ? JSON.parse(JSON.stringify(requestSchema(route.body))) : undefined, `${route.method} ${route.path} body schema`);
    // Every documented route is dispatched: with the token it never answers "no admin endpoint".
    const path = route.path.replace(/\{[^}]+\}/g, 'x');
    const response = await fetch(`${gateway.url}${path}`, { method: route.method, headers: auth, body: route.body ? '{}' : undefined });
    const body = await response.json() as { code?: string };
    assert.notEqual(body.code, 'not-found', `${route.method} ${route.path} is routed`);
    assert.notEqual(response.status, 405);
  }
  const unknown = await fetch(`${gateway.url}/v1/admin/nothing`, { headers: auth });
  assert.equal(unknown.status, 404);
});

test('displays through the API: create (token once), rename, move, rotate, delete; config displays refused; bodies checked by their schema', async (t) => {
  const gateway = await startGateway(resolveAll, 1000);
  t.after(() => gateway.close());
  const call = async (method: string, path: string, body?: unknown): Promise<{ status: number; body: Record<string, unknown> }> => {
    const response = await fetch(`${gateway.url}${path}`, { method, headers: auth, body: body === undefined ? undefined : JSON.stringify(body) });
    return { status: response.status, body: await response.json() as Record<string, unknown> };
  };
  const created = await call('POST', '/v1/admin/displays', { id: 'hall', name: 'Hall', location: 'Ground floor' });
  assert.equal(created.status, 201);
  assert.equal(typeof created.body.token, 'string');
  assert.equal((await call('POST', '/v1/admin/displays', { id: 'hall', name: 'Again' })).status, 409);
  const bad = await call('POST', '/v1/admin/displays', { name: '', extra: 1 });
  assert.equal(bad.status, 400);
  assert.match(String(bad.body.message), /name|extra/);
  assert.equal((await call('PATCH', '/v1/admin/displays/hall', { name: 'Great hall' })).status, 200);
  assert.equal((await call('PATCH', '/v1/admin/displays/hall', {})).status, 400);
  const rotated = await call('POST', '/v1/admin/displays/hall/token');
  assert.equal(rotated.status, 200);
  assert.notEqual(rotated.body.token, created.body.token);
  assert.deepEqual((await call('DELETE', '/v1/admin/displays/room')).body.code, 'config-managed');
  const list = await call('GET', '/v1/admin/displays');
  assert.deepEqual((list.body.displays as { id: string; name: string; location?: string }[]).map((d) => [d.id, d.name, d.location]), [['hall', 'Great hall', 'Ground floor'], ['room', 'Room 1', undefined]]);
  assert.equal((await call('DELETE', '/v1/admin/displays/hall')).status, 200);
  assert.equal((await call('DELETE', '/v1/admin/displays/hall')).status, 404);
  const audit = await call('GET', '/v1/admin/audit?limit=2');
  assert.deepEqual((audit.body.entries as { action: string }[]).map((e) => e.action), ['display-deleted', 'display-token-rotated']);
  assert.equal(typeof audit.body.next, 'number');
  assert.equal((await call('GET', '/v1/admin/audit?limit=0')).status, 400);
  assert.equal((await call('DELETE', '/v1/admin/pins/not-a-key')).status, 400);
  assert.equal((await call('DELETE', '/v1/admin/pins/rdp.corp:3389')).status, 404);
  assert.deepEqual((await call('GET', '/v1/admin/pins')).body, { pins: [] });
});

test('state-changing calls from another page are refused; wrong tokens are rate-limited harder than right ones', async (t) => {
  const gateway = await startGateway(resolveAll, 1000, ['https://ops.example']);
  t.after(() => gateway.close());
  const create = (headers: Record<string, string>): Promise<Response> => fetch(`${gateway.url}/v1/admin/displays`, { method: 'POST', headers: { ...auth, ...headers }, body: JSON.stringify({ name: 'X' }) });
  assert.equal((await create({ origin: 'https://evil.example' })).status, 403);
  assert.equal((await create({ 'sec-fetch-site': 'cross-site' })).status, 403);
  assert.equal((await create({ origin: 'https://ops.example' })).status, 201, 'a configured origin may');
  assert.equal((await fetch(`${gateway.url}/v1/admin/displays`, { headers: { ...auth, origin: 'https://evil.example' } })).status, 200, 'reads are not state-changing');

  const statuses: number[] = [];
  for (let i = 0; i < 12; i += 1) statuses.push((await fetch(`${gateway.url}/v1/admin/displays`, { headers: { authorization: 'Bearer wrong-token-0123456789' } })).status);
  assert.deepEqual(statuses.slice(0, 10), Array(10).fill(401));
  assert.deepEqual(statuses.slice(10), [429, 429]);
  const locked = await fetch(`${gateway.url}/v1/admin/displays`, { headers: auth });
  assert.equal(locked.status, 429, 'an address that spent its failures is refused even with the right token for a while');
  assert.ok(Number(locked.headers.get('retry-after')) >= 1);
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

test('a malformed percent-encoding in a path is a 400, not a 500, with either engine', async (t) => {
  for (const engine of ['node', 'native'] as const) {
    const gateway = await startGateway(() => Promise.resolve(['10.0.0.9']), 1000, [], engine);
    t.after(() => gateway.close());
    const response = await fetch(`${gateway.url}/v1/admin/displays/room/sessions/%zz`, { method: 'DELETE', headers: { authorization: `Bearer ${ADMIN}` } });
    assert.equal(response.status, 400, engine);
    // The data plane's HTTP parser refuses the request line before any handler (docs/native-data-plane.md, known differences).
    if (engine === 'node') assert.equal(((await response.json()) as { code: string }).code, 'bad-request');
    else assert.match(await response.text(), /^400 Bad Request/);
  }
});
