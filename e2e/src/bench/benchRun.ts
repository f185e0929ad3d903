// How the benchmarks end, in one place: the table written to its file and
// printed, and the process's exit code from the bench's main (1 with the
// error printed when it throws).
import { writeFile } from 'node:fs/promises';

/** Writes the header lines, the rows and a blank line to `out`, and prints them. */
export async function writeTable(out: string, header: readonly string[], rows: readonly string[]): Promise<void> {
  const table = [...header, ...rows, ''].join('\n');
  await writeFile(out, table);
  console.log(`\n${table}\nwritten to ${out}`);
}

/** Runs a bench's main: its resolved value is the exit code. */
export function runBench(main: () => Promise<number>): void {
  main().then((code) => { process.exitCode = code; }, (error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
}
