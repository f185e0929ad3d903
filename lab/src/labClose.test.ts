import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { Lab } from './lab.js';
import { isAlive } from './process/procTable.js';
import { logLineMatches } from './process/readiness.js';

test('close() finds a process that escaped its supervisor by the lab id, kills it and says so', async () => {
  const lab = await Lab.create({ name: 'escape-test' });
  // setsid -f: the sleep is re-parented to init in a new session, out of reach of process-group and parent links
  await lab.start({ component: 'escaper', command: 'sh', args: ['-c', 'setsid -f sleep 300; echo forked; sleep 300'], ready: logLineMatches(/^forked$/) });
  const deadline = Date.now() + 5000;
  while (lab.livePids().length < 3 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
  const pids = lab.livePids();
  assert.equal(pids.length, 3, 'expected sh, its sleep and the escaped sleep');
  const closing = lab.close();
  assert.equal(lab.close(), closing, 'a second close() must wait for the same cleanup');
  await assert.rejects(closing, /processes left running after close were killed: \d+ sleep 300/);
  for (const pid of pids) assert.equal(isAlive(pid), false, `pid ${pid} survived close()`);
  assert.equal(existsSync(lab.dir), false);
});
