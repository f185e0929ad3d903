// WS-Discovery in a farm: two gateway CLIs sharing one real redis-server, both
// serving discovery on the same veth LAN (A with two workers, its responder in
// the cluster primary; B a single process). Each display is announced and
// answered for by the gateway holding its control socket, under one endpoint
// address whichever that is: a Probe gets one ProbeMatch per display; a kiosk
// that moves gets a Bye from the first gateway and a Hello from the second; a
// display taken over while its old socket is still open gets no Bye (it never
// went offline); a gateway killed outright says nothing, and its displays
// come back from the other once their kiosks reconnect there.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { startRedis, waitFor, type RedisServer, type Lan } from '@lanterna/testkit';
import { readWsdMessage, writeWsdMessage, NS, type DeviceMetadata } from '@lanterna/protocol/wsd';
import { makeLan, runPeer, startDiscoveryGateway, type DiscoveryGateway, type PeerRun } from './discoveryLan.js';

const SECRET = 'session-secret-shared-by-the-farm-0123456789';

function farmGateway(t: TestContext, lan: Lan, redis: RedisServer, workers: number): Promise<DiscoveryGateway> {
  return startDiscoveryGateway(t, lan, {
    workers, sessionSecret: SECRET,
    broker: { store: 'redis', redisUrl: redis.url },
  });
}

type Line = Record<string, unknown>;
const scopeOf = (line: Line): string => ((line.scopes as string[] | undefined)?.[0] ?? '').split(':').at(-1) ?? '';
const xaddrOf = (line: Line): string => (line.xaddrs as string[] | undefined)?.[0] ?? '';
const instanceOf = (line: Line): number => (line.appSequence as { instanceId: number }).instanceId;
const xaddr = (lan: Lan, gateway: DiscoveryGateway, displayId: string): string => `http://${lan.gateway.ipv4}:${gateway.port}/wsd/${displayId}`;

/** One Probe from the presenter's side: display id → the XAddrs of every ProbeMatch for it (copies of one answer counted once). */
async function probeAll(t: TestContext, lan: Lan): Promise<{ answers: Map<string, string[]>; endpoints: Map<string, string>; lines: Line[] }> {
  const probe = runPeer(t, lan, 4, ['probe', '--timeout-ms', '2000']);
  await probe.done;
  const answers = new Map<string, string[]>();
  const endpoints = new Map<string, string>();
  const seen = new Set<unknown>();
  for (const line of probe.lines.filter((entry) => entry.event === 'probe-match')) {
    if (seen.has(line.messageId)) continue;
    seen.add(line.messageId);
    answers.set(scopeOf(line), [...(answers.get(scopeOf(line)) ?? []), xaddrOf(line)]);
    endpoints.set(scopeOf(line), String(line.endpoint));
  }
  return { answers, endpoints, lines: probe.lines };
}

function byeCount(metrics: string): number {
  return Number(/lanterna_wsd_udp_datagrams_total\{direction="out",kind="bye"\} (\d+)/.exec(metrics)?.[1] ?? '0');
}

const hellosFor = (listener: PeerRun, endpoint: string, at: string): Line[] => listener.lines.filter((line) => line.event === 'hello' && line.endpoint === endpoint && xaddrOf(line) === at);

test('two gateways, one Redis, one LAN: one answer per display from the gateway holding it; Bye and Hello when a kiosk moves; none when taken over; a killed gateway\'s display comes back from the other', { timeout: 150_000 }, async (t) => {
  const redis = await startRedis();
  t.after(() => redis.close());
  const lan = makeLan(t);
  const a = await farmGateway(t, lan, redis, 2);
  const b = await farmGateway(t, lan, redis, 1);
  const listener = runPeer(t, lan, 4, ['listen', '--timeout-ms', '120000']);
  await waitFor('the listener joins the group', () => listener.lines.some((line) => line.event === 'listening'), 10_000);

  const room1OnA = await a.online('room1');
  const room2OnB = await b.online('room2');
  await waitFor('Hello for room1 from A and room2 from B', () => listener.lines.some((line) => line.event === 'hello' && xaddrOf(line) === xaddr(lan, a, 'room1'))
    && listener.lines.some((line) => line.event === 'hello' && xaddrOf(line) === xaddr(lan, b, 'room2')), 10_000);
  assert.ok(!listener.lines.some((line) => line.event === 'hello' && (xaddrOf(line) === xaddr(lan, b, 'room1') || xaddrOf(line) === xaddr(lan, a, 'room2'))),
    `a gateway announced a display it does not hold: ${JSON.stringify(listener.lines)}`);

  const first = await probeAll(t, lan);
  assert.deepEqual(Object.fromEntries(first.answers), { room1: [xaddr(lan, a, 'room1')], room2: [xaddr(lan, b, 'room2')] }, JSON.stringify(first.lines));
  const room1 = first.endpoints.get('room1') ?? '';
  const room2 = first.endpoints.get('room2') ?? '';
  const room1Hello = listener.lines.find((line) => line.event === 'hello' && line.endpoint === room1);
  assert.ok(room1Hello, 'the Hello and the ProbeMatch name one endpoint');

  // The kiosk moves: its socket on A closes, then it connects to B.
  room1OnA();
  await waitFor('Bye for room1', () => listener.lines.some((line) => line.event === 'bye' && line.endpoint === room1), 10_000);
  assert.ok(byeCount(await a.metrics()) >= 1, 'the Bye came from A');
  await b.online('room1');
  await waitFor('Hello for room1 from B, same endpoint', () => hellosFor(listener, room1, xaddr(lan, b, 'room1')).length > 0, 10_000);
  const moved = hellosFor(listener, room1, xaddr(lan, b, 'room1'))[0] ?? {};
  assert.ok(instanceOf(moved) >= instanceOf(room1Hello), `AppSequence InstanceId does not go back at the move: ${instanceOf(room1Hello)} → ${instanceOf(moved)}`);

  // room2 is taken over by a socket on A while B's is still open: it never went offline, so B says no Bye.
  await a.online('room2');
  await waitFor('Hello for room2 from A, same endpoint', () => hellosFor(listener, room2, xaddr(lan, a, 'room2')).length > 0, 10_000);
  const second = await probeAll(t, lan);
  assert.deepEqual(Object.fromEntries(second.answers), { room1: [xaddr(lan, b, 'room1')], room2: [xaddr(lan, a, 'room2')] }, JSON.stringify(second.lines));
  assert.deepEqual([second.endpoints.get('room1'), second.endpoints.get('room2')], [room1, room2], 'the endpoints stay across gateways');
  assert.ok(!listener.lines.some((line) => line.event === 'bye' && line.endpoint === room2), 'no Bye for the display taken over');
  assert.equal(byeCount(await b.metrics()), 0, 'B sent no Bye at all');
  room2OnB();
  // The metadata answers through a gateway that does not hold the display, with the same endpoint.
  const metadata = await getMetadata(b, 'room2');
  assert.equal(metadata.host.endpoint, room2);
  assert.equal(metadata.device.friendlyName, 'Room two');

  // kill -9 of B, which holds room1: nothing is said; its kiosk reconnects to A and room1 is announced from there.
  b.child.kill('SIGKILL');
  await new Promise((resolve) => b.child.once('exit', resolve));
  const orphaned = await probeAll(t, lan);
  assert.deepEqual(Object.fromEntries(orphaned.answers), { room2: [xaddr(lan, a, 'room2')] }, `nobody answers for the dead gateway's display: ${JSON.stringify(orphaned.lines)}`);
  const killedAt = listener.lines.length;
  await a.online('room1');
  await waitFor('Hello for room1 from A after the kill', () => hellosFor(listener, room1, xaddr(lan, a, 'room1')).some((line) => listener.lines.indexOf(line) >= killedAt), 10_000);
  const last = await probeAll(t, lan);
  assert.deepEqual(Object.fromEntries(last.answers), { room1: [xaddr(lan, a, 'room1')], room2: [xaddr(lan, a, 'room2')] }, JSON.stringify(last.lines));
  assert.equal(last.endpoints.get('room1'), room1);
});

async function getMetadata(gateway: DiscoveryGateway, displayId: string): Promise<DeviceMetadata> {
  const get = writeWsdMessage({ kind: 'get', header: { messageId: 'urn:uuid:00000000-0000-4000-8000-000000000002', to: 'urn:uuid:whatever', replyTo: `${NS.wsa}/role/anonymous` } });
  const response = await fetch(`http://127.0.0.1:${gateway.port}/wsd/${displayId}`, { method: 'POST', headers: { 'content-type': 'application/soap+xml; charset=utf-8' }, body: get });
  assert.equal(response.status, 200);
  const read = readWsdMessage(new Uint8Array(await response.arrayBuffer()));
  assert.ok(read.ok && read.message.kind === 'get-response', JSON.stringify(read));
  return read.message.metadata;
}
