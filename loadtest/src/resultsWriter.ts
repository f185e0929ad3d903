// Writes a run's report.json, report.md and report.html into its own folder
// under loadtest/results/ (git-ignored).
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { RunReport } from './runReport.js';
import { deriveFigures } from './runReport.js';
import { markdownReport } from './markdownReport.js';
import { htmlReport } from './htmlReport.js';

export const DEFAULT_RESULTS_DIR = fileURLToPath(new URL('../results', import.meta.url));

export interface WrittenReport { dir: string; json: string; markdown: string; html: string }

export async function writeReport(report: RunReport, resultsDir: string, runName: string): Promise<WrittenReport> {
  const dir = join(resultsDir, runName);
  await mkdir(dir, { recursive: true });
  const files = { dir, json: join(dir, 'report.json'), markdown: join(dir, 'report.md'), html: join(dir, 'report.html') };
  await writeFile(files.json, `${JSON.stringify({ ...report, derived: deriveFigures(report) }, null, 2)}\n`);
  await writeFile(files.markdown, markdownReport(report));
  await writeFile(files.html, htmlReport(report));
  return files;
}
