// Workers' stores over IPC to one primary store, with an in-process channel
// standing in for process.send: one claim wins across workers, and a primary
// that does not answer fails the operation at its deadline.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { IpcBrokerStore, isStoreRequest, type IpcChannel } from './ipcBrokerStore.js';
import { answerStoreRequest } from './brokerStoreHost.js';
import { MemoryBrokerStore } from '../broker/memoryBrokerStore.js';

/** A worker's channel to a primary that serves `store` (answers arrive asynchronously, as over IPC). */
function workerChannel(store: MemoryBrokerStore | undefined): IpcChannel {
  const toWorker = new EventEmitter();
  return {
    send: (message) => {
      const copy: unknown = JSON.parse(JSON.stringify(message));
      if (store && isStoreRequest(copy)) answerStoreRequest(store, copy, (answer) => setImmediate(() => toWorker.emit('message', JSON.parse(JSON.stringify(answer)))));
    },
    onMessage: (handler) => toWorker.on('message', handler),
  };
}

test('two workers claiming one session: the primary lets exactly one through', async () => {
  const primary = new MemoryBrokerStore();
  const a = new IpcBrokerStore(workerChannel(primary));
  const b = new IpcBrokerStore(workerChannel(primary));
  const until = Date.now() + 60_000;
  const claims = await Promise.all([a, b, a, b, b, a].map((worker) => worker.claimSession('s_1', until)));
  assert.deepEqual(claims.filter(Boolean).length, 1);
  assert.equal(claims[0], true, 'the first request to reach the primary wins');
});

test('records and presence round-trip through the primary', async () => {
  const primary = new MemoryBrokerStore();
  const worker = new IpcBrokerStore(workerChannel(primary));
  const now = Date.now();
  await worker.putSession({ sessionId: 's_2', displayId: 'room', target: { host: '10.0.0.1', port: 3389 }, state: 'minted', mintedAt: now, expiresAt: now + 60_000 });
  assert.equal(await worker.getSession('nope'), undefined);
  assert.equal((await worker.updateSession('s_2', { state: 'active', securedAt: now }))?.state, 'active');
  assert.deepEqual((await primary.listSessions()).map((s) => s.state), ['active']);
  await worker.setPresence({ displayId: 'room', owner: 'o', since: now });
  assert.equal(await worker.clearPresence('room', 'other'), false);
  assert.deepEqual(await worker.listPresence(), [{ displayId: 'room', owner: 'o', since: now }]);
});

test('a primary that does not answer fails the request at its deadline', async () => {
  const worker = new IpcBrokerStore(workerChannel(undefined), 100);
  const started = Date.now();
  await assert.rejects(worker.claimSession('s_3', Date.now() + 60_000), /did not answer claimSession within 100 ms/);
  assert.ok(Date.now() - started < 2000);
});

test('the primary rejects messages that are not store requests', () => {
  assert.equal(isStoreRequest({ lanternaStore: { id: 1, op: 'constructor', args: [] } }), false);
  assert.equal(isStoreRequest({ lanternaStore: { id: 1, op: 'claimSession', args: 'x' } }), false);
  assert.equal(isStoreRequest({ lanternaBus: {} }), false);
  assert.equal(isStoreRequest({ lanternaStore: { id: 1, op: 'claimSession', args: ['s', 1] } }), true);
});
