import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { getPriority, tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { ManagedProcess, NICENESS_ENV, OUTPUT_DIR_ENV } from './managedProcess.js';

/**
 * The fields of /proc/<pid>/stat after the command's name, once the wrappers
 * (nice, taskset, chrt) have each set their part and become `command`.
 */
async function statOnceRunning(pid: number, command: string): Promise<string[]> {
  const deadline = Date.now() + 5000;
  let stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  while (!stat.includes(`(${command})`) && Date.now() < deadline) {
    await new Promise((resolve) => setImmediate(resolve));
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  }
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

test('a child started with the run\'s niceness carries it in its own autogroup too, so it holds between sessions', async () => {
  const before = process.env[NICENESS_ENV];
  process.env[NICENESS_ENV] = '7';
  const child = new ManagedProcess('sleeper', { command: 'sleep', args: ['30'] });
  try {
    const autogroup = readFileSync(`/proc/${child.pid}/autogroup`, 'utf8');
    assert.match(autogroup, /nice 7\n?$/, `the child's autogroup: ${autogroup}`);
    assert.doesNotMatch(readFileSync('/proc/self/autogroup', 'utf8'), /nice 7\n?$/, 'the run\'s own group is left as it was');
    // `nice -n 7` adds to the niceness it starts from (capped at 19)
    const nice = Number((await statOnceRunning(child.pid, 'sleep'))[16]);
    assert.equal(nice, Math.min(19, getPriority() + 7), 'and the task itself runs at that niceness');
  } finally {
    process.env[NICENESS_ENV] = before ?? '';
    await child.stop(1000);
  }
});

test('with an output folder set, a child\'s whole output is kept there, not only the tail', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'lanterna-output-'));
  const before = process.env[OUTPUT_DIR_ENV];
  process.env[OUTPUT_DIR_ENV] = dir;
  try {
    const child = new ManagedProcess('counter', { command: 'seq', args: ['1', '100'] });
    await once(child.child, 'close');
    const lines = readFileSync(join(dir, `counter-${child.pid}.log`), 'utf8').trimEnd().split('\n');
    assert.equal(lines.length, 100);
    assert.equal(lines[99], '100');
    assert.equal(child.recentOutput().split('\n').length, 40, 'the kept tail stays 40 lines');
  } finally {
    process.env[OUTPUT_DIR_ENV] = before ?? '';
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a child started with batch scheduling runs under SCHED_BATCH, pinned as asked', async () => {
  const child = new ManagedProcess('sleeper', { command: 'sleep', args: ['30'], cpus: '0', batchScheduling: true });
  try {
    const fields = await statOnceRunning(child.pid, 'sleep');
    const SCHED_BATCH = 3;
    assert.equal(Number(fields[38]), SCHED_BATCH, 'the policy field of /proc/<pid>/stat');
    assert.match(readFileSync(`/proc/${child.pid}/status`, 'utf8'), /Cpus_allowed_list:\s+0\n/);
  } finally {
    await child.stop(1000);
  }
});
