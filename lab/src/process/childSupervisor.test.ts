import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ComponentStartError } from './componentStartError.js';
import { LAB_TAG_VARIABLE, runOnce, startChild } from './childSupervisor.js';
import { allocateFreePort } from './freePort.js';
import { isAlive, liveFamily } from './procTable.js';
import { customProbe, logLineMatches, portOpen, type ReadinessCheck } from './readiness.js';

function tempDir(t: { after(fn: () => void): void }): string {
  const dir = mkdtempSync(join(tmpdir(), 'lanterna-supervisor-test-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

test('a child becomes ready on a log line, logs to its file, and stop() ends its whole family', async (t) => {
  const dir = tempDir(t);
  const logPath = join(dir, 'child.log');
  // a grandchild in the group, and one that leaves the group with setsid
  const child = await startChild({
    component: 'family',
    command: 'sh',
    args: ['-c', 'sleep 300 & setsid sleep 301 & echo "ready now"; wait'],
    logPath,
    ready: logLineMatches(/^ready now$/),
    readyTimeoutMs: 5000,
  });
  t.after(() => child.stop());
  // The shell forks its sleeps after printing: wait for them, not for a fixed time.
  const forkedBy = Date.now() + 5000;
  while (liveFamily(child.pid).length < 3 && Date.now() < forkedBy) await new Promise((resolve) => setTimeout(resolve, 20));
  const family = liveFamily(child.pid);
  assert.ok(family.length >= 3, `expected sh and two sleeps, found ${family.join(',')}`);
  assert.match(readFileSync(logPath, 'utf8'), /ready now/);
  await child.stop();
  for (const pid of family) assert.equal(isAlive(pid), false, `pid ${pid} survived stop()`);
  assert.equal(child.hasExited(), true);
});

test('a child that ignores SIGTERM is killed after the grace period', async (t) => {
  const dir = tempDir(t);
  const child = await startChild({
    component: 'stubborn',
    command: 'sh',
    args: ['-c', 'trap "" TERM; echo up; while :; do sleep 0.1; done'],
    logPath: join(dir, 'stubborn.log'),
    ready: logLineMatches(/^up$/),
    stopGraceMs: 300,
  });
  t.after(() => child.stop());
  const started = Date.now();
  await child.stop();
  assert.equal(isAlive(child.pid), false);
  assert.equal(child.exitSignal, 'SIGKILL');
  assert.ok(Date.now() - started < 3000, 'stop took too long');
});

test('children inherit LANTERNA_LAB_TAG', async (t) => {
  const dir = tempDir(t);
  const previous = process.env[LAB_TAG_VARIABLE];
  process.env[LAB_TAG_VARIABLE] = `supervisor-test-${process.pid}`;
  t.after(() => {
    if (previous === undefined) Reflect.deleteProperty(process.env, LAB_TAG_VARIABLE);
    else process.env[LAB_TAG_VARIABLE] = previous;
  });
  const logPath = join(dir, 'env.log');
  // even when the caller tries to remove it
  await runOnce({ component: 'env', command: 'sh', args: ['-c', `echo "tag=$${LAB_TAG_VARIABLE}"`], env: { [LAB_TAG_VARIABLE]: undefined }, logPath });
  assert.match(readFileSync(logPath, 'utf8'), new RegExp(`tag=supervisor-test-${process.pid}`));
});

/** Starts `sh -c script` as `component`, which must fail: the ComponentStartError it fails with, and how long that took. */
async function failedStart(dir: string, component: string, script: string, ready: ReadinessCheck, readyTimeoutMs: number): Promise<{ error: ComponentStartError; elapsedMs: number }> {
  const started = Date.now();
  try {
    await startChild({ component, command: 'sh', args: ['-c', script], logPath: join(dir, `${component}.log`), ready, readyTimeoutMs });
  } catch (error) {
    assert.ok(error instanceof ComponentStartError, `not a ComponentStartError: ${String(error)}`);
    return { error, elapsedMs: Date.now() - started };
  }
  return assert.fail(`${component} started`);
}

test('a child that exits before it is ready fails at once with its name, command and log', async (t) => {
  const { error, elapsedMs } = await failedStart(tempDir(t), 'doomed-server', 'echo "fatal: config broken" >&2; exit 3', portOpen('127.0.0.1', 1), 10_000);
  assert.equal(error.failure, 'exited');
  assert.match(error.message, /doomed-server failed to start/);
  assert.match(error.message, /exited with code 3/);
  assert.match(error.message, /command: sh -c/);
  assert.match(error.message, /fatal: config broken/);
  assert.ok(elapsedMs < 5000, 'waited for the deadline although the child had exited');
});

test('a child that never gets ready fails at its deadline and is stopped', async (t) => {
  const { error, elapsedMs: elapsed } = await failedStart(tempDir(t), 'silent', 'echo "pid $$ waiting forever"; exec sleep 300', customProbe('never', () => Promise.resolve(false)), 700);
  assert.equal(error.failure, 'deadline');
  assert.match(error.message, /silent failed to start \(not ready within 700 ms; waited for: never\)/);
  assert.match(error.message, /waiting forever/);
  const pid = Number(/pid (\d+)/.exec(error.logTail)?.[1] ?? 0);
  assert.ok(elapsed >= 700 && elapsed < 5000, `deadline not kept: ${elapsed} ms`);
  assert.ok(pid > 0, 'child wrote no pid');
  assert.equal(isAlive(pid), false, 'child left running after a failed start');
});

test('a command that cannot be spawned fails with a clear error', async (t) => {
  const dir = tempDir(t);
  await assert.rejects(
    startChild({ component: 'ghost', command: '/nonexistent/lanterna-binary', logPath: join(dir, 'ghost.log') }),
    (error: unknown) => error instanceof ComponentStartError && error.failure === 'spawn' && /ghost failed to start \(cannot spawn/.test(error.message),
  );
});

test('allocateFreePort returns distinct ports that can be bound on 127.0.0.1', async () => {
  const ports = await Promise.all([allocateFreePort(), allocateFreePort(), allocateFreePort()]);
  assert.equal(new Set(ports).size, 3);
  for (const port of ports) {
    await new Promise<void>((resolve, reject) => {
      const server = createServer();
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => server.close(() => resolve()));
    });
  }
});

test('a process killed by SIGTERM takes its supervised children with it', async (t) => {
  const dir = tempDir(t);
  const supervisor = new URL('./childSupervisor.js', import.meta.url).href;
  const script = `
    import { startChild } from ${JSON.stringify(supervisor)};
    const child = await startChild({ component: 'orphan-candidate', command: 'sleep', args: ['300'], logPath: ${JSON.stringify(join(dir, 'orphan.log'))} });
    process.stdout.write(child.pid + '\\n');
    setInterval(() => undefined, 1000);
  `;
  const { spawn } = await import('node:child_process');
  const parent = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  t.after(() => parent.kill('SIGKILL'));
  const childPid = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('no pid printed within 10 s')), 10_000);
    parent.stdout.once('data', (chunk: Buffer) => {
      clearTimeout(timer);
      resolve(Number(chunk.toString('utf8').trim()));
    });
  });
  assert.equal(isAlive(childPid), true);
  const ended = new Promise<NodeJS.Signals | null>((resolve) => parent.once('exit', (_code, signal) => resolve(signal)));
  parent.kill('SIGTERM');
  const signal = await Promise.race([ended, new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), 10_000))]);
  assert.equal(signal, 'SIGTERM');
  const deadline = Date.now() + 5000;
  while (isAlive(childPid) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
  assert.equal(isAlive(childPid), false, 'the supervised child outlived its SIGTERMed parent');
});
