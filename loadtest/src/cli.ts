#!/usr/bin/env node
// lanterna-loadtest: `run --scenario <name>` / `run --all` / `smoke`.
// Use loadtest/run-loadtest.sh, which raises the open-file limit first.
import os from 'node:os';
import { Command, Option } from 'commander';
import { ALL_SCENARIOS, SCENARIOS, type RelayKind } from './scenarios.js';
import { CHAOS_PHASES, REALTIME_INSTRUMENTS, type ChaosOptions, type ChaosPhase, type RealtimeInstrument } from './chaosRun.js';
import type { SoakMinute, SoakOptions } from './soakRun.js';
import { KW_V1_SHAPE, SOAK_MIX, shapeFromPattern } from './trafficShapes.js';
import { executePlan, type RunPlan } from './runPlan.js';
import { writeReport, DEFAULT_RESULTS_DIR } from './resultsWriter.js';
import { deriveFigures } from './runReport.js';
import { runSmoke } from './smokeRun.js';
import { NICENESS_ENV } from './managedProcess.js';
import type { GeneratorKind } from './goGenerator.js';
import type { EchoHostKind } from './echoHostProcess.js';

const int = (value: string): number => {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 0) throw new Error(`not a non-negative integer: ${value}`);
  return parsed;
};
const intList = (value: string): number[] => value.split(',').map(int);
const signedInt = (value: string): number => {
  const parsed = Number(value);
  if (!Number.isInteger(parsed)) throw new Error(`not an integer: ${value}`);
  return parsed;
};

const program = new Command().name('lanterna-loadtest').description('Lanterna gateway capacity against the 40 ms budget, after the RD Gateway capacity whitepaper');

program.command('list').description('list the scenarios').action(() => {
  for (const scenario of SCENARIOS) process.stdout.write(`${scenario.name.padEnd(18)} ${scenario.description}\n`);
});

program.command('run').description('run scenarios and write JSON, Markdown and HTML reports')
  .addOption(new Option('--scenario <names...>', 'scenario names').choices(SCENARIOS.map((scenario) => scenario.name)))
  .option('--all', 'every benchmark scenario, with bounded ramps (about 20 minutes; chaos and soak are run by name)')
  .option('--max-connections <n>', 'ramp limit per case', int)
  .option('--step <n>', 'connections added per step', int)
  .option('--hold-seconds <n>', 'measurement window per step', int)
  .option('--settle-seconds <n>', 'pause after opening a step\'s connections', int, 1)
  .addOption(new Option('--relay <kinds...>', 'relays for kw-v1/kw-v2.2 (direct = no relay, the floor; pipe = the minimal Node WebSocket → TLS relay; pipe-go = the same in Go; lanterna-native = the gateway with its native data plane)').choices(['lanterna', 'lanterna-native', 'websockify', 'direct', 'pipe', 'pipe-go']))
  .addOption(new Option('--generator <kind>', 'load generator: node, go (loadtest/generator-go), or auto (go when built)').choices(['auto', 'go', 'node']).default('auto'))
  .addOption(new Option('--echo-host <kind>', 'stand-in RDP server: node, go (loadtest/generator-go/cmd/echo-host), or auto (go when built)').choices(['auto', 'go', 'node']).default('auto'))
  .option('--kiosk-tls', 'the gateway\'s kiosk listener and the pipes serve TLS (a self-signed certificate made for the case) and both generators speak wss://, trusting only it; websockify stays ws://')
  .option('--relay-node-options <flags>', 'node flags for the relay process (gateway, pipe), space-separated, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof"')
  .option('--up-bytes <n>', 'request PDU size', int)
  .option('--down-bytes <n>', 'response PDU size', int)
  .option('--interval-ms <n>', 'request interval', int)
  .option('--workers <n>', 'gateway workers (kw-v1/kw-v2.2/sweeps; chaos: per instance, at least 2, default 2; soak: default 1)', int)
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
  .option('--sessions <n>', 'chaos: displays (default 1000); soak: displays (default 500)', int)
  .addOption(new Option('--chaos-phases <phases...>', 'chaos: what to kill').choices([...CHAOS_PHASES]).default([...CHAOS_PHASES]))
  .option('--reconnect-budget-ms <n>', 'chaos: every display on the victim relays again within this long', int, 5000)
  .option('--recovery-deadline-seconds <n>', 'chaos: how long to wait for stragglers', int, 30)
  .option('--session-age-seconds <n>', 'chaos: every session has run this long when the victim is killed (0: straight after the start-up, when signage still waits the short-session pause)', int, 35)
  .option('--fleets <n>', 'chaos/soak: processes that run the simulated displays', int, 2)
  .option('--probe-displays <n>', 'chaos: displays run by a probe fleet of their own, whose nearly idle loop shows the gateway\'s share of a bystander\'s stall (0: none)', int, 50)
  .option('--load-side-nice <n>', 'chaos: niceness of the regular fleets and their echo host (the gateway and the probe run at --nice): on a LAN they are other machines', signedInt, 10)
  .addOption(new Option('--realtime-instruments <which...>', 'chaos: instruments under SCHED_RR once every display relays, as machines of their own would be: the probe fleet with its echo host, HAProxy (the site\'s load balancer); "none" for neither').choices([...REALTIME_INSTRUMENTS, 'none']).default([...REALTIME_INSTRUMENTS]))
  .option('--bystander-stall-ms <n>', 'chaos: the probe fleet\'s bystanders may stall at most this long', int, 100)
  .option('--duration-minutes <n>', 'soak: length of the run', int, 60)
  .option('--churn-percent <n>', 'soak: pages closed and reopened each minute, % of the displays', Number, 3)
  .option('--nice <n>', 'niceness of every process the run starts (negative needs root)', (value: string) => String(Number.parseInt(value, 10)), '-10')
  .action(async (options: {
    scenario?: string[]; all?: boolean; maxConnections?: number; step?: number; holdSeconds?: number; settleSeconds: number; relay?: RelayKind[];
    upBytes?: number; downBytes?: number; intervalMs?: number; workers?: number; farmSizes?: number[]; generators: number; budgetMs: number;
    stopP99Ms: number; caseDeadlineSeconds: number; generatorMaxCpu: number; generatorMaxLagMs: number; connectConcurrency: number; confirmHolds: number;
    throughputSeconds: number; lfnBuffers: number[]; lfnSeconds: number; resultsDir: string; name?: string; nice: string;
    generator: GeneratorKind | 'auto'; echoHost: EchoHostKind | 'auto'; relayNodeOptions?: string; kioskTls?: boolean;
    sessions?: number; chaosPhases: ChaosPhase[]; reconnectBudgetMs: number; recoveryDeadlineSeconds: number; sessionAgeSeconds: number; fleets: number; probeDisplays: number; bystanderStallMs: number; loadSideNice: number; realtimeInstruments: (RealtimeInstrument | 'none')[];
    durationMinutes: number; churnPercent: number;
  }) => {
    process.env[NICENESS_ENV] = options.nice;
    const scenarios = options.all === true ? [...ALL_SCENARIOS] : options.scenario ?? [];
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
        generator: options.generator, echoHost: options.echoHost, relayNodeOptions: options.relayNodeOptions?.split(' ').filter((flag) => flag !== ''),
        kioskTls: options.kioskTls === true,
      },
      throughputSeconds: options.throughputSeconds, lfnBufferBytes: options.lfnBuffers, lfnSeconds: options.lfnSeconds,
      showProgress: true, command: `lanterna-loadtest ${process.argv.slice(2).join(' ')}`,
      chaos: scenarios.includes('chaos') ? chaosOptions(options) : undefined,
      soak: scenarios.includes('soak') ? soakOptions(options) : undefined,
    };
    const report = await executePlan(plan);
    const written = await writeReport(report, options.resultsDir, options.name ?? report.startedAt.replace(/[:.]/g, '-'));
    const chaos = report.chaos.map((result) => ({ phase: result.phase, victim: result.victim, reconnect: result.reconnect, bystanders: result.bystanders, beforeTheKill: result.baseline, probe: result.probe, verdict: result.verdict, error: result.error }));
    const soak = report.soak.map((result) => ({ figures: result.figures, blocks: result.blocks.map((block) => ({ minutes: `${block.fromMinute}-${block.toMinute}`, p99Ms: block.latency.p99Ms, loadAverage: block.loadAverage })), error: result.error }));
    process.stdout.write(`${JSON.stringify({ report: written, derived: deriveFigures(report), ...(chaos.length > 0 ? { chaos } : {}), ...(soak.length > 0 ? { soak } : {}) }, null, 2)}\n`);
  });

program.command('smoke').description('a few hundred connections for a few seconds through the gateway and websockify')
  .option('--connections <n>', 'connections per relay', int, 200)
  .option('--results-dir <dir>', 'where the run folder goes', DEFAULT_RESULTS_DIR)
  .action(async (options: { connections: number; resultsDir: string }) => {
    const { report, written } = await runSmoke({ connections: options.connections, resultsDir: options.resultsDir, showProgress: true });
    process.stdout.write(`${JSON.stringify({ report: written, cases: report.capacity.map((result) => ({ id: result.case.id, error: result.error, steps: result.steps.map((step) => ({ connections: step.connections, latency: step.latency })) })) }, null, 2)}\n`);
  });

const progressLine = (text: string): void => { process.stderr.write(`${new Date().toISOString().slice(11, 19)} ${text}\n`); };

function chaosOptions(options: { sessions?: number; chaosPhases: ChaosPhase[]; workers?: number; fleets: number; probeDisplays: number; bystanderStallMs: number; loadSideNice: number; realtimeInstruments: (RealtimeInstrument | 'none')[]; reconnectBudgetMs: number; budgetMs: number;
  recoveryDeadlineSeconds: number; sessionAgeSeconds: number; upBytes?: number; downBytes?: number; intervalMs?: number }): ChaosOptions {
  const sessions = options.sessions ?? 1000;
  return {
    sessions, phases: options.chaosPhases,
    shape: shapeFromPattern({ upBytes: options.upBytes ?? KW_V1_SHAPE.upBytes, downBytes: options.downBytes ?? KW_V1_SHAPE.downBytes, intervalMs: options.intervalMs ?? KW_V1_SHAPE.intervalMs }, 'chaos'),
    workers: Math.max(2, options.workers ?? 2), fleets: options.fleets,
    reconnectBudgetMs: options.reconnectBudgetMs, latencyBudgetMs: options.budgetMs, recoveryDeadlineMs: options.recoveryDeadlineSeconds * 1000,
    // about 40 new displays a second: a building's screens after a power cut, not all in one instant
    startSpreadMs: sessions * 25, startDeadlineMs: sessions * 25 + 120_000,
    sessionAgeMs: options.sessionAgeSeconds * 1000, baselineMs: 5000, afterMs: 2000, onPhase: progressLine,
    probeDisplays: options.probeDisplays, bystanderStallBudgetMs: options.bystanderStallMs, loadSideNiceness: options.loadSideNice,
    realtimeInstruments: options.realtimeInstruments.filter((which): which is RealtimeInstrument => which !== 'none'),
  };
}

function soakOptions(options: { sessions?: number; durationMinutes: number; workers?: number; fleets: number; churnPercent: number }): SoakOptions {
  const sessions = options.sessions ?? 500;
  return {
    sessions, durationMinutes: options.durationMinutes, workers: options.workers ?? 1, fleets: options.fleets,
    churnPercentPerMinute: options.churnPercent, churnPauseMs: 5000, minuteMs: 60_000,
    startSpreadMs: sessions * 25, startDeadlineMs: sessions * 25 + 120_000, mix: SOAK_MIX,
    onPhase: progressLine,
    onMinute: (minute: SoakMinute) => progressLine(`[soak] minute ${minute.minute}: RSS ${(minute.gateway.rssBytes / 2 ** 20).toFixed(1)} MB (heap new/old ${((minute.gateway.heapSpaceTotalBytes.new ?? 0) / 2 ** 20).toFixed(1)}/${((minute.gateway.heapSpaceTotalBytes.old ?? 0) / 2 ** 20).toFixed(1)} MB), fds ${minute.gateway.openFds}, timers ${minute.gateway.timers ?? minute.gateway.resources.Timeout ?? 0}, relaying ${minute.relaying}, p99 ${minute.latency.p99Ms} ms, losses ${minute.losses}, load ${minute.loadAverage}`),
  };
}

await program.parseAsync();
