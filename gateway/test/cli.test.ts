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
import WebSocket from 'ws';
import { startFaultyPeer, connectControl, openData, waitFor, helloOutcome, type HelloOutcome } from '@lanterna/testkit';
import { buildConnectionConfirm, buildConnectionRequest, PROTOCOL } from '@lanterna/protocol';
import { allocateFreePort } from '@lanterna/lab';

const cli = fileURLToPath(import.meta.resolve('@lanterna/gateway/cli'));
const TOKEN = 'display-token-0123456789';
const METRICS_TOKEN = 'metrics-token-0123456789';
const ADMIN_TOKEN = 'admin-token-0123456789abcdef';

function httpsGet(url: string, ca: string, headers: Record<string, string> = {}, post?: string): Promise<{ status: number; body: string; headers: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    request(url, { ca, headers, method: post === undefined ? 'GET' : 'POST' }, (response) => {
      let body = '';
      response.on('data', (chunk: Buffer) => { body += chunk.toString(); });
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body, headers: response.headers }));
    }).on('error', reject).end(post);
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

test('an unreadable Redis password file exits 2 naming it, before any worker starts', () => {
  const dir = mkdtempSync(join(tmpdir(), 'lanterna-cli-'));
  const file = join(dir, 'config.json');
  const missing = join(dir, 'no-such-password');
  writeFileSync(file, JSON.stringify({ stateDir: join(dir, 'state'), workers: 2, broker: { store: 'redis', redisUrl: 'redis://127.0.0.1:1/0', redisPasswordFile: missing } }));
  const run = spawnSync(process.execPath, [cli, '--config', file], { encoding: 'utf8', timeout: 20_000 });
  assert.equal(run.status, 2);
  assert.match(run.stderr, new RegExp(`broker\\.redisPasswordFile: cannot read ${missing}`));
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


test('two workers: a presenter page and its display meet whichever workers they reach (native: the data planes hand the page over; Node: refused, typed)', { timeout: 120_000 }, async (t) => {
  const { dir, port, logs } = await startCli(t, { workers: 2, displays: [{ id: 'room', token: TOKEN }] });
  const engine = logs.find((entry) => entry.msg === 'listening')?.relayEngine;
  const ca = readFileSync(join(dir, 'state', 'gateway-cert.pem'), 'utf8');
  const base = `wss://127.0.0.1:${port}`;
  const control = await connectControl(base, 'room', TOKEN, ca, { features: ['room'] });
  t.after(() => control.close());
  // the room's PIN rotates after each use: its `room` messages come between the others
  let pin = '';
  const nextOf = async (type: string): Promise<Record<string, unknown>> => {
    for (;;) {
      const message = await control.queue.nextText();
      if (message.type === 'room') pin = String(message.pin);
      if (message.type === type) return message;
    }
  };
  await nextOf('room');
  const ask = (): Promise<{ status: number; body: string }> => httpsGet(`https://127.0.0.1:${port}/v1/displays/room/projection`, ca,
    { 'content-type': 'application/json', 'x-lanterna-presenter': '1' }, JSON.stringify({ pin, source: 'browser' }));
  if (engine === 'node') {
    // the Node engine joins within one process: a cluster refuses a browser source, before the PIN is looked at
    const refused = await ask();
    assert.equal(refused.status, 501, refused.body);
    assert.equal((JSON.parse(refused.body) as { code: string }).code, 'browser-unsupported');
    return;
  }
  assert.equal(engine, 'native');
  const forwarded = (): number => logs.filter((entry) => entry.event === 'presenter-forwarded').length;
  let joined = 0;
  // each pairing lands on the same worker or not, as the kernel hashes the connections: go on until both kinds were seen
  for (let round = 0; round < 16 && (forwarded() === 0 || joined - forwarded() < 1); round += 1) {
    // the last pairing's end reaches the broker by the data plane's notice, a moment after the display heard it: busy until then
    let asked = await ask();
    for (const until = Date.now() + 5_000; asked.status === 409 && Date.now() < until;) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      asked = await ask();
    }
    assert.equal(asked.status, 202, asked.body);
    const started = JSON.parse(asked.body) as { presenter: { token: string; socketUrl: string } };
    const project = await nextOf('project');
    const page = new WebSocket(started.presenter.socketUrl, 'lanterna.v1', { ca });
    const pageMessages: Buffer[] = [];
    let pageWaiter: (() => void) | undefined;
    page.on('message', (data, isBinary) => { if (isBinary) { pageMessages.push(data as Buffer); pageWaiter?.(); } });
    const pageNext = async (): Promise<Buffer> => {
      while (pageMessages.length === 0) await new Promise<void>((resolve) => { pageWaiter = resolve; });
      return pageMessages.shift() as Buffer;
    };
    const present = (): void => page.send(JSON.stringify({ type: 'present', token: started.presenter.token, publicKey: 'AAAA' }));
    await new Promise((resolve, reject) => { page.once('open', resolve); page.once('error', reject); });
    // alternate who comes first: the page waiting for its display, or the display for its page
    if (round % 2 === 0) present();
    const display = await openData(base, String(project.sessionId), String(project.sessionToken), ca);
    const request = buildConnectionRequest({ requestedProtocols: PROTOCOL.SSL | PROTOCOL.HYBRID });
    display.socket.send(request);
    if (round % 2 === 1) present();
    assert.deepEqual(await pageNext(), Buffer.from(request), 'the page gets the display\'s Connection Request');
    page.send(buildConnectionConfirm({ kind: 'response', selectedProtocol: PROTOCOL.SSL, flags: 0 }));
    const secured = await display.queue.nextText('secured');
    assert.equal(secured.trust, 'presenter');
    await display.queue.nextBinary();
    const up = Buffer.from([0x03, 0x00, 0x00, 0x08, 0x02, 0xf0, 0x80, round]);
    display.socket.send(up);
    assert.deepEqual(await pageNext(), up);
    const down = Buffer.from([0x03, 0x00, 0x00, 0x09, 0x02, 0xf0, 0x80, round, 0xaa]);
    page.send(down);
    assert.deepEqual(await display.queue.nextBinary(), down);
    // the page leaves politely: the display's session ends server-closed, the display is free again
    page.send(JSON.stringify({ type: 'close' }));
    assert.equal((await display.queue.nextText('ended')).reason, 'server-closed');
    await display.queue.closed();
    page.close();
    joined += 1;
  }
  assert.ok(forwarded() >= 1, `no pairing of ${joined} reached two workers`);
  assert.ok(joined - forwarded() >= 1, `every one of ${joined} pairings reached two workers`);
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

test('two workers: wrong display tokens count once, whichever worker each reaches; past the budget the right one is refused 4429', { timeout: 60_000 }, async (t) => {
  const { dir, port } = await startCli(t, {
    workers: 2,
    displays: [{ id: 'room', token: TOKEN }],
    tokenGuesses: { perAddress: { max: 4, windowMs: 60_000 } },
  });
  const ca = readFileSync(join(dir, 'state', 'gateway-cert.pem'), 'utf8');
  const hello = (token: string): Promise<HelloOutcome> => helloOutcome(`wss://127.0.0.1:${port}/v1/displays/room/control`, token, 'cli-test', { ca });
  // Fresh connections go to the workers in turn: the wrong tokens reach both.
  for (let i = 0; i < 4; i += 1) assert.deepEqual(await hello('wrong-display-token-0123'), { code: 4401, error: 'unauthorized' });
  assert.deepEqual(await hello(TOKEN), { code: 4429, error: 'rate-limited' }, 'the budget is the cluster\'s, not each worker\'s');
});

test('two workers: kill -9 of one — a display whose session died with it is projected again, one whose control socket died with it goes offline', { timeout: 90_000 }, async (t) => {
  const peer = await startFaultyPeer('echo');
  t.after(() => peer.close());
  const autoProject = { host: '127.0.0.1', port: peer.port };
  const { dir, port, logs } = await startCli(t, {
    workers: 2, adminToken: ADMIN_TOKEN,
    displays: [{ id: 'room', token: TOKEN, autoProject }, { id: 'hall', token: TOKEN }],
    timeouts: { reprojectMs: 100 },
  });
  const ca = readFileSync(join(dir, 'state', 'gateway-cert.pem'), 'utf8');
  const base = `wss://127.0.0.1:${port}`;
  /** The worker that logged this event (every log line carries its pid). */
  const pidOf = async (what: string, match: (entry: Record<string, unknown>) => boolean): Promise<number> => {
    await waitFor(what, () => logs.some(match), 10_000);
    return Number(logs.filter(match).pop()?.pid);
  };
  const relay = async (data: Awaited<ReturnType<typeof openData>>, tag: number): Promise<void> => {
    const probe = Buffer.from([0x03, 0x00, 0x00, 0x08, 0x02, 0xf0, 0x80, tag]);
    data.socket.send(probe);
    assert.deepEqual(await data.queue.nextBinary(), probe);
  };

  const room = await connectControl(base, 'room', TOKEN, ca);
  t.after(() => room.close());
  const roomControl = await pidOf('room online', (entry) => entry.event === 'display-online' && entry.displayId === 'room');
  // New connections go to the workers in turn; take projections until the data socket lands on the other worker.
  let victim: number | undefined;
  for (let attempt = 0; attempt < 10 && victim === undefined; attempt += 1) {
    const project = await room.next('project');
    const data = await openData(base, String(project.sessionId), String(project.sessionToken), ca);
    t.after(() => data.socket.terminate());
    data.socket.send(buildConnectionRequest({ requestedProtocols: PROTOCOL.SSL }));
    await data.queue.nextText('secured');
    await data.queue.nextBinary();
    await relay(data, attempt);
    const dataWorker = await pidOf('session secured', (entry) => entry.event === 'secured' && entry.sessionId === project.sessionId);
    if (dataWorker !== roomControl) victim = dataWorker;
    else data.socket.close(); // the session ends; the gateway projects the display again
  }
  assert.ok(victim !== undefined, 'a session whose data socket is on the other worker than its control socket');
  // hall's control socket on the worker that will die
  let hall: Awaited<ReturnType<typeof connectControl>> | undefined;
  for (let attempt = 0; attempt < 10 && hall === undefined; attempt += 1) {
    const onlineBefore = logs.filter((entry) => entry.event === 'display-online' && entry.displayId === 'hall').length;
    const candidate = await connectControl(base, 'hall', TOKEN, ca);
    t.after(() => candidate.close());
    await waitFor('hall online', () => logs.filter((entry) => entry.event === 'display-online' && entry.displayId === 'hall').length > onlineBefore, 10_000);
    if (await pidOf('hall online', (entry) => entry.event === 'display-online' && entry.displayId === 'hall') === victim) hall = candidate;
    else candidate.close();
  }
  assert.ok(hall, 'hall\'s control socket on the worker that will die');
  const displays = async (): Promise<Record<string, boolean>> => {
    const answer = await httpsGet(`https://127.0.0.1:${port}/v1/admin/displays`, ca, { authorization: `Bearer ${ADMIN_TOKEN}` });
    const body = JSON.parse(answer.body) as { displays: { id: string; online: boolean }[] };
    return Object.fromEntries(body.displays.map((display) => [display.id, display.online]));
  };
  assert.deepEqual(await displays(), { room: true, hall: true });

  process.kill(victim, 'SIGKILL');
  const again = await room.next('project', 10_000);
  const data = await openData(base, String(again.sessionId), String(again.sessionToken), ca);
  t.after(() => data.socket.terminate());
  data.socket.send(buildConnectionRequest({ requestedProtocols: PROTOCOL.SSL }));
  await data.queue.nextText('secured');
  await data.queue.nextBinary();
  await relay(data, 0x2a);
  await waitFor('hall offline', async () => (await displays()).hall === false, 10_000);
  assert.equal((await displays()).room, true, 'room\'s control socket lives on');
  assert.ok(logs.some((entry) => entry.event === 'worker-lost' && entry.worker === victim && entry.sessionsEnded === 1 && entry.displaysOffline === 1), 'the primary says what it ended for the dead worker');
});
