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
// short runs in fuzz/dist/, e.g. gateway/fuzz), plus wasm/'s plain ESM tests
// and the repository's own (scripts/test: the README and docs' links).
const found = [...workspaces.flatMap((ws) => [join(root, ws, 'dist'), join(root, ws, 'test', 'dist'), join(root, ws, 'fuzz', 'dist')]), join(root, 'wasm', 'test'), join(root, 'scripts', 'test')]
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

/** Every failed test's name, place and first error lines, repeated at the end: CI shows only the output's tail. */
const failures = [];

/** The failed tests of a TAP report: `not ok` lines (subtests indented) with their YAML block's location and error. */
function failuresIn(tap) {
  const lines = tap.split('\n');
  const out = [];
  lines.forEach((line, at) => {
    const failed = /^(\s*)not ok \d+ - (.*)$/.exec(line);
    if (!failed) return;
    const block = [];
    for (let next = at + 1; next < lines.length && block.length < 40; next += 1) {
      if (/^\s*(not )?ok \d+ /.test(lines[next]) || /^\s*\.\.\.$/.test(lines[next])) break;
      block.push(lines[next].trim());
    }
    const location = block.find((l) => l.startsWith('location:')) ?? '';
    const errorAt = block.findIndex((l) => l.startsWith('error:'));
    const error = errorAt < 0 ? [] : block.slice(errorAt, errorAt + 6);
    out.push([`${failed[2]} ${location}`, ...error.map((l) => `    ${l.slice(0, 300)}`)].join('\n'));
  });
  return out;
}

/** The pass's slowest files (fileTimes.mjs's report), and its files' wall time in all. */
function printSlowest(times) {
  if (!existsSync(times)) return;
  const rows = readFileSync(times, 'utf8').trim().split('\n').filter(Boolean)
    .map((line) => { const [file, tests, , wall] = line.split('\t'); return { file: file.slice(root.length), tests: Number(tests), wall: Number(wall) }; })
    .sort((a, b) => b.wall - a.wall);
  const total = rows.reduce((sum, row) => sum + row.wall, 0);
  console.log(`# time by file: ${rows.length} files, ${(total / 60).toFixed(1)} min in all; the slowest:`);
  for (const row of rows.slice(0, 12)) console.log(`#   ${row.wall.toFixed(0).padStart(4)} s  ${String(row.tests).padStart(3)} tests  ${row.file}`);
}

/** One node:test run over `testFiles`; returns its counts from the TAP summary. */
function runPass(testFiles, extraEnv) {
  const reports = mkdtempSync(join(tmpdir(), 'lanterna-tests-'));
  const tap = join(reports, 'results.tap');
  const times = join(reports, 'file-times.tsv');
  const run = spawnSync(process.execPath, [
    '--test',
    '--test-timeout=600000',
    '--test-reporter=spec', '--test-reporter-destination=stdout',
    '--test-reporter=tap', `--test-reporter-destination=${tap}`,
    `--test-reporter=${join(root, 'scripts', 'fileTimes.mjs')}`, `--test-reporter-destination=${times}`,
    ...testFiles,
  ], { stdio: 'inherit', env: { ...process.env, ...extraEnv, LANTERNA_LAB_TAG: tag } });
  printSlowest(times);
  const summary = existsSync(tap) ? readFileSync(tap, 'utf8') : '';
  const count = (key) => Number((summary.match(new RegExp(`^# ${key} (\\d+)$`, 'm')) ?? [])[1] ?? 0);
  const failed = count('fail') + count('cancelled');
  failures.push(...failuresIn(summary));
  return {
    passed: count('pass'),
    // the runner itself failed outside any test
    failed: failed + (run.status !== 0 && failed === 0 ? 1 : 0),
    skipped: count('skipped') + count('todo'),
  };
}

// The gateway's default relay engine is `auto`: the native data plane wherever
// its binary was built (scripts/build.sh builds it where Go is), Node's own
// engine where not. The whole suite runs against that default, as the product
// runs; the conformance suite then runs a second time against the Node engine
// (auto's fallback, and `relay.engine: node`): both engines must behave the
// same. testkit's gateways read LANTERNA_TEST_RELAY_ENGINE, the gateways the
// CLI and scale-out tests start read LANTERNA_RELAY_ENGINE.
//
// The conformance suite is every test whose outcome depends on the engine:
// the data socket's protocol, bad input, drain, the server legs to real RDP
// servers (native xfreerdp3 through each engine), the presenter leg (a
// presenter page's wasm RDP server joined to a display's wasm client, its
// pace included), and the page tests where the engine decides something of
// its own: failure paths' typed ends, the admin's relay counts, several data
// sockets on one page, the input gate, a moderated or taken-over place's
// presenter socket. Page tests that check what the page does with PDUs both
// engines relay byte for byte (pixels, a shared screen's picture and sound,
// the bitrate rule, xrdp's sound) run once: the suite above proves the bytes
// the same (issue 26: no whole suite twice).
const BOTH_ENGINE_TESTS = [
  'gateway/test/dist/hostileClients.test.js', 'gateway/test/dist/badInput.test.js', 'gateway/test/dist/realServers.test.js',
  'gateway/test/dist/drain.test.js', 'gateway/test/dist/relay/', 'gateway/test/dist/channel/silentUntilSecured.test.js',
  'gateway/test/dist/connect/resetWhileJudging.test.js',
  'gateway/test/dist/cli.test.js', 'gateway/test/dist/scaleOut.test.js', 'gateway/test/dist/roomFarm.test.js',
  // the presenter leg: a presenter page's wasm RDP server joined to a display's wasm client, paced (issue 25)
  'wasm/test/presenterLeg.test.mjs',
  // and multi-touch over it: RDPEI, a dynamic channel both engines relay (issue 30)
  'wasm/test/presenterTouch.test.mjs',
  // each engine's typed ends, seen by the real page
  'e2e/dist/kiosk/failurePaths.test.js',
  // the admin's live view: the display page's figures beside each engine's relay counts (issue 32)
  'e2e/dist/kiosk/adminPage.test.js',
  // several sources on one display page, each its own data socket (issue 29)
  'e2e/dist/kiosk/roomSources.test.js',
  // touch to the presenter's computer: each engine's input gate (issue 30)
  'e2e/dist/kiosk/touchToComputer.test.js',
  // a moderated room's accepted browser source: its presenter socket joins once the moderator decides
  'e2e/dist/kiosk/roomModeration.test.js',
  // a take-over stops one slot's session and joins another's in its place
  'e2e/dist/kiosk/roomTakeOver.test.js',
];
const nativeBinary = join(root, 'gateway', 'dataplane', 'bin', 'lanterna-dataplane');
const nativeBuilt = existsSync(nativeBinary);
console.log(nativeBuilt
  ? '# relay engine: the native data plane (the default where it is built)'
  : '# relay engine: Node (the native data plane is not built: no Go); the second engine\'s pass will not run');

const totals = runPass(files, {});
const bothFiles = files.filter((file) => BOTH_ENGINE_TESTS.some((part) => file.includes(part)));
if (nativeBuilt && bothFiles.length > 0) {
  console.log(`# the conformance suite's ${bothFiles.length} files against the Node engine`);
  const node = runPass(bothFiles, { LANTERNA_TEST_RELAY_ENGINE: 'node', LANTERNA_RELAY_ENGINE: 'node' });
  totals.passed += node.passed;
  totals.failed += node.failed;
  totals.skipped += node.skipped;
}
let { passed, failed } = totals;
const { skipped } = totals;

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

if (failures.length > 0) console.log(`# failed:\n${failures.map((f) => `  ${f}`).join('\n')}`);
console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
process.exit(failed === 0 ? 0 : 1);
