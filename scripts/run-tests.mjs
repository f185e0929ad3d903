#!/usr/bin/env node
// Runs every workspace's compiled tests with node:test, then checks that no
// process started by the test lab outlived the suite, and ends with the
// "N passed, N failed" line CI reads.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync, mkdtempSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { tmpdir } from 'node:os';

const root = new URL('..', import.meta.url).pathname;
const workspaces = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).workspaces;
const filter = process.argv.slice(2);

function findTests(dir) {
  let out = [];
  let entries;
  try { entries = readdirSync(dir); } catch { return out; }
  for (const name of entries) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out = out.concat(findTests(path));
    else if (name.endsWith('.test.js') || name.endsWith('.test.mjs')) out.push(path);
  }
  return out;
}

/**
 * A compiled test whose TypeScript source is gone (moved or deleted since the
 * last build: tsc -b never removes outputs) must not run a second time under
 * its old name; its source map says where the source was.
 */
function sourceIsGone(file) {
  if (!file.endsWith('.js')) return false;
  try {
    const { sources } = JSON.parse(readFileSync(`${file}.map`, 'utf8'));
    return sources.length > 0 && sources.every((source) => !existsSync(resolve(dirname(file), source)));
  } catch {
    return false;
  }
}

// Workspaces' compiled TypeScript tests (a workspace's own project in dist/,
// tests that need the test kit in test/dist/, e.g. gateway/test, fuzz targets'
// short runs in fuzz/dist/, e.g. gateway/fuzz), plus wasm/'s plain ESM tests.
const found = [...workspaces.flatMap((ws) => [join(root, ws, 'dist'), join(root, ws, 'test', 'dist'), join(root, ws, 'fuzz', 'dist')]), join(root, 'wasm', 'test')]
  .flatMap((dir) => findTests(dir))
  .filter((f) => filter.length === 0 || filter.some((part) => f.includes(part)));
const stale = found.filter(sourceIsGone);
for (const file of stale) console.log(`# not run: ${file.slice(root.length)} is a stale build output (its source is gone)`);
const files = found.filter((f) => !stale.includes(f)).sort();
if (files.length === 0) {
  console.error('no test files found (did the build run?)');
  process.exit(1);
}

const tag = `lanterna-test-${process.pid}-${Date.now()}`;
const tap = join(mkdtempSync(join(tmpdir(), 'lanterna-tests-')), 'results.tap');
const run = spawnSync(process.execPath, [
  '--test',
  '--test-timeout=600000',
  '--test-reporter=spec', '--test-reporter-destination=stdout',
  '--test-reporter=tap', `--test-reporter-destination=${tap}`,
  ...files,
], { stdio: 'inherit', env: { ...process.env, LANTERNA_LAB_TAG: tag } });

const summary = readFileSync(tap, 'utf8');
const count = (key) => Number((summary.match(new RegExp(`^# ${key} (\\d+)$`, 'm')) ?? [])[1] ?? 0);
let passed = count('pass');
let failed = count('fail') + count('cancelled');
const skipped = count('skipped') + count('todo');

// Every lab child inherits LANTERNA_LAB_TAG; any still alive is a leak.
const leaks = [];
for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
  try {
    const env = readFileSync(`/proc/${pid}/environ`, 'utf8');
    if (env.includes(`LANTERNA_LAB_TAG=${tag}`)) {
      leaks.push(`${pid} ${readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ').trim()}`);
    }
  } catch { /* process ended while we looked */ }
}
if (leaks.length > 0) {
  failed += 1;
  console.log(`not ok - processes left running after the suite:\n  ${leaks.join('\n  ')}`);
  for (const line of leaks) { try { process.kill(Number(line.split(' ')[0]), 'SIGKILL'); } catch { /* gone */ } }
} else {
  passed += 1;
  console.log('ok - no test-lab process left running after the suite');
}
if (run.status !== 0 && failed === 0) failed += 1; // the runner itself failed outside any test

console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
process.exit(failed === 0 ? 0 : 1);
