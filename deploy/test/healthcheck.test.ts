// The image's HEALTHCHECK script against a listener like the gateway's:
// HTTPS with a self-signed certificate made the way the gateway makes it,
// and plain HTTP when LANTERNA_LISTEN_TLS=false.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createServer as createHttpServer, type Server, type RequestListener } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { ensureGatewayIdentity, loadConfig } from '@lanterna/gateway';
import { repositoryFile } from './repository.js';

async function listen(server: Server): Promise<number> {
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return (server.address() as AddressInfo).port;
}

async function runHealthcheck(env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, [repositoryFile('deploy/healthcheck.mjs')], { env: { PATH: process.env.PATH ?? '', ...env } });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => { stderr += chunk.toString(); });
  const [code] = await once(child, 'exit') as [number | null];
  return { code, stderr };
}

const answer = (status: number): RequestListener => (request, response) => {
  response.writeHead(request.url === '/healthz' ? status : 404).end('ok\n');
};

test('healthy over TLS with the gateway\'s self-signed certificate', async (t) => {
  const stateDir = mkdtempSync(join(tmpdir(), 'lanterna-healthcheck-'));
  t.after(() => rmSync(stateDir, { recursive: true, force: true }));
  const identity = await ensureGatewayIdentity(loadConfig({ env: { LANTERNA_STATE_DIR: stateDir } }));
  const server = createHttpsServer({ cert: identity.tls.cert, key: identity.tls.key }, answer(200));
  t.after(() => server.close());
  const port = await listen(server);
  const result = await runHealthcheck({ LANTERNA_LISTEN_PORT: String(port) });
  assert.equal(result.code, 0, result.stderr);
});

test('unhealthy when /healthz answers anything but 200', async (t) => {
  const server = createHttpServer(answer(503));
  t.after(() => server.close());
  const port = await listen(server);
  const result = await runHealthcheck({ LANTERNA_LISTEN_PORT: String(port), LANTERNA_LISTEN_TLS: 'false' });
  assert.equal(result.code, 1);
  assert.match(result.stderr, /503/);
});

test('healthy over plain HTTP when the listener has TLS off', async (t) => {
  const server = createHttpServer(answer(200));
  t.after(() => server.close());
  const port = await listen(server);
  const result = await runHealthcheck({ LANTERNA_LISTEN_PORT: String(port), LANTERNA_LISTEN_TLS: 'false' });
  assert.equal(result.code, 0, result.stderr);
});

test('unhealthy when nothing listens', async () => {
  const server = createHttpServer(answer(200));
  const port = await listen(server);
  server.close();
  await once(server, 'close');
  const result = await runHealthcheck({ LANTERNA_LISTEN_PORT: String(port) });
  assert.equal(result.code, 1);
  assert.match(result.stderr, /ECONNREFUSED/);
});
