import type { Worker } from 'node:cluster';
import type { Serializable } from 'node:child_process';

/**
 * A message from the primary to a worker that may be dying. A worker killed
 * with SIGKILL still reads as connected until the primary has heard its
 * channel close, and a send in that gap fails with EPIPE; without a callback
 * Node raises that as an 'error' event on the Worker, which nothing handles,
 * and the primary ends, taking every other worker with it. The death itself
 * is cluster's 'exit' to handle; here it only means the message is dropped.
 */
export function sendToWorker(worker: Worker | undefined, message: Serializable): void {
  if (worker?.isConnected() !== true) return;
  worker.send(message, undefined, () => undefined);
}

/** Every live worker. */
export function sendToEveryWorker(workers: NodeJS.Dict<Worker> | undefined, message: Serializable): void {
  for (const worker of Object.values(workers ?? {})) sendToWorker(worker, message);
}
