// How the benchmarks end, in one place: the table written to its file and
// printed, and the process's exit code from the bench's main (1 with the
// error printed when it throws).
import { writeFile } from 'node:fs/promises';

/** A markdown table's head: the column names and the separator row. */
export function tableHead(columns: readonly string[]): string[] {
  return [`| ${columns.join(' | ')} |`, `|${columns.map(() => '---').join('|')}|`];
}

/** Writes what was measured (a paragraph a line), the table of `columns` and `rows`, and a blank line to `out`, and prints them. */
export async function writeTable(out: string, about: readonly string[], columns: readonly string[], rows: readonly string[]): Promise<void> {
  const table = [...about, '', ...tableHead(columns), ...rows, ''].join('\n');
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
