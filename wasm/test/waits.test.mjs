// WinPR waits in the wasm build (patch 0003): a wait must sleep for real (no
// CPU while blocked), honour its timeout, and wake within a millisecond of
// the event being set from another thread.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';

import { loadTestLanternaRdp } from './testBuild.mjs';

const WAIT_OBJECT_0 = 0;
const WAIT_TIMEOUT = 258;
let rdp;

before(async () => {
  rdp = await loadTestLanternaRdp();
});
after(() => rdp.close());

test('a wait wakes within 1 ms of its event being set on another thread', async () => {
  const trips = [];
  for (let i = 0; i < 7; i++) {
    const probe = await rdp.probeWait(20, 5000);
    assert.equal(probe.result, WAIT_OBJECT_0);
    assert.ok(probe.waitedMs >= 19, `woke before the event was set (${probe.waitedMs} ms)`);
    trips.push(probe.roundTripMs);
  }
  // a round trip is two wakes (waiter, then the signaller on the answer)
  trips.sort((a, b) => a - b);
  const median = trips[Math.floor(trips.length / 2)];
  assert.ok(median / 2 < 1, `median wake ${median / 2} ms (round trips ${trips.join(', ')} ms)`);
});

test('a wait with nothing to wake it sleeps until its timeout without burning CPU', async () => {
  const before = process.cpuUsage();
  const started = performance.now();
  const probe = await rdp.probeWait(-1, 400);
  const elapsed = performance.now() - started;
  const used = process.cpuUsage(before);
  const cpuMs = (used.user + used.system) / 1000;
  assert.equal(probe.result, WAIT_TIMEOUT);
  assert.ok(probe.waitedMs >= 399 && probe.waitedMs < 600, `waited ${probe.waitedMs} ms for a 400 ms timeout`);
  // a poll() loop would use the whole 400 ms of a core; a real sleep, almost none
  assert.ok(cpuMs < 0.25 * elapsed, `used ${cpuMs.toFixed(1)} ms of CPU in ${elapsed.toFixed(0)} ms`);
});
