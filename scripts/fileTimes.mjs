// A node:test reporter that writes, at the end of a run, one line per test
// file: its tests, the seconds its tests took, and the wall seconds from its
// first to its last report (setup included). run-tests.mjs prints the
// slowest: where the suite's time goes, each run (issue 26's ≤ 10 minutes).
export default async function* fileTimes(source) {
  const files = new Map();
  for await (const event of source) {
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    const { file, nesting, details } = event.data;
    if (file === undefined) continue;
    const now = Date.now();
    const entry = files.get(file) ?? { tests: 0, testMs: 0, first: now - (details?.duration_ms ?? 0), last: now };
    entry.last = now;
    if (nesting === 0) {
      entry.tests += 1;
      entry.testMs += details?.duration_ms ?? 0;
    }
    files.set(file, entry);
  }
  for (const [file, entry] of files) {
    yield `${file}\t${entry.tests}\t${(entry.testMs / 1000).toFixed(1)}\t${((entry.last - entry.first) / 1000).toFixed(1)}\n`;
  }
}
