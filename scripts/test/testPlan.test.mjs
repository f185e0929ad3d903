// The runner's lanes (scripts/testPlan.mjs), driven with a fake clock: every
// job runs once, alone files with nothing beside them, files holding one
// fixed resource never together, a file never beside its other pass, and
// the lanes' and cores' limits hold.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fits, nextJob, planJobs } from '../testPlan.mjs';

/** Runs `jobs` as nextJob picks them, each for its expected seconds; returns [job, start, end] in start order. */
function simulate(jobs, limits) {
  const pending = [...jobs];
  const running = [];
  const timeline = [];
  let now = 0;
  while (pending.length > 0 || running.length > 0) {
    for (let job = nextJob(pending, running, limits); job !== undefined; job = nextJob(pending, running, limits)) {
      pending.splice(pending.indexOf(job), 1);
      // what runs is seen by nextJob as jobs; `end` is the fake clock's
      running.push({ ...job, end: now + job.wallS });
      timeline.push({ job, start: now, end: now + job.wallS });
    }
    assert.ok(running.length > 0, 'a job is pending but none runs');
    running.sort((a, b) => a.end - b.end);
    now = running[0].end;
    while (running.length > 0 && running[0].end <= now) running.shift();
  }
  return timeline;
}

const overlap = (a, b) => a.start < b.end && b.start < a.end;

const FILES = [
  'e2e/dist/kiosk/pixelTruth.test.js', 'e2e/dist/kiosk/failurePaths.test.js', 'e2e/dist/kiosk/panelSize.test.js',
  'gateway/test/dist/wsd/wsdPeers.test.js', 'gateway/test/dist/wsd/wsdFarm.test.js', 'gateway/test/dist/hostileClients.test.js',
  'loadtest/dist/processTreeUsage.test.js', 'wasm/test/waits.test.mjs',
  ...Array.from({ length: 40 }, (_, i) => `protocol/dist/unit${i}.test.js`),
];
const BOTH = ['e2e/dist/kiosk/failurePaths.test.js', 'gateway/test/dist/hostileClients.test.js'];
const TIMES = new Map([
  ['default\te2e/dist/kiosk/pixelTruth.test.js', { wallS: 80, cpuS: 120 }],
  ['default\te2e/dist/kiosk/failurePaths.test.js', { wallS: 10, cpuS: 12 }],
  ['node\te2e/dist/kiosk/failurePaths.test.js', { wallS: 11, cpuS: 12 }],
  ['default\tgateway/test/dist/hostileClients.test.js', { wallS: 14, cpuS: 5 }],
]);
const PASSES = [
  { engine: 'default', env: {}, files: FILES },
  { engine: 'node', env: { LANTERNA_TEST_RELAY_ENGINE: 'node' }, files: BOTH },
];

test('every file of every pass runs once, short files chunked, long ones first and alone ones last', () => {
  const jobs = planJobs(PASSES, TIMES, { maxCores: 2 });
  const runs = jobs.flatMap((job) => job.files.map((file) => `${job.engine} ${file}`)).sort();
  assert.deepEqual(runs, [...FILES.map((f) => `default ${f}`), ...BOTH.map((f) => `node ${f}`)].sort());
  assert.ok(jobs.some((job) => job.files.length > 1), 'short files share a runner');
  assert.ok(jobs.filter((job) => job.files.length > 1).every((job) => job.files.every((f) => f.startsWith('protocol/'))));
  assert.equal(jobs[0].files[0], 'e2e/dist/kiosk/pixelTruth.test.js');
  assert.deepEqual(jobs.filter((job) => job.alone).map((job) => job.files[0]).sort(),
    ['e2e/dist/kiosk/panelSize.test.js', 'loadtest/dist/processTreeUsage.test.js', 'wasm/test/waits.test.mjs']);
  assert.ok(jobs.slice(-3).every((job) => job.alone), 'the alone ones are planned last');
  assert.equal(jobs.find((job) => job.engine === 'node' && job.files[0] === 'e2e/dist/kiosk/failurePaths.test.js')?.env.LANTERNA_TEST_RELAY_ENGINE, 'node');
  assert.deepEqual(jobs.filter((job) => job.page).map((job) => `${job.engine} ${job.files[0]}`).sort(),
    ['default e2e/dist/kiosk/failurePaths.test.js', 'default e2e/dist/kiosk/panelSize.test.js', 'default e2e/dist/kiosk/pixelTruth.test.js', 'node e2e/dist/kiosk/failurePaths.test.js']);
  const pixel = jobs[0];
  assert.equal(pixel.cores, 1.5, 'measured CPU seconds over wall seconds');
});

for (const limits of [{ lanes: 4, cores: 3, pages: 2 }, { lanes: 3, cores: 2, pages: 1 }, { lanes: 8, cores: 16, pages: 1 }, { lanes: 1, cores: 3, pages: 2 }]) {
  test(`side by side within ${limits.lanes} lanes, ${limits.cores} cores and ${limits.pages} page tests, never two that must not meet`, () => {
    const jobs = planJobs(PASSES, TIMES, { maxCores: 2 });
    const timeline = simulate(jobs, limits);
    assert.equal(timeline.length, jobs.length);
    assert.deepEqual(new Set(timeline.map((t) => t.job)), new Set(jobs));
    for (const a of timeline) {
      const beside = timeline.filter((b) => b !== a && overlap(a, b));
      if (a.job.alone) assert.deepEqual(beside, [], `${a.job.files[0]} runs alone`);
      for (const b of beside) {
        const shared = a.job.resources.filter((resource) => b.job.resources.includes(resource));
        assert.deepEqual(shared, [], `${a.job.files.join()} beside ${b.job.files.join()}`);
      }
      // at each job's start, the lanes and cores of what runs (a lone job may exceed the cores)
      const atStart = timeline.filter((b) => b.start <= a.start && a.start < b.end);
      assert.ok(atStart.length <= limits.lanes, 'within the lanes');
      assert.ok(atStart.filter((b) => b.job.page).length <= limits.pages, 'within the page tests');
      if (atStart.length > 1) assert.ok(atStart.reduce((sum, b) => sum + b.job.cores, 0) <= limits.cores + 1e-9, 'within the cores');
    }
    const wsd = timeline.filter((t) => t.job.resources.includes('udp-3702'));
    assert.equal(wsd.length, 4, 'both WS-Discovery files and hostileClients twice');
    for (const a of wsd) for (const b of wsd) if (a !== b) assert.ok(!overlap(a, b), 'one WS-Discovery responder at a time');
    const firstAlone = Math.min(...timeline.filter((t) => t.job.alone).map((t) => t.start));
    assert.ok(timeline.filter((t) => !t.job.alone).every((t) => t.end <= firstAlone), 'alone ones after all others');
    if (limits.lanes > 1) assert.ok(timeline.some((a) => timeline.some((b) => a !== b && overlap(a, b))), 'some run side by side');
  });
}

test('a lone job starts whatever its cost; an alone one only when nothing runs', () => {
  const heavy = { alone: false, cores: 9, resources: ['file:a'] };
  const light = { alone: false, cores: 0.5, resources: ['file:b'] };
  const alone = { alone: true, cores: 0.1, resources: ['file:c'] };
  const limits = { lanes: 4, cores: 3 };
  assert.ok(fits(heavy, [], limits));
  assert.ok(!fits(heavy, [light], limits));
  assert.ok(fits(light, [{ ...light, resources: ['file:d'] }], limits));
  assert.ok(!fits(light, [light], limits), 'not beside itself');
  assert.ok(!fits(alone, [light], limits));
  assert.ok(!fits(light, [alone], limits));
  assert.equal(nextJob([alone, light], [], limits), light, 'the others first');
  assert.equal(nextJob([alone], [], limits), alone);
  assert.equal(nextJob([alone], [light], limits), undefined);
  const page = (file) => ({ alone: false, page: true, cores: 0.3, resources: [`file:${file}`] });
  assert.ok(fits(page('p'), [page('q')], { ...limits, pages: 2 }));
  assert.ok(!fits(page('p'), [page('q'), page('r')], { ...limits, pages: 2 }), 'no third page test');
  assert.ok(fits(light, [page('q'), page('r')], { ...limits, pages: 2 }), 'others beside them');
});
