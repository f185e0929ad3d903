// Each test file's measured wall seconds and CPU seconds, per relay engine
// pass: what run-tests.mjs balances its lanes by. One tracked table,
// scripts/test-times.tsv (`engine<TAB>file<TAB>wall s<TAB>cpu s`, files
// relative to the repository), so that every run, a clean clone's in CI
// included, plans the same lanes. Each run writes what it measured in the
// same format beside its reports; copy that over the table to rebalance
// (on a quiet machine: the lanes read CPU seconds per wall second as how
// busy a file keeps the machine). A file the table lacks gets testPlan.mjs's
// default cost.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';

export const TRACKED_TIMES = new URL('./test-times.tsv', import.meta.url).pathname;

/** Map `${engine}\t${file}` → { wallS, cpuS }; a missing or unreadable table is empty. */
export function readTimes(path = TRACKED_TIMES) {
  const times = new Map();
  if (!existsSync(path)) return times;
  let text;
  try { text = readFileSync(path, 'utf8'); } catch { return times; }
  for (const line of text.split('\n')) {
    if (line.startsWith('#') || line.trim() === '') continue;
    const [engine, file, wall, cpu] = line.split('\t');
    const wallS = Number(wall);
    const cpuS = Number(cpu);
    if (engine && file && Number.isFinite(wallS) && Number.isFinite(cpuS)) times.set(`${engine}\t${file}`, { wallS, cpuS });
  }
  return times;
}

/** Writes `times` (a Map as readTimes returns) to `path`. */
export function writeTimes(path, times) {
  const lines = [...times].sort(([a], [b]) => a.localeCompare(b))
    .map(([key, { wallS, cpuS }]) => `${key}\t${wallS.toFixed(1)}\t${cpuS.toFixed(1)}`);
  writeFileSync(path, `# engine\tfile\twall s\tcpu s (scripts/testTimes.mjs)\n${lines.join('\n')}\n`);
}
