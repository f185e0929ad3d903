import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { coresBetween, cpuSecondsBetween, descendantsOf, sampleProcessTree } from './processTreeUsage.js';
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

// Each child burns 4 ms of its own CPU per byte it reads, then waits again:
// less than one clock tick each, as websockify's per-connection children in
// a short hold. Their sum must still show.
const SMALL_BURNERS = `
import os, sys, time
CHILDREN = 50
reader, writer = os.pipe()
for _ in range(CHILDREN):
    if os.fork() == 0:
        os.close(writer)
        while os.read(reader, 1):
            start = time.process_time()
            while time.process_time() - start < 0.004:
                pass
        os._exit(0)
print("ready", flush=True)
for line in sys.stdin:
    os.write(writer, b"x" * CHILDREN)
`;

void test('fifty processes that each use less than a clock tick add up to what they used', async (t) => {
  const parent = spawn('python3', ['-c', SMALL_BURNERS], { stdio: ['pipe', 'pipe', 'ignore'], detached: true });
  t.after(() => { process.kill(-(parent.pid ?? 0), 'SIGKILL'); });
  const pid = parent.pid ?? 0;
  await new Promise<void>((resolve) => { parent.stdout.once('data', () => { resolve(); }); });
  await waitFor(() => descendantsOf([pid]).length >= 51, 10_000);
  const before = sampleProcessTree([pid], false);
  parent.stdin.write('go\n');
  // every child has burnt its 4 ms once its CPU shows; wait for that, however loaded the machine
  await waitFor(() => cpuSecondsBetween(before, sampleProcessTree([pid], false)) >= 0.19, 10_000).catch(() => undefined);
  const used = cpuSecondsBetween(before, sampleProcessTree([pid], false));
  assert.ok(used >= 0.19 && used < 0.6, `50 × 4 ms measured as ${used} s`);
});
