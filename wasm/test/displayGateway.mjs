// A test gateway with one display online over its control socket, for the
// tests that join a presenter's wasm RDP server to a display's wasm client
// through it (presenterLeg, presenterTouch): each `project` the display is
// sent is queued for nextProject.
import assert from 'node:assert/strict';
import { connectControl, startTestGateway } from '@lanterna/testkit';

/**
 * Starts the gateway (with `overrides`) and the display's control socket.
 * @returns {Promise<{ gateway: import('@lanterna/testkit').TestGateway, control: { close(): void }, nextProject(deadlineMs?: number): Promise<Record<string, unknown>>, close(): Promise<void> }>}
 */
export async function startDisplayGateway(displayId, token, overrides = {}) {
  const gateway = await startTestGateway({ displays: [{ id: displayId, token }], ...overrides });
  // the pass a file runs in is the engine it tests (scripts/run-tests.mjs sets it for the second pass)
  const wanted = process.env.LANTERNA_TEST_RELAY_ENGINE;
  if (wanted) assert.equal(gateway.relayEngine, wanted);
  const control = await connectControl(gateway.url, displayId, token, undefined, { features: ['room'] });
  /** `project` messages the display was sent and the test has not read yet. */
  const projects = [];
  const waiters = [];
  control.socket.on('message', (data, isBinary) => {
    if (isBinary) return;
    const message = JSON.parse(data.toString('utf8'));
    if (message.type !== 'project') return;
    const waiter = waiters.shift();
    if (waiter) waiter(message);
    else projects.push(message);
  });
  return {
    gateway,
    control,
    nextProject(deadlineMs = 5000) {
      const queued = projects.shift();
      if (queued) return Promise.resolve(queued);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('no project message')), deadlineMs);
        waiters.push((message) => { clearTimeout(timer); resolve(message); });
      });
    },
    async close() {
      control.close();
      await gateway.close();
    },
  };
}
