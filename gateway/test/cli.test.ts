// The gateway as admins run it: the CLI, a config file, a cluster of workers,
// self-signed TLS made on first start, and a drain on SIGTERM.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { X509Certificate } from 'node:crypto';
import { request } from 'node:https';
import { startFaultyPeer, connectControl, openData } from '@lanterna/testkit';
import { buildConnectionRequest, PROTOCOL } from '@lanterna/protocol';
import { allocateFreePort } from '@lanterna/lab';

const cli = fileURLToPath(import.meta.resolve('@lanterna/gateway/cli'));
const TOKEN = 'display-token-0123456789';
const METRICS_TOKEN = 'metrics-token-0123456789';

function httpsGet(url: string, ca: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string; headers: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    request(url, { ca, headers }, (response) => {
      let body = '';
      response.on('data', (chunk: Buffer) => { body += chunk.toString(); });
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body, headers: response.headers }));
    }).on('error', reject).end();
  });
}

test('a bad config exits 2 naming each bad value', () => {
  const dir = mkdtempSync(join(tmpdir(), 'lanterna-cli-'));
  const file = join(dir, 'config.json');
  writeFileSync(file, JSON.stringify({ listen: { port: 'eighty' }, policy: { allowPorts: ['x'] } }));
  const run = spawnSync(process.execPath, [cli, '--config', file], { encoding: 'utf8', timeout: 20_000 });
  assert.equal(run.status, 2);
  assert.match(run.stderr, /listen\.port: .*config\.json/);
  assert.match(run.stderr, /policy\.allowPorts\.0: port range like/);
});

/** Starts the CLI with this config in a fresh state dir; resolves once every worker listens. */
async function startCli(t: TestContext, config: Record<string, unknown>): Promise<{ child: ChildProcess; dir: string; port: number; logs: Record<string, unknown>[] }> {
  const dir = mkdtempSync(join(tmpdir(), 'lanterna-cli-'));
  const port = await allocateFreePort();
  writeFileSync(join(dir, 'config.json'), JSON.stringify({
    listen: { host: '127.0.0.1', port, tls: true }, stateDir: join(dir, 'state'),
    policy: { allowNetworks: ['127.0.0.0/8'], allowPorts: ['1024-65535'] },
    certificates: { mode: 'insecure' },
    metricsToken: METRICS_TOKEN,
    ...config,
  }));
  const child = spawn(process.execPath, [cli, '--config', join(dir, 'config.json')], { stdio: ['ignore', 'pipe', 'pipe'] });
  t.after(() => child.kill('SIGKILL'));
  const logs: Record<string, unknown>[] = [];
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`gateway not listening within 20 s:\n${JSON.stringify(logs)}`)), 20_000);
    createInterface({ input: child.stdout }).on('line', (line) => {
      const entry = JSON.parse(line) as Record<string, unknown>;
      logs.push(entry);
      if (entry.msg === 'listening') { clearTimeout(timer); resolve(); }
    });
  });
  return { child, dir, port, logs };
}

test('two workers behind one TLS port: self-signed cert on first start, sessions across workers, aggregated metrics, drain on SIGTERM', { timeout: 60_000 }, async (t) => {
  const peer = await startFaultyPeer('echo');
  t.after(() => peer.close());
  const { child, dir, port, logs } = await startCli(t, {
    workers: 2,
    displays: [{ id: 'room', token: TOKEN, autoProject: { host: '127.0.0.1', port: peer.port, name: 'Echo' } }],
    timeouts: { drainMs: 1000 },
  });
  assert.ok(logs.some((entry) => entry.msg === 'listening' && entry.workers === 2));

  const certPath = join(dir, 'state', 'gateway-cert.pem');
  assert.ok(existsSync(certPath), 'a self-signed certificate was generated on first start');
  const ca = readFileSync(certPath, 'utf8');
  assert.ok(new X509Certificate(ca).checkIP('127.0.0.1'), 'the certificate is valid for 127.0.0.1');
  const ready = await httpsGet(`https://127.0.0.1:${port}/readyz`, ca);
  assert.equal(ready.status, 200);
  assert.equal(ready.headers['cross-origin-embedder-policy'], 'require-corp');

  // Several sessions: with round-robin workers, control and data sockets land on different workers.
  const sessions = [];
  for (let i = 0; i < 4; i += 1) {
    const control = await connectControl(`wss://127.0.0.1:${port}`, 'room', TOKEN, ca);
    const project = await control.next('project');
    const data = await openData(`wss://127.0.0.1:${port}`, String(project.sessionId), String(project.sessionToken), ca);
    data.socket.send(buildConnectionRequest({ requestedProtocols: PROTOCOL.SSL }));
    await data.queue.nextText('secured');
    await data.queue.nextBinary();
    const probe = Buffer.from([0x03, 0x00, 0x00, 0x08, 0x02, 0xf0, 0x80, i]);
    data.socket.send(probe);
    assert.deepEqual(await data.queue.nextBinary(), probe);
    sessions.push({ control, data });
    if (i < 3) { data.socket.close(); await data.queue.closed(); control.close(); }
  }
  assert.equal((await httpsGet(`https://127.0.0.1:${port}/metrics`, ca)).status, 401, 'metrics need a token');
  const metrics = await httpsGet(`https://127.0.0.1:${port}/metrics`, ca, { authorization: `Bearer ${METRICS_TOKEN}` });
  assert.match(metrics.body, /lanterna_sessions_total 4\b/, 'metrics are summed over the workers');

  const last = sessions[3];
  assert.ok(last);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  child.kill('SIGTERM');
  const closed = await last.data.queue.closed(10_000);
  assert.equal(closed.code, 1001, 'sessions still running at the drain deadline end with "going away"');
  assert.equal(await exited, 0);
});


test('two workers: a session token opens its session once, whichever worker a replay reaches', { timeout: 60_000 }, async (t) => {
  const peer = await startFaultyPeer('echo');
  t.after(() => peer.close());
  const { dir, port } = await startCli(t, {
    workers: 2,
    displays: [{ id: 'room', token: TOKEN, autoProject: { host: '127.0.0.1', port: peer.port } }],
    // A replay that got through would wait this long for its Connection Request, then time out.
    timeouts: { requestMs: 1000 },
  });
  const ca = readFileSync(join(dir, 'state', 'gateway-cert.pem'), 'utf8');
  const base = `wss://127.0.0.1:${port}`;
  const control = await connectControl(base, 'room', TOKEN, ca);
  t.after(() => control.close());
  const project = await control.next('project');
  const sessionId = String(project.sessionId);
  const sessionToken = String(project.sessionToken);
  const data = await openData(base, sessionId, sessionToken, ca);
  t.after(() => data.socket.close());
  data.socket.send(buildConnectionRequest({ requestedProtocols: PROTOCOL.SSL }));
  await data.queue.nextText('secured');
  await data.queue.nextBinary();

  // Fresh connections go to the workers in turn: six replays reach both of them.
  const replays = await Promise.all(Array.from({ length: 6 }, async () => {
    const replay = await openData(base, sessionId, sessionToken, ca);
    return replay.queue.closed();
  }));
  for (const [i, closed] of replays.entries()) {
    assert.equal(closed.error?.code, 'unauthorized', `replay ${i}: ${JSON.stringify(closed.error)}`);
    assert.equal(closed.error.message, 'the session token was already used');
    assert.equal(closed.code, 4401);
  }
  const probe = Buffer.from([0x03, 0x00, 0x00, 0x08, 0x02, 0xf0, 0x80, 0x2a]);
  data.socket.send(probe);
  assert.deepEqual(await data.queue.nextBinary(), probe, 'the session itself still relays');
});
