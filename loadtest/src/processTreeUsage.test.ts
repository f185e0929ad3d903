import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { coresBetween, descendantsOf, sampleProcessTree } from './processTreeUsage.js';

void test('a busy child shows up as about one core of its parent tree', async (t) => {
  // a shell that forks a busy node loop: the tree is sh -> node
  const child = spawn('sh', ['-c', `${process.execPath} -e "const end = Date.now() + 5000; while (Date.now() < end);" ; true`], { stdio: 'ignore' });
  t.after(() => { child.kill('SIGKILL'); });
  await new Promise((resolve) => setTimeout(resolve, 300));
  const pid = child.pid ?? 0;
  assert.ok(descendantsOf([pid]).length >= 2, 'the forked node process is a descendant');
  const before = sampleProcessTree([pid]);
  await new Promise((resolve) => setTimeout(resolve, 1000));
  const after = sampleProcessTree([pid]);
  const cores = coresBetween(before, after);
  assert.ok(cores > 0.5 && cores < 1.3, `busy loop measured at ${cores} cores`);
  assert.ok(after.memoryBytes > 1_000_000, `tree pss ${after.memoryBytes}`);
});
