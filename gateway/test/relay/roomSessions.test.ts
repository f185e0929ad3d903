// Several sources on one display relay side by side (issue 29), through the
// relay engine under test (the suite runs this file against both): four
// sessions of one display, each on its own data socket to its own server,
// take slots 0..3; the one whose server sends garbage after TLS ends alone
// with its error (its slot is freed in the layout and taken by the next
// presenter) while the other three keep relaying.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildConnectionRequest, PROTOCOL } from '@lanterna/protocol';
import { openControlInbox, openData, startFaultyPeer, startTestGateway, type FaultyPeer, type MessageQueue } from '@lanterna/testkit';
import type { WebSocket } from 'ws';

const TOKEN = 'display-token-room-sessions-0123';
const connectionRequest = buildConnectionRequest({ requestedProtocols: PROTOCOL.SSL, cookie: 'test' });

/** A TPKT-framed X.224 data PDU around `payload`. */
function tpkt(payload: number[]): Buffer {
  const pdu = Buffer.from([0x03, 0x00, 0x00, 0x00, 0x02, 0xf0, 0x80, ...payload]);
  pdu.writeUInt16BE(pdu.length, 2);
  return pdu;
}

test('four sessions of one display relay at once, one per slot; a source that ends with an error frees its slot and the others go on', { timeout: 60_000 }, async (t) => {
  const peers: FaultyPeer[] = [];
  t.after(() => Promise.all(peers.map((peer) => peer.close())));
  for (const behaviour of ['echo', 'garbage-after-tls', 'echo', 'echo', 'echo'] as const) peers.push(await startFaultyPeer(behaviour));
  const gateway = await startTestGateway({ displays: [{ id: 'room', token: TOKEN, name: 'Room' }], certificates: { mode: 'insecure' } });
  t.after(() => gateway.close());
  const kiosk = await openControlInbox(gateway.url, 'room', TOKEN, { features: ['slots'] });
  t.after(() => kiosk.close());
  await kiosk.take('welcome');

  const project = async (port: number, name: string): Promise<{ slot: number; socket: WebSocket; queue: MessageQueue; sessionId: string }> => {
    const response = await fetch(`${gateway.httpUrl}/v1/admin/sessions`, {
      method: 'POST', headers: { authorization: `Bearer ${gateway.adminToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ displayId: 'room', target: { host: '127.0.0.1', port, name } }),
    });
    assert.equal(response.status, 202, await response.clone().text());
    const message = await kiosk.take('project');
    const data = await openData(gateway.url, String(message.sessionId), String(message.sessionToken));
    return { slot: Number(message.slot), sessionId: String(message.sessionId), ...data };
  };
  const sessions = [];
  for (const [index, peer] of peers.slice(0, 4).entries()) sessions.push(await project(peer.port, `source ${String(index)}`));
  assert.deepEqual(sessions.map((session) => session.slot), [0, 1, 2, 3]);
  // the servers are reached once all four hold their slots: the faulty one's end cannot free its slot before the fourth is placed
  for (const session of sessions) session.socket.send(connectionRequest);
  const [first, faulty, third, fourth] = sessions;
  assert.ok(first && faulty && third && fourth);
  const healthy = [first, third, fourth];
  for (const session of healthy) {
    assert.equal((await session.queue.nextText('secured')).protocol, 'ssl');
    await session.queue.nextBinary(); // the Connection Confirm
  }
  // The faulty server closes after TLS: that session ends, alone.
  const closed = await faulty.queue.closed();
  assert.equal(closed.error?.code, 'server-error', "the faulty source's session ends with its error");
  let layout = await kiosk.take('layout');
  while ((layout.slots as { slot: number }[]).some((slot) => slot.slot === 1) || (layout.slots as unknown[]).length !== 3) layout = await kiosk.take('layout', 10_000);
  assert.deepEqual((layout.slots as { slot: number }[]).map((slot) => slot.slot), [0, 2, 3], 'slot 1 is free again');
  for (const [index, session] of healthy.entries()) {
    const probe = tpkt([index, 9, 8, 7]);
    session.socket.send(probe);
    assert.deepEqual(await session.queue.nextBinary(), probe, `source in slot ${String(session.slot)} keeps relaying`);
  }
  // The next source takes the freed slot, and relays too.
  const next = await project(peers[4]?.port ?? 0, 'source 4');
  next.socket.send(connectionRequest);
  assert.equal(next.slot, 1);
  assert.equal((await next.queue.nextText('secured')).protocol, 'ssl');
  await next.queue.nextBinary();
  const probe = tpkt([4, 4, 4]);
  next.socket.send(probe);
  assert.deepEqual(await next.queue.nextBinary(), probe);
  for (const session of [...healthy, next]) session.socket.close();
});
