// A worker killed with SIGKILL, and the primary sending to it before it has
// heard the death: the primary must live on. Sent with worker.send alone, the
// EPIPE surfaces as an unhandled 'error' and ends this process (and the test).
import cluster from 'node:cluster';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { sendToEveryWorker, sendToWorker } from './sendToWorker.js';

const blockFor = (ms: number): void => { Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms); };

if (cluster.isWorker) {
  setInterval(() => undefined, 1000);
} else {
  void test('messages to a worker killed with SIGKILL are dropped, and the primary goes on', async () => {
    cluster.setupPrimary({ exec: fileURLToPath(import.meta.url), silent: true });
    const worker = cluster.fork();
    await new Promise((resolve) => worker.once('online', resolve));
    const exited = new Promise((resolve) => worker.once('exit', (_code, signal) => resolve(signal)));
    worker.process.kill('SIGKILL');
    // The event loop does not turn: the primary cannot have heard the death yet.
    blockFor(200);
    assert.equal(worker.isConnected(), true, 'the send below must happen while the worker still reads as connected');
    for (let index = 0; index < 100; index += 1) {
      sendToWorker(worker, { index, padding: 'x'.repeat(4096) });
      sendToEveryWorker(cluster.workers, { index });
    }
    assert.equal(await exited, 'SIGKILL');
    // a turn for any late 'error' to be raised
    await new Promise((resolve) => setTimeout(resolve, 100));
    sendToWorker(worker, { after: 'exit' });
  });
}
