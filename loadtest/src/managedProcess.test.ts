import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { ManagedProcess, NICENESS_ENV } from './managedProcess.js';

test('a child started with the run\'s niceness carries it in its own autogroup too, so it holds between sessions', async () => {
  const before = process.env[NICENESS_ENV];
  process.env[NICENESS_ENV] = '7';
  const child = new ManagedProcess('sleeper', { command: 'sleep', args: ['30'] });
  try {
    const autogroup = readFileSync(`/proc/${child.pid}/autogroup`, 'utf8');
    assert.match(autogroup, /nice 7\n?$/, `the child's autogroup: ${autogroup}`);
    assert.doesNotMatch(readFileSync('/proc/self/autogroup', 'utf8'), /nice 7\n?$/, 'the run\'s own group is left as it was');
    // `nice` sets the task's own niceness and then becomes the command: read it once that happened
    const deadline = Date.now() + 5000;
    let stat = readFileSync(`/proc/${child.pid}/stat`, 'utf8');
    while (!stat.includes('(sleep)') && Date.now() < deadline) {
      await new Promise((resolve) => setImmediate(resolve));
      stat = readFileSync(`/proc/${child.pid}/stat`, 'utf8');
    }
    const nice = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
    assert.equal(nice, 7, 'and the task itself runs at that niceness');
  } finally {
    process.env[NICENESS_ENV] = before ?? '';
    await child.stop(1000);
  }
});

test('a child started with batch scheduling runs under SCHED_BATCH, pinned as asked', async () => {
  const child = new ManagedProcess('sleeper', { command: 'sleep', args: ['30'], cpus: '0', batchScheduling: true });
  try {
    // taskset and chrt each become the next command: read the policy once `sleep` runs
    const deadline = Date.now() + 5000;
    let stat = readFileSync(`/proc/${child.pid}/stat`, 'utf8');
    while (!stat.includes('(sleep)') && Date.now() < deadline) {
      await new Promise((resolve) => setImmediate(resolve));
      stat = readFileSync(`/proc/${child.pid}/stat`, 'utf8');
    }
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const SCHED_BATCH = 3;
    assert.equal(Number(fields[38]), SCHED_BATCH, 'the policy field of /proc/<pid>/stat');
    assert.match(readFileSync(`/proc/${child.pid}/status`, 'utf8'), /Cpus_allowed_list:\s+0\n/);
  } finally {
    await child.stop(1000);
  }
});
