#!/usr/bin/env node
// lanterna-loadtest: `run --scenario <name>` / `run --all` / `smoke`.
// Use loadtest/run-loadtest.sh, which raises the open-file limit first.
import os from 'node:os';
import { Command, Option } from 'commander';
import { SCENARIOS, type RelayKind } from './scenarios.js';
import { executePlan, type RunPlan } from './runPlan.js';
import { writeReport, DEFAULT_RESULTS_DIR } from './resultsWriter.js';
import { deriveFigures } from './runReport.js';
import { runSmoke } from './smokeRun.js';
import { NICENESS_ENV } from './managedProcess.js';

const int = (value: string): number => {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 0) throw new Error(`not a non-negative integer: ${value}`);
  return parsed;
};
const intList = (value: string): number[] => value.split(',').map(int);

const program = new Command().name('lanterna-loadtest').description('Lanterna gateway capacity against the 40 ms budget, after the RD Gateway capacity whitepaper');

program.command('list').description('list the scenarios').action(() => {
  for (const scenario of SCENARIOS) process.stdout.write(`${scenario.name.padEnd(18)} ${scenario.description}\n`);
});

program.command('run').description('run scenarios and write JSON, Markdown and HTML reports')
  .addOption(new Option('--scenario <names...>', 'scenario names').choices(SCENARIOS.map((scenario) => scenario.name)))
  .option('--all', 'every scenario, with bounded ramps (about 20 minutes)')
  .option('--max-connections <n>', 'ramp limit per case', int)
  .option('--step <n>', 'connections added per step', int)
  .option('--hold-seconds <n>', 'measurement window per step', int)
  .option('--settle-seconds <n>', 'pause after opening a step\'s connections', int, 1)
  .addOption(new Option('--relay <kinds...>', 'relays for kw-v1/kw-v2.2 (direct = no relay, the floor)').choices(['lanterna', 'websockify', 'direct']))
  .option('--up-bytes <n>', 'request PDU size', int)
  .option('--down-bytes <n>', 'response PDU size', int)
  .option('--interval-ms <n>', 'request interval', int)
  .option('--workers <n>', 'gateway workers (kw-v1/kw-v2.2/sweeps)', int)
  .option('--farm-sizes <list>', 'gateway instances for the farm scenario, e.g. 1,2', intList)
  .option('--generators <n>', 'generator processes', int, 1)
  .option('--budget-ms <n>', 'response-time budget', int, 40)
  .option('--stop-p99-ms <n>', 'stop a ramp once p99 passes this', int, 150)
  .option('--case-deadline-seconds <n>', 'no new step after this long in one case', int, 150)
  .option('--generator-max-cpu <cores>', 'generator CPU that marks a step generator-saturated', Number, 0.9)
  .option('--generator-max-lag-ms <ms>', 'generator event-loop delay p99 that marks a step generator-saturated', Number, 15)
  .option('--confirm-holds <n>', 'extra holds of a step that crossed the budget before the crossing counts', int, 1)
  .option('--connect-concurrency <n>', 'connections opened in parallel per generator', int, 32)
  .option('--throughput-seconds <n>', 'measured seconds per throughput path', int, 4)
  .option('--lfn-buffers <list>', 'socket buffer ceilings (bytes) for long-fat-network', intList, [65_536, 262_144, 1_048_576, 4_194_304, 16_777_216])
  .option('--lfn-seconds <n>', 'measured seconds per long-fat-network point', int, 4)
  .option('--results-dir <dir>', 'where run folders go', DEFAULT_RESULTS_DIR)
  .option('--name <name>', 'run folder name (default: timestamp)')
  .option('--nice <n>', 'niceness of every process the run starts (negative needs root)', (value: string) => String(Number.parseInt(value, 10)), '-10')
  .action(async (options: {
    scenario?: string[]; all?: boolean; maxConnections?: number; step?: number; holdSeconds?: number; settleSeconds: number; relay?: RelayKind[];
    upBytes?: number; downBytes?: number; intervalMs?: number; workers?: number; farmSizes?: number[]; generators: number; budgetMs: number;
    stopP99Ms: number; caseDeadlineSeconds: number; generatorMaxCpu: number; generatorMaxLagMs: number; connectConcurrency: number; confirmHolds: number;
    throughputSeconds: number; lfnBuffers: number[]; lfnSeconds: number; resultsDir: string; name?: string; nice: string;
  }) => {
    process.env[NICENESS_ENV] = options.nice;
    const scenarios = options.all === true ? SCENARIOS.map((scenario) => scenario.name) : options.scenario ?? [];
    if (scenarios.length === 0) throw new Error('name a --scenario or use --all');
    const plan: RunPlan = {
      scenarios,
      overrides: {
        maxConnections: options.maxConnections, step: options.step, holdSeconds: options.holdSeconds, relays: options.relay,
        upBytes: options.upBytes, downBytes: options.downBytes, intervalMs: options.intervalMs, workers: options.workers, farmSizes: options.farmSizes,
      },
      settings: {
        cpus: os.availableParallelism(), generators: options.generators, budgetMs: options.budgetMs, stopP99Ms: options.stopP99Ms,
        settleSeconds: options.settleSeconds, caseDeadlineSeconds: options.caseDeadlineSeconds,
        saturation: { cpuCores: options.generatorMaxCpu, loopDelayMs: options.generatorMaxLagMs },
        connectConcurrency: options.connectConcurrency, connectTimeoutMs: 15_000, confirmHolds: options.confirmHolds,
      },
      throughputSeconds: options.throughputSeconds, lfnBufferBytes: options.lfnBuffers, lfnSeconds: options.lfnSeconds,
      showProgress: true, command: `lanterna-loadtest ${process.argv.slice(2).join(' ')}`,
    };
    const report = await executePlan(plan);
    const written = await writeReport(report, options.resultsDir, options.name ?? report.startedAt.replace(/[:.]/g, '-'));
    process.stdout.write(`${JSON.stringify({ report: written, derived: deriveFigures(report) }, null, 2)}\n`);
  });

program.command('smoke').description('a few hundred connections for a few seconds through the gateway and websockify')
  .option('--connections <n>', 'connections per relay', int, 200)
  .option('--results-dir <dir>', 'where the run folder goes', DEFAULT_RESULTS_DIR)
  .action(async (options: { connections: number; resultsDir: string }) => {
    const { report, written } = await runSmoke({ connections: options.connections, resultsDir: options.resultsDir, showProgress: true });
    process.stdout.write(`${JSON.stringify({ report: written, cases: report.capacity.map((result) => ({ id: result.case.id, error: result.error, steps: result.steps.map((step) => ({ connections: step.connections, latency: step.latency })) })) }, null, 2)}\n`);
  });

await program.parseAsync();
