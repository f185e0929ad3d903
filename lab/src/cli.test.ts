import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { probeNative } from './client/probeNative.js';
import { LAB_ID_VARIABLE } from './lab.js';
import { pidsWithEnv } from './process/procTable.js';

const CLI = fileURLToPath(new URL('./cli.js', import.meta.url));

interface CliRun {
  readonly child: ChildProcess;
  readonly exited: Promise<number | null>;
  /** Its first stdout line (the JSON connection details); rejects after 30 s or if the CLI exits first. */
  readonly firstLine: Promise<string>;
  readonly stderr: () => string;
}

/** Starts lanterna-lab with these arguments; killed with SIGKILL at the test's end if still running. */
function startCli(t: { after(fn: () => void): void }, args: readonly string[]): CliRun {
  const child = spawn(process.execPath, [CLI, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => { stderr += chunk.toString('utf8'); });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  t.after(() => {
    if (child.exitCode === null) child.kill('SIGKILL');
  });
  const firstLine = new Promise<string>((resolve, reject) => {
    let stdout = '';
    const timer = setTimeout(() => reject(new Error(`no JSON line within 30 s; stderr: ${stderr}`)), 30_000);
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
      const newline = stdout.indexOf('\n');
      if (newline >= 0) {
        clearTimeout(timer);
        resolve(stdout.slice(0, newline));
      }
    });
    void exited.then((code) => { clearTimeout(timer); reject(new Error(`cli exited with ${code ?? 'a signal'} before printing; stderr: ${stderr}`)); });
  });
  return { child, exited, firstLine, stderr: () => stderr };
}

test('lanterna-lab shadow prints connection details, serves a client, and stops everything on SIGTERM', async (t) => {
  const { child, exited, firstLine, stderr } = startCli(t, ['shadow', '--auth', 'tls', '--scene', 'terminal', '--width', '1024', '--height', '768']);
  const details = JSON.parse(await firstLine) as { labId: string; host: string; port: number; username: string; password: string; display: string; server: string };
  assert.equal(details.server, 'freerdp-shadow');
  assert.equal(details.host, '127.0.0.1');
  assert.match(details.display, /^:\d+$/);
  await probeNative(details);
  assert.ok(pidsWithEnv(LAB_ID_VARIABLE, details.labId).length >= 4, 'cli lab processes not found');

  child.kill('SIGTERM');
  const code = await Promise.race([exited, new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), 15_000))]);
  assert.equal(code, 0, `cli did not exit cleanly: ${String(code)}; stderr: ${stderr()}`);
  assert.deepEqual(pidsWithEnv(LAB_ID_VARIABLE, details.labId), [], 'processes outlived the cli');
});

test('lanterna-lab xrdp survives repeated SIGTERMs while closing and removes its test user', async (t) => {
  const { child, exited, firstLine, stderr } = startCli(t, ['xrdp', '--scene', 'reference']);
  const details = JSON.parse(await firstLine) as { labId: string; username: string; server: string };
  assert.equal(details.server, 'xrdp');
  assert.match(readFileSync('/etc/passwd', 'utf8'), new RegExp(`^${details.username}:`, 'm'));
  child.kill('SIGTERM');
  // more SIGTERMs until it has gone (`timeout` signalling the whole group, a
  // double Ctrl-C): none may cut the cleanup short or kill it after a clean stop
  const repeat = setInterval(() => child.kill('SIGTERM'), 5);
  const code = await Promise.race([exited, new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), 20_000))]);
  clearInterval(repeat);
  assert.equal(code, 0, `cli did not exit cleanly: ${String(code)} (${String(child.signalCode)}); stderr: ${stderr()}`);
  assert.doesNotMatch(readFileSync('/etc/passwd', 'utf8'), new RegExp(`^${details.username}:`, 'm'), 'test user left behind');
  assert.deepEqual(pidsWithEnv(LAB_ID_VARIABLE, details.labId), []);
});

test('lanterna-lab rejects a bad option with usage and exit code 2', async () => {
  const child = spawn(process.execPath, [CLI, 'shadow', '--auth', 'kerberos'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => { stderr += chunk.toString('utf8'); });
  const code = await Promise.race([
    new Promise<number | null>((resolve) => child.once('exit', (exitCode) => resolve(exitCode))),
    new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), 10_000)),
  ]);
  if (code === 'timeout') child.kill('SIGKILL');
  assert.equal(code, 2);
  assert.match(stderr, /--auth must be tls or nla, got 'kerberos'/);
  assert.match(stderr, /usage: lanterna-lab/);
});
