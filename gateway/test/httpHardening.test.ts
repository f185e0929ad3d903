// What a browser on the LAN meets: security headers on every answer, only host
// names the gateway knows (DNS rebinding), WebSockets only from our own pages
// (or configured origins), and /metrics behind a token.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { WebSocket } from 'ws';
import { startTestGateway, type TestGateway } from '@lanterna/testkit';

let gateway: TestGateway;

before(async () => {
  gateway = await startTestGateway({ listen: { host: '127.0.0.1', port: 0, tls: false, allowedHosts: ['projector.corp'], allowedOrigins: ['https://portal.corp'] } });
});
after(() => gateway.close());

/** A GET with a Host header of our choosing (fetch does not allow setting it). */
function getWithHost(path: string, host: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    request({ host: '127.0.0.1', port: gateway.port, path, headers: { host, ...headers } }, (response) => {
      response.resume();
      resolve({ status: response.statusCode ?? 0, headers: response.headers });
    }).on('error', reject).end();
  });
}

/** The status of a WebSocket upgrade with these headers: 101 when it opened. */
function upgradeStatus(headers: Record<string, string>): Promise<number> {
  return new Promise((resolve) => {
    const socket = new WebSocket(`${gateway.url}/v1/displays/room/control`, 'lanterna.v1', { headers });
    socket.once('open', () => { socket.close(); resolve(101); });
    socket.once('unexpected-response', (_request, response) => resolve(response.statusCode ?? 0));
    socket.once('error', () => undefined);
  });
}

test('every answer carries CSP (no framing), COOP/COEP and nosniff', async () => {
  const { headers } = await getWithHost('/healthz', `127.0.0.1:${gateway.port}`);
  assert.match(String(headers['content-security-policy']), /frame-ancestors 'none'/);
  assert.match(String(headers['content-security-policy']), /script-src 'self' 'wasm-unsafe-eval'/);
  assert.equal(headers['x-frame-options'], 'DENY');
  assert.equal(headers['cross-origin-embedder-policy'], 'require-corp');
  assert.equal(headers['x-content-type-options'], 'nosniff');
});

test('a host name the gateway does not know is refused; IPs, localhost and configured names are served', async () => {
  assert.equal((await getWithHost('/healthz', 'rebind.attacker.example')).status, 421);
  assert.equal((await getWithHost('/healthz', 'rebind.attacker.example:8443')).status, 421);
  for (const host of [`127.0.0.1:${gateway.port}`, '[::1]:8443', 'localhost', 'PROJECTOR.corp.', 'projector.corp:8443']) {
    assert.equal((await getWithHost('/healthz', host)).status, 200, host);
  }
  assert.equal(await upgradeStatus({ host: 'rebind.attacker.example' }), 421);
});

test('websockets from a foreign page are refused; our own pages, configured origins and non-browsers are not', async () => {
  const own = `http://127.0.0.1:${gateway.port}`;
  assert.equal(await upgradeStatus({ origin: 'https://evil.example' }), 403);
  assert.equal(await upgradeStatus({ origin: 'null' }), 403);
  assert.equal(await upgradeStatus({ origin: own }), 101);
  assert.equal(await upgradeStatus({ origin: 'https://portal.corp' }), 101);
  assert.equal(await upgradeStatus({}), 101);
});

test('/metrics needs the admin (or metrics) token', async () => {
  assert.equal((await getWithHost('/metrics', `127.0.0.1:${gateway.port}`)).status, 401);
  assert.equal((await getWithHost('/metrics', `127.0.0.1:${gateway.port}`, { authorization: 'Bearer wrong-token-0123456789' })).status, 401);
  assert.equal((await getWithHost('/metrics', `127.0.0.1:${gateway.port}`, { authorization: `Bearer ${gateway.adminToken}` })).status, 200);
  assert.match(await gateway.metricsText(), /lanterna_/);
});
