// The cluster primary's side of the workers' broker store: one store, shared
// by every worker through IPC (see ipcBrokerStore.ts). Requests are answered
// in arrival order, so two workers claiming one session are decided here,
// once. The primary also notes what each worker holds (workerHoldings.ts):
// when a worker dies without a word, its sessions are ended and its displays
// go offline here, and every live worker hears `session-ended`, so a display
// whose control socket lives on projects again (signage) instead of waiting
// forever for a session that died with the worker.
import cluster, { type Worker } from 'node:cluster';
import type { BrokerStore } from '../broker/brokerStore.js';
import { isStoreRequest, type StoreRequest, type StoreReply } from './ipcBrokerStore.js';
import { WorkerHoldings } from './workerHoldings.js';
import { publishFromPrimary } from './gatewayBus.js';
import { sendToWorker } from './sendToWorker.js';

/** Answers one request from `store`; `reply` carries the answer back to the worker that asked. */
export function answerStoreRequest(store: BrokerStore, message: StoreRequest, reply: (answer: StoreReply) => void, onAnswered?: (value: unknown) => void): void {
  const { id, op, args } = message.lanternaStore;
  const call = (store[op] as (this: BrokerStore, ...values: unknown[]) => Promise<unknown>).bind(store);
  call(...args).then(
    (value) => { onAnswered?.(value); reply({ lanternaStoreReply: { id, ok: true, value } }); },
    (error: unknown) => reply({ lanternaStoreReply: { id, ok: false, error: error instanceof Error ? error.message : String(error) } }),
  );
}

/** What the primary did for a worker that died. */
export interface WorkerLoss { workerPid: number | undefined; sessionsEnded: number; displaysOffline: number }

/**
 * Ends what a dead worker held: its sessions (reason `worker-lost`, and a
 * `session-ended` to the live workers) and its displays' presence.
 */
export async function releaseWorker(store: BrokerStore, holdings: WorkerHoldings, workerId: number, publish: typeof publishFromPrimary, now = Date.now): Promise<Omit<WorkerLoss, 'workerPid'>> {
  const held = holdings.release(workerId);
  let sessionsEnded = 0;
  for (const sessionId of held.sessions) {
    const record = await store.getSession(sessionId);
    if (!record || record.state === 'ended') continue;
    await store.updateSession(sessionId, { state: 'ended', endedAt: now(), endReason: 'worker-lost' });
    // Its booking too, at once: the display is free for its resume or next projection, not in 3 s when the lease lapses.
    await store.releaseDisplay(record.displayId, sessionId);
    publish({ kind: 'session-ended', displayId: record.displayId, sessionId });
    sessionsEnded += 1;
  }
  let displaysOffline = 0;
  for (const { displayId, owner } of held.presence) {
    if (await store.clearPresence(displayId, owner)) displaysOffline += 1;
  }
  return { sessionsEnded, displaysOffline };
}

/** Runs in the primary: serves every worker's store requests from `store`, and cleans up after workers that die. */
export function serveBrokerStoreInPrimary(store: BrokerStore, onWorkerLost?: (loss: WorkerLoss) => void): void {
  const holdings = new WorkerHoldings();
  cluster.on('message', (worker: Worker, message: unknown) => {
    if (!isStoreRequest(message)) return;
    answerStoreRequest(store, message, (answer) => {
      // A worker that died meanwhile needs no answer.
      sendToWorker(worker, answer);
    }, (value) => holdings.noteAnswered(worker.id, message.lanternaStore, value));
  });
  cluster.on('exit', (worker: Worker) => {
    releaseWorker(store, holdings, worker.id, publishFromPrimary)
      .then((released) => onWorkerLost?.({ workerPid: worker.process.pid, ...released }))
      .catch(() => { /* the memory store does not fail */ });
  });
}
