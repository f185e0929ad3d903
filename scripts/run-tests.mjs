#!/usr/bin/env node
// Runs every workspace's compiled tests with node:test, then checks that no
// process started by the test lab outlived the suite, and ends with the
// "N passed, N failed" line CI reads.
//
// Lanes (issue 26: the suite in ≤ 10 minutes on 2 cores): most test files
// wait on servers, browsers and deadlines rather than compute, so the runner
// starts one `node --test` process per file (short files chunked together)
// and keeps several running side by side, longest first, while their
// measured CPU fits the machine (testPlan.mjs says what may run beside what:
// timing-sensitive files alone at the end, files holding a fixed resource
// never together, a file never beside itself; testTimes.mjs keeps each
// file's measured wall and CPU seconds). Each job's output is printed whole
// when it ends. LANTERNA_TEST_LANES (default 4; 1 runs every file one after
// the other), LANTERNA_TEST_CORES (default 1.5 × the CPUs: most files keep
// well under one core busy, waiting on servers and pages) and
// LANTERNA_TEST_PAGES (page tests at once, default 2: five at once on 2 cores
// missed their 10 s waits) change the limits.
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync, mkdtempSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { nextJob, planJobs } from './testPlan.mjs';
import { readTimes, writeTimes } from './testTimes.mjs';

const root = new URL('..', import.meta.url).pathname;
const workspaces = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).workspaces;
const filter = process.argv.slice(2);
const relative = (file) => (file.startsWith(root) ? file.slice(root.length) : file);

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
for (const file of stale) console.log(`# not run: ${relative(file)} is a stale build output (its source is gone)`);
const files = found.filter((f) => !stale.includes(f)).map(relative).sort();
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

// The gateway's default relay engine is `auto`: the native data plane wherever
// its binary was built (scripts/build.sh builds it where Go is), Node's own
// engine where not. The whole suite runs against that default, as the product
// runs; the conformance suite runs a second time against the Node engine
// (auto's fallback, and `relay.engine: node`), in lanes beside the first
// pass: both engines must behave the same. testkit's gateways read LANTERNA_TEST_RELAY_ENGINE, the gateways the
// CLI and scale-out tests start read LANTERNA_RELAY_ENGINE.
//
// The conformance suite is every test whose outcome depends on the engine:
// the data socket's protocol, bad input, drain, the server legs to real RDP
// servers (native xfreerdp3 through each engine), the presenter leg (a
// presenter page's wasm RDP server joined to a display's wasm client, its
// pace included), and what the page tests rely on each engine for, proven
// at the gateway without Chromium (gateway/test/relay/, a real gateway and a
// data socket spoken by hand): typed ends (typedEnds: a refused NLA sign-in,
// the server gone or reset mid-session; a restart's 1001 is drain's and
// cli's) for e2e/kiosk/failurePaths; the relay's counts and rates the admin
// view shows (relayFigures) for adminPage; several data sockets on one
// display (roomSessions) for roomSources; the input gate (inputGate) for
// touchToComputer; a moderated or taken-over place's presenter socket
// joining (presenterInRoom) for roomModeration and roomTakeOver. The page
// tests themselves, and those that check what the page does with PDUs both
// engines relay byte for byte (pixels, a shared screen's picture and sound,
// the bitrate rule, xrdp's sound), run once, against the default engine:
// the suite above proves the engines the same (issue 26: no whole suite
// twice).
const BOTH_ENGINE_TESTS = [
  // the data socket's protocol, bad input, drain, real servers, the CLI's workers, scale-out; relay/ holds the
  // page tests' engine parts (typedEnds, relayFigures, roomSessions, inputGate, presenterInRoom)
  'gateway/test/dist/hostileClients.test.js', 'gateway/test/dist/badInput.test.js', 'gateway/test/dist/realServers.test.js',
  'gateway/test/dist/drain.test.js', 'gateway/test/dist/relay/', 'gateway/test/dist/channel/silentUntilSecured.test.js',
  'gateway/test/dist/connect/resetWhileJudging.test.js',
  'gateway/test/dist/cli.test.js', 'gateway/test/dist/scaleOut.test.js', 'gateway/test/dist/roomFarm.test.js',
  // the presenter leg: a presenter page's wasm RDP server joined to a display's wasm client, paced (issue 25)
  'wasm/test/presenterLeg.test.mjs',
  // and multi-touch over it: RDPEI, a dynamic channel both engines relay (issue 30)
  'wasm/test/presenterTouch.test.mjs',
];

const nativeBinary = join(root, 'gateway', 'dataplane', 'bin', 'lanterna-dataplane');
const nativeBuilt = existsSync(nativeBinary);
console.log(nativeBuilt
  ? '# relay engine: the native data plane (the default where it is built)'
  : '# relay engine: Node (the native data plane is not built: no Go); the second engine\'s pass will not run');

const bothFiles = files.filter((file) => BOTH_ENGINE_TESTS.some((part) => file.includes(part)));
const passes = [{ engine: 'default', label: 'the default engine', env: {}, files }];
if (nativeBuilt && bothFiles.length > 0) {
  console.log(`# the conformance suite's ${bothFiles.length} files run a second time, against the Node engine`);
  passes.push({ engine: 'node', label: 'the Node engine', env: { LANTERNA_TEST_RELAY_ENGINE: 'node', LANTERNA_RELAY_ENGINE: 'node' }, files: bothFiles });
}

const cpus = availableParallelism();
const limits = {
  lanes: Math.max(1, Number(process.env.LANTERNA_TEST_LANES ?? 4) || 1),
  cores: Number(process.env.LANTERNA_TEST_CORES ?? 1.5 * cpus) || 1.5 * cpus,
  pages: Math.max(1, Number(process.env.LANTERNA_TEST_PAGES ?? 2) || 1),
};
const jobs = planJobs(passes, readTimes(), { maxCores: cpus });
const reports = mkdtempSync(join(tmpdir(), 'lanterna-tests-'));
console.log(`# ${jobs.length} jobs for ${passes.reduce((sum, pass) => sum + pass.files.length, 0)} file runs, up to ${limits.lanes} at once (${limits.pages} page tests) within ${limits.cores} CPU cores (reports in ${reports})`);

/** Keeps the first and last `cap` bytes of a job's output. */
class OutputTail {
  constructor(cap = 1 << 20) { this.cap = cap; this.head = []; this.headBytes = 0; this.tail = []; this.tailBytes = 0; this.dropped = 0; }
  push(chunk) {
    if (this.headBytes < this.cap) { this.head.push(chunk); this.headBytes += chunk.length; return; }
    this.tail.push(chunk);
    this.tailBytes += chunk.length;
    while (this.tailBytes - (this.tail[0]?.length ?? 0) >= this.cap) { const first = this.tail.shift(); this.tailBytes -= first.length; this.dropped += first.length; }
  }
  text() {
    const gap = this.dropped > 0 ? [Buffer.from(`\n# … ${this.dropped} bytes of this job's output left out …\n`)] : [];
    return Buffer.concat([...this.head, ...gap, ...this.tail]).toString('utf8');
  }
}

/** `times` of sh: its children's user and system seconds (the second line, "0m1.23s 0m0.45s"). */
function childCpuSeconds(path) {
  try {
    const line = readFileSync(path, 'utf8').trim().split('\n')[1] ?? '';
    return [...line.matchAll(/(\d+)m([\d.]+)s/g)].reduce((sum, [, m, s]) => sum + Number(m) * 60 + Number(s), 0);
  } catch {
    return undefined;
  }
}

const running = new Set();
let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(signal, () => {
    stopping = true;
    // the jobs end their files (and those their labs); the runner reports when the last has ended
    for (const job of running) { try { process.kill(-job.child.pid, signal); } catch { /* gone */ } }
  });
}

/** One job: `node --test` over its files under sh (whose `times` reports the tree's CPU), its output kept until it ends. */
function runJob(job) {
  const base = join(reports, `job-${String(job.id).padStart(3, '0')}`);
  job.tap = `${base}.tap`;
  job.times = `${base}.tsv`;
  job.cpuFile = `${base}.cpu`;
  const args = [
    '--test', '--test-concurrency=1',
    '--test-timeout=600000',
    '--test-reporter=spec', '--test-reporter-destination=stdout',
    '--test-reporter=tap', `--test-reporter-destination=${job.tap}`,
    `--test-reporter=${join(root, 'scripts', 'fileTimes.mjs')}`, `--test-reporter-destination=${job.times}`,
    ...job.files.map((file) => join(root, file)),
  ];
  const output = new OutputTail();
  job.started = performance.now();
  job.child = spawn('sh', ['-c', 'out=$1; shift; "$@"; status=$?; times > "$out"; exit $status', 'sh', job.cpuFile, process.execPath, ...args], {
    // a process group of its own: a signal to the runner goes to the whole job (sh, node --test, the file)
    cwd: root, detached: true, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...job.env, LANTERNA_LAB_TAG: tag },
  });
  job.child.stdout.on('data', (chunk) => output.push(chunk));
  job.child.stderr.on('data', (chunk) => output.push(chunk));
  const streamsClosed = Promise.all([job.child.stdout, job.child.stderr].map((stream) => new Promise((closed) => stream.on('close', closed))));
  return new Promise((done) => {
    job.child.on('exit', (code, signal) => {
      job.wallS = (performance.now() - job.started) / 1000;
      job.status = code ?? signal;
      // a process left behind may hold the pipes open: what came within a moment is the job's output
      const settle = setTimeout(() => { job.child.stdout.destroy(); job.child.stderr.destroy(); done(output); }, 3000);
      void streamsClosed.then(() => { clearTimeout(settle); done(output); });
    });
  });
}

/** A job's counts from its TAP summary, its failures into `failures`, and its files' measured times. */
function collect(job, label) {
  const summary = existsSync(job.tap) ? readFileSync(job.tap, 'utf8') : '';
  const count = (key) => [...summary.matchAll(new RegExp(`^# ${key} (\\d+)$`, 'gm'))].reduce((sum, m) => sum + Number(m[1]), 0);
  const failed = count('fail') + count('cancelled');
  const prefix = job.engine === 'default' ? '' : `(${label}) `;
  failures.push(...failuresIn(summary).map((f) => prefix + f));
  const runnerFailed = job.status !== 0 && failed === 0;
  if (runnerFailed) failures.push(`${prefix}${job.files.join(' ')}: node --test ended with ${job.status} outside any test`);
  const rows = existsSync(job.times) ? readFileSync(job.times, 'utf8').trim().split('\n').filter(Boolean)
    .map((line) => { const [file, tests, , wall] = line.split('\t'); return { file: relative(file), tests: Number(tests), wall: Number(wall) }; }) : [];
  job.cpuS = childCpuSeconds(job.cpuFile);
  return {
    passed: count('pass'),
    // the runner itself failed outside any test
    failed: failed + (runnerFailed ? 1 : 0),
    skipped: count('skipped') + count('todo'),
    rows,
  };
}

const pending = [...jobs];
const results = [];
const loads = [];
const sampleLoad = () => { try { loads.push(Number(readFileSync('/proc/loadavg', 'utf8').split(' ')[0])); } catch { /* no /proc */ } };
sampleLoad();
const loadTimer = setInterval(sampleLoad, 5000);
const suiteStarted = performance.now();
let aloneStarted;
await new Promise((finished) => {
  const startMore = () => {
    if (stopping) pending.length = 0;
    for (let job = nextJob(pending, [...running], limits); job !== undefined; job = nextJob(pending, [...running], limits)) {
      pending.splice(pending.indexOf(job), 1);
      if (job.alone && aloneStarted === undefined) aloneStarted = performance.now();
      running.add(job);
      const label = passes.find((pass) => pass.engine === job.engine)?.label ?? job.engine;
      console.log(`# started [${job.id}] ${job.files.length === 1 ? job.files[0] : `${job.files.length} short files`}${job.engine === 'default' ? '' : ` (${label})`}${job.alone ? ', alone' : ''}; ${running.size} running`);
      runJob(job).then((output) => {
        running.delete(job);
        const result = collect(job, label);
        results.push({ job, ...result });
        const cpu = job.cpuS === undefined ? '' : `, ${job.cpuS.toFixed(1)} s CPU`;
        console.log(`# ── [${job.id}] ${job.files.length === 1 ? job.files[0] : `${job.files.length} short files`}${job.engine === 'default' ? '' : ` (${label})`}: ${result.passed} passed, ${result.failed} failed in ${job.wallS.toFixed(1)} s${cpu} ──`);
        process.stdout.write(output.text());
        startMore();
      });
    }
    if (running.size === 0 && pending.length === 0) finished();
  };
  startMore();
});
clearInterval(loadTimer);
const suiteS = (performance.now() - suiteStarted) / 1000;

/** A pass's slowest files, and its files' wall time in all (as one after the other). */
function printSlowest(pass) {
  const rows = results.filter((r) => r.job.engine === pass.engine).flatMap((r) => r.rows).sort((a, b) => b.wall - a.wall);
  if (rows.length === 0) return;
  const total = rows.reduce((sum, row) => sum + row.wall, 0);
  console.log(`# time by file (${pass.label}): ${rows.length} files, ${(total / 60).toFixed(1)} min in all; the slowest:`);
  for (const row of rows.slice(0, 12)) console.log(`#   ${row.wall.toFixed(0).padStart(4)} s  ${String(row.tests).padStart(3)} tests  ${row.file}`);
}
for (const pass of passes) printSlowest(pass);

// Each file's measured wall and CPU seconds, in test-times.tsv's format: a
// job of one file as measured; a chunk's wall and CPU shared out by its
// files' own wall (the runner's start is the chunk's overhead, shared equally).
const measured = new Map();
for (const { job, rows } of results) {
  if (job.cpuS === undefined) continue;
  const own = rows.reduce((sum, row) => sum + row.wall, 0);
  for (const file of job.files) {
    const wall = job.files.length === 1 ? job.wallS : (rows.find((row) => row.file === file)?.wall ?? 0) + Math.max(0, job.wallS - own) / job.files.length;
    measured.set(`${job.engine}\t${file}`, { wallS: wall, cpuS: job.cpuS * (job.files.length === 1 || job.wallS === 0 ? 1 : wall / job.wallS) });
  }
}
writeTimes(join(reports, 'test-times.tsv'), measured);
// the lanes' timeline, for a look at how the jobs overlapped
writeFileSync(join(reports, 'lanes.tsv'), results.map(({ job }) => [job.id, job.engine, ((job.started - suiteStarted) / 1000).toFixed(1), job.wallS.toFixed(1),
  job.cpuS?.toFixed(1) ?? '', job.cores.toFixed(2), job.alone ? 'alone' : '', job.status, job.files.join(' ')].join('\t')).join('\n') + '\n');

let passed = results.reduce((sum, r) => sum + r.passed, 0);
let failed = results.reduce((sum, r) => sum + r.failed, 0);
const skipped = results.reduce((sum, r) => sum + r.skipped, 0);
const sorted = [...loads].sort((a, b) => a - b);
const aloneS = aloneStarted === undefined ? 0 : (performance.now() - aloneStarted) / 1000;
console.log(`# lanes: ${jobs.length} jobs in ${(suiteS / 60).toFixed(1)} min (side by side ${(Math.max(0, suiteS - aloneS) / 60).toFixed(1)} min, alone ${(aloneS / 60).toFixed(1)} min); `
  + `CPU ${(results.reduce((sum, r) => sum + (r.job.cpuS ?? 0), 0) / 60).toFixed(1)} min; load average ${sorted[0] ?? '?'}–${sorted.at(-1) ?? '?'} (median ${sorted[Math.floor(sorted.length / 2)] ?? '?'}) on ${cpus} CPUs`);

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
