// The cluster primary's side of the workers' broker store: one store, shared
// by every worker through IPC (see ipcBrokerStore.ts). Requests are answered
// in arrival order, so two workers claiming one session are decided here,
// once.
import cluster from 'node:cluster';
import type { BrokerStore } from '../broker/brokerStore.js';
import { isStoreRequest, type StoreRequest, type StoreReply } from './ipcBrokerStore.js';

/** Answers one request from `store`; `reply` carries the answer back to the worker that asked. */
export function answerStoreRequest(store: BrokerStore, message: StoreRequest, reply: (answer: StoreReply) => void): void {
  const { id, op, args } = message.lanternaStore;
  const call = (store[op] as (this: BrokerStore, ...values: unknown[]) => Promise<unknown>).bind(store);
  call(...args).then(
    (value) => reply({ lanternaStoreReply: { id, ok: true, value } }),
    (error: unknown) => reply({ lanternaStoreReply: { id, ok: false, error: error instanceof Error ? error.message : String(error) } }),
  );
}

/** Runs in the primary: serves every worker's store requests from `store`. */
export function serveBrokerStoreInPrimary(store: BrokerStore): void {
  cluster.on('message', (worker, message: unknown) => {
    if (!isStoreRequest(message)) return;
    answerStoreRequest(store, message, (answer) => {
      // A worker that died meanwhile needs no answer.
      if (worker.isConnected()) worker.send(answer);
    });
  });
}
