// The smoke run CI uses: a small, short ramp through the real gateway and
// through websockify, to prove the harness works end to end.
import os from 'node:os';
import { executePlan } from './runPlan.js';
import { writeReport, type WrittenReport } from './resultsWriter.js';
import type { RunReport } from './runReport.js';

export async function runSmoke(options: { connections: number; resultsDir: string; showProgress: boolean }): Promise<{ report: RunReport; written: WrittenReport }> {
  const half = Math.max(1, Math.floor(options.connections / 2));
  const report = await executePlan({
    scenarios: ['kw-v1'],
    overrides: { step: half, maxConnections: half * 2, holdSeconds: 2 },
    settings: {
      cpus: os.availableParallelism(), generators: 1, budgetMs: 40,
      // no early stop: the smoke run checks plumbing, not performance
      stopP99Ms: Number.POSITIVE_INFINITY,
      settleSeconds: 1, caseDeadlineSeconds: 60,
      saturation: { cpuCores: 0.9, loopDelayMs: 15 }, connectConcurrency: 32, connectTimeoutMs: 15_000, confirmHolds: 0,
    },
    throughputSeconds: 1, lfnBufferBytes: [], lfnSeconds: 1,
    showProgress: options.showProgress,
    command: `lanterna-loadtest smoke --connections ${options.connections}`,
  });
  const written = await writeReport(report, options.resultsDir, `smoke-${report.startedAt.replace(/[:.]/g, '-')}`);
  return { report, written };
}
