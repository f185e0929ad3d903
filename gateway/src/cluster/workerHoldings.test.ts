// A worker that dies without a word: the primary ends the sessions it held
// and clears its displays, from what it saw each worker ask of the store.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { IpcBrokerStore, isStoreRequest, type IpcChannel } from './ipcBrokerStore.js';
import { answerStoreRequest, releaseWorker } from './brokerStoreHost.js';
import { WorkerHoldings } from './workerHoldings.js';
import { MemoryBrokerStore } from '../broker/memoryBrokerStore.js';
import type { BrokerEvent } from '../broker/brokerEvents.js';

/** Worker `workerId`'s store, served by the primary's `store` with `holdings` noting each answer (as serveBrokerStoreInPrimary does). */
function workerStore(store: MemoryBrokerStore, holdings: WorkerHoldings, workerId: number): IpcBrokerStore {
  const toWorker = new EventEmitter();
  const channel: IpcChannel = {
    send: (message) => {
      const copy: unknown = JSON.parse(JSON.stringify(message));
      if (!isStoreRequest(copy)) return;
      answerStoreRequest(store, copy, (answer) => setImmediate(() => toWorker.emit('message', JSON.parse(JSON.stringify(answer)))),
        (value) => holdings.noteAnswered(workerId, copy.lanternaStore, value));
    },
    onMessage: (handler) => toWorker.on('message', handler),
  };
  return new IpcBrokerStore(channel);
}

function minted(sessionId: string, displayId: string): Parameters<MemoryBrokerStore['putSession']>[0] {
  const now = Date.now();
  return { sessionId, displayId, target: { host: '127.0.0.1', port: 3389 }, state: 'minted', mintedAt: now, expiresAt: now + 60_000 };
}

void test('a dead worker\'s live sessions end as worker-lost and the live workers hear of each; its displays go offline', async () => {
  const store = new MemoryBrokerStore();
  const holdings = new WorkerHoldings();
  const one = workerStore(store, holdings, 1);
  const two = workerStore(store, holdings, 2);
  const until = Date.now() + 60_000;
  for (const [id, display] of [['s_relaying', 'lobby'], ['s_handshake', 'hall'], ['s_done', 'lobby'], ['s_other', 'room']] as const) await store.putSession(minted(id, display));
  assert.equal(await one.claimSession('s_relaying', until), true);
  await one.updateSession('s_relaying', { state: 'active', securedAt: Date.now() });
  assert.equal(await one.claimSession('s_handshake', until), true);
  assert.equal(await one.claimSession('s_done', until), true);
  await one.updateSession('s_done', { state: 'ended', endedAt: Date.now(), endReason: 'client-closed' });
  assert.equal(await two.claimSession('s_other', until), true);
  assert.equal(await two.claimSession('s_relaying', until), false, 'a refused claim holds nothing');
  await one.setPresence({ displayId: 'lobby', owner: 'o1', since: 1 });
  await one.setPresence({ displayId: 'moved', owner: 'o2', since: 1 });
  await one.setPresence({ displayId: 'left', owner: 'o3', since: 1 });
  await one.clearPresence('left', 'o3');
  // the display reconnected to worker 2 before worker 1 died: worker 2's record stays
  await two.setPresence({ displayId: 'moved', owner: 'o4', since: 2 });

  const published: BrokerEvent[] = [];
  const released = await releaseWorker(store, holdings, 1, (event) => published.push(event));

  assert.deepEqual(released, { sessionsEnded: 2, displaysOffline: 1 });
  assert.deepEqual(published.map((event) => event.kind === 'session-ended' && `${event.displayId}/${event.sessionId}`).sort(), ['hall/s_handshake', 'lobby/s_relaying']);
  assert.equal((await store.getSession('s_relaying'))?.endReason, 'worker-lost');
  assert.equal((await store.getSession('s_handshake'))?.state, 'ended');
  assert.equal((await store.getSession('s_done'))?.endReason, 'client-closed', 'a session that ended itself keeps its reason');
  assert.equal((await store.getSession('s_other'))?.state, 'claimed', 'the live worker\'s session is untouched');
  assert.deepEqual((await store.listPresence()).map((presence) => `${presence.displayId}/${presence.owner}`), ['moved/o4']);
  assert.deepEqual(await releaseWorker(store, holdings, 1, (event) => published.push(event)), { sessionsEnded: 0, displaysOffline: 0 }, 'released once');
});
