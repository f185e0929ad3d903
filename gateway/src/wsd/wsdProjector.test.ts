// The projector service's Connect over a real gateway on loopback, with the
// room PIN: a Connect without one or with a wrong one is a SOAP fault in
// plain words and leaves the PIN on the screen; the right one projects,
// rotates the PIN and is audited as `wsd`; wrong PINs over WS-Discovery and
// over the presenter page count against one budget per source address, and
// past it Connect is refused with Retry-After; a busy display is refused
// before the PIN is looked at.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { WebSocket } from 'ws';
import {
  ANONYMOUS, projectorFaultOf, readWsdMessage, writeWsdMessage, type ConnectRequest, type WsdMessage,
} from '@lanterna/protocol/wsd';
import { configSchema } from '../config/configSchema.js';
import { createGatewayMetrics } from '../metrics/gatewayMetrics.js';
import { LocalBus } from '../cluster/gatewayBus.js';
import { createGatewayServer } from '../gatewayServer.js';

const ADMIN = 'admin-token-0123456789abcdef';
const DISPLAY_TOKEN = 'display-token-0123456789';
const target = { host: '10.0.0.5', port: 3389 };

async function startGateway(t: { after(fn: () => Promise<void>): void }): Promise<string> {
  const stateDir = mkdtempSync(join(tmpdir(), 'lanterna-wsd-projector-'));
  const config = {
    ...configSchema.parse({
      listen: { host: '127.0.0.1', port: 0, tls: false },
      policy: { allowNetworks: ['10.0.0.0/8'], allowPorts: ['3389'] },
      displays: [{ id: 'room', token: DISPLAY_TOKEN, name: 'Room 1' }],
      roomPin: { perSource: { max: 3, windowMs: 60_000 } },
      wsd: { enabled: true },
      logLevel: 'silent',
    }),
    stateDir,
  };
  const identity = { adminToken: ADMIN, sessionSecret: Buffer.alloc(32, 7), tls: { cert: '', key: '', fingerprint: '', generated: false }, repairs: [] };
  const gateway = createGatewayServer({ config, identity, metrics: createGatewayMetrics(), logger: pino({ level: 'silent' }), bus: new LocalBus(), lookup: (host) => Promise.resolve([host]) });
  const port = await gateway.listen();
  t.after(async () => { await gateway.close(100); rmSync(stateDir, { recursive: true, force: true }); });
  return `http://127.0.0.1:${port}`;
}

interface Kiosk { pin(): string | undefined; next(type: string): Promise<Record<string, unknown>>; close(): void }

/** The display's control socket, asking for the room message; `pin()` is the PIN it shows now. */
async function kiosk(url: string): Promise<Kiosk> {
  const socket = new WebSocket(`${url.replace('http', 'ws')}/v1/displays/room/control`, 'lanterna.v1');
  const messages: Record<string, unknown>[] = [];
  socket.on('message', (data: Buffer) => messages.push(JSON.parse(data.toString('utf8')) as Record<string, unknown>));
  await new Promise((resolve, reject) => { socket.once('open', resolve); socket.once('error', reject); });
  socket.send(JSON.stringify({ type: 'hello', protocol: 1, token: DISPLAY_TOKEN, features: ['room'] }));
  const taken = new Set<number>();
  return {
    pin: () => messages.findLast((message) => message.type === 'room')?.pin as string | undefined,
    async next(type) {
      const deadline = Date.now() + 5000;
      for (;;) {
        const index = messages.findIndex((message, i) => !taken.has(i) && message.type === type);
        if (index >= 0) {
          taken.add(index);
          return messages[index] ?? {};
        }
        if (Date.now() > deadline) throw new Error(`no ${type} within 5 s; got ${JSON.stringify(messages)}`);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    },
    close: () => socket.close(),
  };
}

async function connect(url: string, request: ConnectRequest): Promise<{ status: number; retryAfter: string | null; message: WsdMessage }> {
  const body = writeWsdMessage({ kind: 'connect', header: { messageId: `urn:uuid:${crypto.randomUUID()}`, replyTo: ANONYMOUS }, request });
  const response = await fetch(`${url}/wsd/room/projector`, { method: 'POST', headers: { 'content-type': 'application/soap+xml' }, body });
  const read = readWsdMessage(Buffer.from(await response.arrayBuffer()));
  assert.ok(read.ok, 'the answer is a SOAP message');
  return { status: response.status, retryAfter: response.headers.get('retry-after'), message: read.message };
}

function fault(answer: { message: WsdMessage }): { subcode: string | undefined; reason: string } {
  const { message } = answer;
  if (message.kind !== 'fault') throw new Error(`a fault was expected: ${JSON.stringify(message)}`);
  return { subcode: projectorFaultOf(message.fault), reason: message.fault.reason };
}

function otherPin(pin: string): string {
  return pin === '000000' ? '000001' : '000000';
}

async function audit(url: string): Promise<{ actor: string; action: string; detail?: Record<string, unknown> }[]> {
  const response = await fetch(`${url}/v1/admin/audit`, { headers: { authorization: `Bearer ${ADMIN}` } });
  return ((await response.json()) as { entries: { actor: string; action: string; detail?: Record<string, unknown> }[] }).entries;
}

test('Connect without the room PIN or with a wrong one is a fault in plain words; the right one projects, rotates the PIN and is audited as wsd', async (t) => {
  const url = await startGateway(t);
  const display = await kiosk(url);
  t.after(() => display.close());
  await display.next('room');
  const pin = display.pin() ?? '';
  assert.match(pin, /^\d{6}$/);

  const missing = await connect(url, { target, presenter: 'alice-laptop' });
  assert.equal(missing.status, 400);
  assert.deepEqual(fault(missing), { subcode: 'PinRequired', reason: 'this display asks for its room PIN: read it off the display and send it (lp:Pin)' });

  const wrong = await connect(url, { target, pin: otherPin(pin), presenter: 'alice-laptop' });
  assert.equal(wrong.status, 400);
  assert.deepEqual(fault(wrong), { subcode: 'PinWrong', reason: 'the room PIN is wrong: read it off the display again (2 more tries before a pause)' });
  assert.equal(display.pin(), pin, 'refusals leave the PIN on the screen');

  const accepted = await connect(url, { target, credentials: { username: 'u', password: 'p' }, pin, presenter: 'alice-laptop' });
  assert.equal(accepted.status, 200);
  const { message } = accepted;
  if (message.kind !== 'connect-response') throw new Error(`a ConnectResponse was expected: ${JSON.stringify(message)}`);
  const project = await display.next('project');
  assert.equal(message.response.sessionId, project.sessionId);
  const rotated = await display.next('room');
  assert.notEqual(rotated.pin, pin, 'the used PIN was replaced');

  // Busy is said before the PIN is looked at: the new PIN stays.
  const busy = await connect(url, { target, pin: String(rotated.pin), presenter: 'bob-laptop' });
  assert.equal(fault(busy).subcode, 'DisplayBusy');
  assert.equal(display.pin(), rotated.pin);

  const entries = await audit(url);
  const requested = entries.find((entry) => entry.action === 'projection-requested');
  assert.equal(requested?.actor, 'wsd@127.0.0.1');
  assert.equal(requested.detail?.via, 'wsd');
  const refusals = entries.filter((entry) => entry.action === 'projection-refused').map((entry) => entry.detail?.code);
  assert.deepEqual(refusals.sort(), ['display-busy', 'pin-required', 'pin-wrong']);
});

test('wrong PINs over WS-Discovery and over the presenter page share one budget per source address; past it Connect is refused with Retry-After, and the right PIN too', async (t) => {
  const url = await startGateway(t);
  const display = await kiosk(url);
  t.after(() => display.close());
  await display.next('room');
  const pin = display.pin() ?? '';
  const page = await fetch(`${url}/v1/displays/room/projection`, {
    method: 'POST', headers: { 'content-type': 'application/json', 'x-lanterna-presenter': '1' }, body: JSON.stringify({ target, pin: otherPin(pin) }),
  });
  assert.equal(page.status, 403);
  assert.equal(fault(await connect(url, { target, pin: otherPin(pin) })).reason, 'the room PIN is wrong: read it off the display again (1 more try before a pause)');
  const last = await connect(url, { target, pin: otherPin(pin) });
  assert.equal(fault(last).subcode, 'PinLocked', 'the try that uses up the budget is answered as the lockout');
  const locked = await connect(url, { target, pin });
  assert.equal(locked.status, 400);
  assert.equal(fault(locked).subcode, 'PinLocked');
  assert.match(fault(locked).reason, /^too many wrong room PINs from this computer; try again in \d+ seconds$/);
  assert.ok(Number(locked.retryAfter) > 0 && Number(locked.retryAfter) <= 60, `Retry-After ${locked.retryAfter}`);
  assert.equal(display.pin(), pin, 'a locked-out request uses nothing');
});
