// What may run beside what when run-tests.mjs runs test files concurrently
// (issue 26: the suite in ≤ 10 minutes on 2 cores). Pure: files, expected
// times and limits in, jobs and the next job to start out; the runner does
// the spawning. scripts/test/testPlan.test.mjs drives it with a fake clock.
//
// A job is one `node --test` process: a single file, or a chunk of short
// files run one after the other (one runner start for many small files).
// Jobs run side by side in lanes, up to `lanes` at once and while the sum of
// their expected CPU cores stays within `cores` (measured per file, see
// testTimes.mjs) and while at most `pages` of them are page tests, longest
// first so that no long file starts last. Three rules keep them apart:
// - ALONE files are timing-sensitive by nature (they read latencies, frame
//   rates, CPU shares or real-time sound): they run at the end, one at a
//   time, with nothing else of the suite beside them.
// - SHARED_RESOURCES: files that hold one fixed resource never overlap.
// - A file never overlaps itself (the conformance pass runs some files a
//   second time against the Node engine).

/** Substrings of files that run alone, each with why. */
export const ALONE = [
  // a busy loop's CPU share, 50 × 4 ms of CPU measured from /proc
  'loadtest/dist/processTreeUsage.test.js',
  // send phases 2 ms apart, no catch-up burst within 5 ms
  'loadtest/dist/pacedConnection.test.js',
  // load benches in miniature: they saturate the cores and read latency and CPU per round trip
  // (goGenerator also rebuilds loadtest/generator-go/bin, whose binaries the others run)
  'loadtest/dist/goGenerator.test.js', 'loadtest/dist/smoke.test.js', 'loadtest/dist/chaos.test.js',
  'loadtest/dist/websockifyKiosk.test.js',
  // WinPR waits: a wake within 1 ms median, a 400 ms timeout within 200 ms, CPU under a quarter of the wait
  'wasm/test/waits.test.mjs',
  // latency through the whole path: strip to page, clapper to screen and speaker
  'e2e/dist/kiosk/glassToGlass.test.js', 'e2e/dist/kiosk/demoClapperboard.test.js',
  // frame rates: a drawn frame every second; the animation scene above 5 frames/s
  'e2e/dist/kiosk/motion.test.js', 'lab/dist/lab.test.js',
  // a 4K picture through SwiftShader within 90 s
  'e2e/dist/kiosk/panelSize.test.js',
  // the presenter page's bitrate control follows the link's speed as it reads it, in real time
  // (beside three other jobs at load average 20 it once settled above the link)
  'e2e/dist/kiosk/shareBackpressure.test.js',
  // Firefox compiles the presenter's wasm RDP server and starts its threads within the page's
  // 50 s start deadline: 19 s alone, but beside three jobs at load 12–19 it once missed it (CI, session 20)
  'e2e/dist/kiosk/shareFromFirefox.test.js',
];

/**
 * Fixed resources: a file holding one never runs beside another holding it.
 * `udp-3702`: a gateway with WS-Discovery binds UDP 3702 (SO_REUSEADDR) on
 * 0.0.0.0 and joins 239.255.255.250: side by side, one responder hears the
 * other's multicast Probes and takes its unicast datagrams.
 */
export const SHARED_RESOURCES = {
  'udp-3702': [
    'gateway/test/dist/wsd/', 'gateway/test/dist/hostileClients.test.js', 'demo/test/dist/demo.test.js',
    'e2e/dist/present/',
  ],
};

/**
 * Page tests: Chromium (SwiftShader WebGL2, a wasm client, often a presenter
 * page's wasm server and encoder) beside lab servers. Their CPU comes in
 * bursts (a browser and its wasm starting) that their average hides, and
 * their 10 s waits are what a burst beside other bursts misses: at most
 * `pages` of them run at once.
 */
export const PAGE_TESTS = /^(e2e\/dist\/|web\/dist\/src\/pages\/|kiosk\/dist\/kioskOnDisplay)/;

/** Files whose runs are measured in a few seconds or less are chunked up to this many expected seconds. */
export const SHORT_FILE_S = 4;
export const CHUNK_S = 30;

/**
 * A file's expected wall seconds and CPU cores when no run measured it yet:
 * page tests (Chromium with SwiftShader) and lab servers are long and busy,
 * most others short.
 */
export function defaultCost(file) {
  if (PAGE_TESTS.test(file)) return { wallS: 20, cores: 1.3 };
  if (/^(wasm\/test\/|lab\/dist\/|gateway\/test\/dist\/)/.test(file)) return { wallS: 6, cores: 0.8 };
  return { wallS: 2, cores: 0.6 };
}

const matches = (file, parts) => parts.some((part) => file.includes(part));

/**
 * The jobs for `passes` ([{ engine, env, files }], files relative to the
 * repository), costed from `times` (Map `${engine}\t${file}` → { wallS,
 * cpuS }, see testTimes.mjs). Short files of one pass without a resource are
 * chunked; every other file is a job of its own.
 */
export function planJobs(passes, times, { maxCores = 2 } = {}) {
  const jobs = [];
  for (const pass of passes) {
    const costed = pass.files.map((file) => {
      const measured = times.get(`${pass.engine}\t${file}`) ?? times.get(`default\t${file}`);
      const fallback = defaultCost(file);
      const wallS = measured ? Math.max(0.1, measured.wallS) : fallback.wallS;
      const cpuS = measured ? measured.cpuS : fallback.cores * fallback.wallS;
      const resources = Object.entries(SHARED_RESOURCES).filter(([, parts]) => matches(file, parts)).map(([name]) => name);
      return { file, wallS, cpuS, resources, alone: matches(file, ALONE) };
    }).sort((a, b) => b.wallS - a.wallS || a.file.localeCompare(b.file));
    const own = costed.filter((f) => f.alone || f.resources.length > 0 || f.wallS >= SHORT_FILE_S);
    const short = costed.filter((f) => !own.includes(f));
    const groups = own.map((f) => [f]);
    let chunk = [];
    for (const f of short) {
      if (chunk.length > 0 && chunk.reduce((sum, c) => sum + c.wallS, 0) + f.wallS > CHUNK_S) {
        groups.push(chunk);
        chunk = [];
      }
      chunk.push(f);
    }
    if (chunk.length > 0) groups.push(chunk);
    for (const group of groups) {
      const wallS = group.reduce((sum, f) => sum + f.wallS, 0);
      const cpuS = group.reduce((sum, f) => sum + f.cpuS, 0);
      jobs.push({
        id: jobs.length + 1,
        engine: pass.engine,
        env: pass.env,
        files: group.map((f) => f.file).sort(),
        wallS,
        cores: Math.min(maxCores, Math.max(0.05, cpuS / wallS)),
        alone: group.some((f) => f.alone),
        page: group.some((f) => PAGE_TESTS.test(f.file)),
        // a file is a resource of its own: its two passes never overlap
        resources: [...new Set(group.flatMap((f) => [...f.resources, `file:${f.file}`]))],
      });
    }
  }
  // longest first, the alone ones after all others
  return jobs.sort((a, b) => Number(a.alone) - Number(b.alone) || b.wallS - a.wallS || a.id - b.id);
}

/** Whether `job` may start now beside `running`. */
export function fits(job, running, { lanes, cores, pages = lanes }) {
  if (running.length === 0) return true;
  if (job.alone || running.some((r) => r.alone)) return false;
  if (running.length >= lanes) return false;
  if (job.page && running.filter((r) => r.page).length >= pages) return false;
  if (job.resources.some((resource) => running.some((r) => r.resources.includes(resource)))) return false;
  return running.reduce((sum, r) => sum + r.cores, 0) + job.cores <= cores;
}

/**
 * The next of `pending` (in planJobs' order) to start beside `running`, or
 * undefined. A job that does not fit is passed over for a later one that
 * does, except that alone jobs wait until every other job is done.
 */
export function nextJob(pending, running, limits) {
  const others = pending.filter((job) => !job.alone);
  const candidates = others.length > 0 ? others : pending;
  return candidates.find((job) => fits(job, running, limits));
}
