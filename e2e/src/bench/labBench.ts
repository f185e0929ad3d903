// The frame of a bench that measures in a lab of its own and prints its
// table as it goes, a row per case: the heading and the table's head first,
// the lab closed whatever happens, the lines written to `--out` when given,
// and exit code 1 when a case failed.
import { writeFile } from 'node:fs/promises';
import { Lab } from '@lanterna/lab';
import { tableHead } from './benchRun.js';

export interface LabBench {
  readonly lab: Lab;
  /** Prints a line and keeps it for the file. */
  readonly say: (line: string) => void;
  /** A case failed (no picture, a source that never drew): the bench exits 1 after the rest. */
  readonly fail: () => void;
}

export async function runLabBench(options: { labName: string; out: string | undefined; heading: string; columns: readonly string[] }, measure: (bench: LabBench) => Promise<void>): Promise<void> {
  const lines: string[] = [];
  const say = (line: string): void => { console.log(line); lines.push(line); };
  say(options.heading);
  tableHead(options.columns).forEach(say);
  const lab = await Lab.create({ name: options.labName });
  const outcome = { failed: false };
  try {
    await measure({ lab, say, fail: () => { outcome.failed = true; } });
  } finally {
    await lab.close();
  }
  if (options.out) await writeFile(options.out, `${lines.join('\n')}\n`);
  if (outcome.failed) process.exitCode = 1;
}
