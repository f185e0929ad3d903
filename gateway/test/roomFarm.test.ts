// A meeting room in a farm (issue 29): two gateways sharing Redis behind
// HAProxy, a display whose page shows several sources, two presenters asking
// through different gateways into slots 0 and 1 and a layout set through a
// third party's view; kill -9 of the gateway holding the display: each source
// comes back into its own slot through the other gateway, each presenter's
// status follows its new session, and the layout is what it was.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { startRedis, startGatewayProcess, startHaproxyProcess, startFaultyPeer, startReconnectingKiosk, waitFor, type GatewayProcess, type RedisServer } from '@lanterna/testkit';

const ADMIN = 'admin-token-farm-0123456789';
const SECRET = 'session-secret-shared-by-the-farm-0123456789';
const TOKEN = 'display-token-farm-0123456789';
const admin = { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' };

async function farm(t: TestContext, redis: RedisServer): Promise<GatewayProcess[]> {
  const gateways: GatewayProcess[] = [];
  for (let i = 0; i < 2; i += 1) {
    const gateway = await startGatewayProcess({
      broker: { store: 'redis', resumeGraceMs: 30_000, redisUrl: redis.url },
      adminToken: ADMIN, sessionSecret: SECRET,
      displays: [{ id: 'room', token: TOKEN, name: 'Room 1' }],
      certificates: { mode: 'insecure' },
      logLevel: process.env.LANTERNA_TEST_LOG ?? 'info',
    });
    t.after(() => gateway.close());
    gateways.push(gateway);
  }
  return gateways;
}

/** A presenter's request with the admin token standing in for the PIN, so it has a request (and a status) of its own. */
async function present(gateway: GatewayProcess, name: string, port: number): Promise<{ sessionId: string; stopToken: string; slot?: number }> {
  const response = await fetch(`${gateway.httpUrl}/v1/displays/room/projection`, {
    method: 'POST', headers: { ...admin, 'x-lanterna-presenter': '1' },
    body: JSON.stringify({ name, target: { host: '127.0.0.1', port } }),
  });
  assert.equal(response.status, 202, `${name}'s request`);
  return await response.json() as { sessionId: string; stopToken: string; slot?: number };
}

interface Room { layout: string; large: number; slots: { slot: number; sessionId: string; label: string; requestId?: string }[] }

async function room(gateway: GatewayProcess): Promise<Room> {
  return await (await fetch(`${gateway.httpUrl}/v1/admin/displays/room/room`, { headers: admin })).json() as Room;
}

test('kill -9 of the gateway holding a two-source display: each source comes back into its own slot through the other, and the layout stays', { timeout: 120_000 }, async (t) => {
  const redis = await startRedis();
  t.after(() => redis.close());
  const peers = [await startFaultyPeer('echo'), await startFaultyPeer('echo')];
  t.after(() => Promise.all(peers.map((peer) => peer.close())));
  const gateways = await farm(t, redis);
  const haproxy = await startHaproxyProcess({ backendPorts: gateways.map((gateway) => gateway.port), balance: 'source', checkInterval: '500ms', forwardFor: true });
  t.after(() => haproxy.close());
  const kiosk = startReconnectingKiosk(`ws://127.0.0.1:${haproxy.port}`, 'room', TOKEN, { features: ['slots'] });
  t.after(() => kiosk.close());
  await waitFor('the kiosk online', () => kiosk.connections === 1, 10_000);
  const online = (gateway: GatewayProcess): boolean => gateway.logs.some((entry) => entry.msg === 'display online');
  await waitFor('a gateway logs the display online', () => gateways.some(online), 5_000);
  const holder = gateways.find(online);
  const other = gateways.find((gateway) => gateway !== holder);
  assert.ok(holder && other);

  // One presenter through each gateway: slots 0 and 1, whichever gateway took the request.
  const ann = await present(other, 'Ann', peers[0]?.port ?? 0);
  const bob = await present(holder, 'Bob', peers[1]?.port ?? 0);
  assert.deepEqual([ann.slot, bob.slot], [0, 1]);
  const layout = await fetch(`${other.httpUrl}/v1/admin/displays/room/room`, { method: 'PATCH', headers: admin, body: JSON.stringify({ layout: 'one-large', large: 1 }) });
  assert.equal(layout.status, 200);
  const [first, second] = [await kiosk.securedSession(0), await kiosk.securedSession(1)];
  assert.deepEqual([first.slot ?? 0, second.slot], [0, 1], 'the kiosk was told each session\'s slot');
  await waitFor('both sessions relay on the holder', () => [first, second].every((session) => holder.logs.some((entry) => entry.sessionId === session.sessionId && entry.event === 'secured')), 5_000);

  await holder.kill();
  const resumed = [await kiosk.securedSession(2, 20_000), await kiosk.securedSession(3, 20_000)];
  const bySlot = new Map(resumed.map((session) => [session.slot ?? 0, session.sessionId]));
  assert.deepEqual([...bySlot.keys()].sort(), [0, 1], 'each source came back into a slot of its own');
  const after = await room(other);
  assert.deepEqual([after.layout, after.large], ['one-large', 1], 'the layout survived in Redis');
  assert.deepEqual(after.slots.map((slot) => [slot.slot, slot.label, slot.sessionId]), [[0, 'Ann', bySlot.get(0)], [1, 'Bob', bySlot.get(1)]], 'Ann in slot 0 and Bob in slot 1 again, in new sessions');

  // Each presenter's status follows its source's new session.
  for (const [presenter, slot] of [[ann, 0], [bob, 1]] as const) {
    const status = await (await fetch(`${other.httpUrl}/v1/displays/room/projection`, { headers: { 'x-lanterna-stop-token': presenter.stopToken } })).json() as { sessionId: string; request?: { state: string; slot?: number } };
    assert.deepEqual([status.sessionId, status.request?.state, status.request?.slot], [bySlot.get(slot), 'on-screen', slot]);
  }
  // And the resumed sessions relay.
  for (const session of resumed) {
    const probe = Buffer.from([0x03, 0x00, 0x00, 0x08, 0x02, 0xf0, 0x80, 7]);
    await session.queue.nextBinary();
    session.socket.send(probe);
    assert.deepEqual(await session.queue.nextBinary(), probe);
  }
});
