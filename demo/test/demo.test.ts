// The README's run command end to end, as far as a machine without a screen
// goes: the demo starts a lab presenter and the gateway, and a display that
// says hello on the control socket is told to project the presenter. Ctrl-C
// (SIGINT) stops everything and the demo exits 0. The presenter's session goes
// through the gateway's certificate check, and the demo leaves no certificate
// pin behind: its presenter is pinned in the run's configuration, never on first use.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { request as httpsRequest } from 'node:https';
import { WebSocket } from 'ws';
import { startDemo } from '@lanterna/testkit';

const START_DEADLINE_MS = 60_000;
const MESSAGE_DEADLINE_MS = 15_000;
const cli = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));

/** An X.224 Connection Request offering TLS and NLA (TPKT, CR TPDU, RDP_NEG_REQ with PROTOCOL_SSL | PROTOCOL_HYBRID). */
const CONNECTION_REQUEST = Buffer.from([0x03, 0x00, 0x00, 0x13, 0x0e, 0xe0, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x08, 0x00, 0x03, 0x00, 0x00, 0x00]);

/** GET on the gateway's HTTPS API, the answer's JSON. */
function getJson(url: string, ca: string, token: string): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const request = httpsRequest(url, { ca, headers: { authorization: `Bearer ${token}` } }, (response) => {
      let body = '';
      response.on('data', (chunk: Buffer) => { body += chunk.toString(); });
      response.on('end', () => { try { resolve(JSON.parse(body)); } catch (error) { reject(error instanceof Error ? error : new Error(String(error))); } });
    });
    request.on('error', reject);
    request.end();
  });
}

/**
 * The socket's text messages in order, each read once. A listener per wait
 * (socket.once) lost a message: two that arrive in one chunk are emitted in
 * one tick, before the awaiting code registers for the second (the welcome
 * and the project came together in a clean clone's first run).
 */
class Inbox {
  private readonly queued: Record<string, unknown>[] = [];
  private waiter: ((message: Record<string, unknown>) => void) | null = null;

  constructor(socket: WebSocket) {
    socket.on('message', (data: Buffer) => {
      const message = JSON.parse(data.toString('utf8')) as Record<string, unknown>;
      const waiter = this.waiter;
      this.waiter = null;
      if (waiter) waiter(message);
      else this.queued.push(message);
    });
  }

  /** Resolves with the next message, or rejects after the deadline. */
  next(): Promise<Record<string, unknown>> {
    const ready = this.queued.shift();
    if (ready) return Promise.resolve(ready);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiter = null;
        reject(new Error(`no message within ${MESSAGE_DEADLINE_MS} ms`));
      }, MESSAGE_DEADLINE_MS);
      this.waiter = (message) => {
        clearTimeout(timer);
        resolve(message);
      };
    });
  }
}

test('the demo runs a presenter and the gateway, projects the presenter to its display, and stops on Ctrl-C', { timeout: 120_000 }, async (t) => {
  const demo = await startDemo(t, ['--scene', 'reference', '--discovery-interface', 'lo', '--display-size', '1280x800'], { startDeadlineMs: START_DEADLINE_MS });
  const { port, displayUrl, output } = demo;
  assert.match(output.join('\n'), /shadow server on a virtual 1280×800 screen/, 'the presenter\'s screen has the size asked for');
  const page = new URL(displayUrl);
  assert.equal(page.origin, `https://127.0.0.1:${port}`);
  const token = new URLSearchParams(page.hash.slice(1)).get('token');
  assert.ok(token, 'the display page URL carries the display token');

  const ca = readFileSync(join(demo.gatewayDir, 'gateway-cert.pem'), 'utf8');
  const control = new WebSocket(`wss://127.0.0.1:${port}/v1/displays/demo/control`, 'lanterna.v1', { ca });
  t.after(() => control.terminate());
  await once(control, 'open');
  const controlInbox = new Inbox(control);
  const welcomed = controlInbox.next();
  control.send(JSON.stringify({ type: 'hello', protocol: 1, token, client: 'lanterna-demo-test/1' }));
  assert.equal((await welcomed).type, 'welcome');
  const project = await controlInbox.next();
  assert.equal(project.type, 'project', JSON.stringify(project));
  const target = project.target as { name?: unknown; host?: unknown; port?: unknown } | undefined;
  assert.equal(target?.name, 'Demo presenter');
  const presenterKey = `${String(target.host)}:${String(target.port)}`;

  // The session reaches the presenter through the gateway's certificate check: the presenter's
  // certificate is the one pinned in the demo's configuration, so nothing is pinned on first use.
  const data = new WebSocket(`wss://127.0.0.1:${port}/v1/sessions/${String(project.sessionId)}/data`, 'lanterna.v1', { ca });
  t.after(() => data.terminate());
  await once(data, 'open');
  const secured = new Inbox(data).next();
  data.send(JSON.stringify({ type: 'open', token: project.sessionToken }));
  data.send(CONNECTION_REQUEST);
  const answer = await secured;
  assert.equal(answer.type, 'secured', JSON.stringify(answer));
  assert.equal(answer.trust, 'pinned', 'the demo presenter is trusted by its configured pin');
  data.terminate();
  control.close();
  const adminToken = readFileSync(join(demo.gatewayDir, 'admin-token'), 'utf8').trim();
  const { pins } = await getJson(`https://127.0.0.1:${port}/v1/admin/pins`, ca, adminToken) as { pins: { key: string }[] };
  assert.deepEqual(pins.map((pin) => pin.key).filter((key) => key === presenterKey), [], 'the admin\'s pins table has nothing of the demo presenter');

  // The display is announced over WS-Discovery (here on loopback only): its DPWS metadata answers on the gateway's listener.
  const get = '<?xml version="1.0" encoding="utf-8"?><s:Envelope xmlns:s="http://www.w3.org/2003/05/soap-envelope" xmlns:a="http://schemas.xmlsoap.org/ws/2004/08/addressing">'
    + '<s:Header><a:Action>http://schemas.xmlsoap.org/ws/2004/09/transfer/Get</a:Action><a:MessageID>urn:uuid:5c3f4e1a-0000-4000-8000-000000000001</a:MessageID></s:Header><s:Body/></s:Envelope>';
  const metadata = await new Promise<string>((resolve, reject) => {
    const request = httpsRequest(`https://127.0.0.1:${port}/wsd/demo`, { method: 'POST', ca, headers: { 'content-type': 'application/soap+xml' } }, (response) => {
      let body = '';
      response.on('data', (chunk: Buffer) => { body += chunk.toString(); });
      response.on('end', () => resolve(body));
    });
    request.on('error', reject);
    request.end(get);
  });
  assert.match(metadata, /<wsdp:FriendlyName>Demo display<\/wsdp:FriendlyName>/);
  assert.match(metadata, /<lp:Location>Demo room<\/lp:Location>/);

  demo.child.kill('SIGINT');
  const code = await demo.exited;
  assert.equal(code, 0, output.join('\n'));
  // Stopped: the gateway's pin file holds nothing of this run's presenter.
  const pinFile = join(demo.gatewayDir, 'known-targets.json');
  const left = existsSync(pinFile) ? Object.keys(JSON.parse(readFileSync(pinFile, 'utf8') || '{}') as Record<string, string>) : [];
  assert.deepEqual(left, [], `the demo left no certificate pin behind (${pinFile})`);
});

test('the demo refuses a display size it cannot give, saying what it takes, before starting anything', { timeout: 30_000 }, async () => {
  for (const size of ['5000x2000', '1279x720', 'big']) {
    const demo = spawn(process.execPath, [cli, '--no-kiosk', '--no-discovery', '--display-size', size], { stdio: ['ignore', 'pipe', 'pipe'] });
    let errors = '';
    demo.stderr.on('data', (chunk: Buffer) => { errors += chunk.toString(); });
    const [code] = await once(demo, 'exit') as [number | null];
    assert.equal(code, 1, size);
    assert.match(errors, /--display-size ".*": give WIDTHxHEIGHT in even pixels, from 200 up to 3840x2160 \(or 2160x3840 upright\)/, errors);
  }
});
