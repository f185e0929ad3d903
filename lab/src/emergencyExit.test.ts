import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { LAB_ID_VARIABLE } from './lab.js';
import { pidsWithEnv } from './process/procTable.js';

// A test process killed before lab.close() (a runner's timeout) must not leave
// servers, sessions, test users or temp dirs behind.
test('a process killed by SIGTERM before lab.close() leaves no processes, test user or temp dir', async (t) => {
  const lab = new URL('./lab.js', import.meta.url).href;
  const script = `
    import { Lab } from ${JSON.stringify(lab)};
    const lab = await Lab.create({ name: 'emergency-test', keepLogs: false });
    const display = await lab.display({ width: 640, height: 480 });
    await lab.shadowServer({ display, auth: 'tls' });
    const xrdp = await lab.xrdp({ scene: 'reference', width: 640, height: 480 });
    process.stdout.write(JSON.stringify({ id: lab.id, dir: lab.dir, user: xrdp.username }) + '\\n');
    setInterval(() => undefined, 1000);
  `;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  t.after(() => child.kill('SIGKILL'));
  const details = await new Promise<{ id: string; dir: string; user: string }>((resolve, reject) => {
    let stdout = '';
    const timer = setTimeout(() => reject(new Error('lab not started within 40 s')), 40_000);
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
      if (stdout.includes('\n')) {
        clearTimeout(timer);
        resolve(JSON.parse(stdout.slice(0, stdout.indexOf('\n'))) as { id: string; dir: string; user: string });
      }
    });
  });
  assert.ok(pidsWithEnv(LAB_ID_VARIABLE, details.id).length >= 4);
  assert.equal(existsSync(details.dir), true);
  const ended = new Promise<NodeJS.Signals | null>((resolve) => child.once('exit', (_code, signal) => resolve(signal)));
  child.kill('SIGTERM');
  assert.equal(await Promise.race([ended, new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), 20_000))]), 'SIGTERM');
  const deadline = Date.now() + 5000;
  while (pidsWithEnv(LAB_ID_VARIABLE, details.id).length > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
  assert.deepEqual(pidsWithEnv(LAB_ID_VARIABLE, details.id), []);
  assert.equal(existsSync(details.dir), false, 'temp dir left behind');
  assert.doesNotMatch(readFileSync('/etc/passwd', 'utf8'), new RegExp(`^${details.user}:`, 'm'), 'test user left behind');
});
