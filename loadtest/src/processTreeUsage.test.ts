import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { coresBetween, descendantsOf, sampleProcessTree } from './processTreeUsage.js';
import { waitFor } from './httpReadiness.js';

void test('a busy child shows up as about one core of its parent tree', async (t) => {
  // a shell that forks a busy node loop: the tree is sh -> node
  const child = spawn('sh', ['-c', `${process.execPath} -e "const end = Date.now() + 5000; while (Date.now() < end);" ; true`], { stdio: 'ignore', detached: true });
  // The whole group: the busy grandchild would outlive its shell by seconds.
  t.after(() => { process.kill(-(child.pid ?? 0), 'SIGKILL'); });
  const pid = child.pid ?? 0;
  await waitFor(() => descendantsOf([pid]).length >= 2, 10_000);
  const before = sampleProcessTree([pid]);
  // Measure over the time the tree takes to burn 0.8 s of CPU, however long a loaded machine makes that.
  await waitFor(() => sampleProcessTree([pid], false).cpuSeconds - before.cpuSeconds >= 0.8, 10_000);
  const after = sampleProcessTree([pid]);
  const cores = coresBetween(before, after);
  assert.ok(cores > 0.3 && cores < 1.3, `busy loop measured at ${cores} cores`);
  assert.ok(after.memoryBytes > 1_000_000, `tree pss ${after.memoryBytes}`);
});
