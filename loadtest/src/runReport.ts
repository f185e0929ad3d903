// The run's result model and the figures derived from it (per-core
// capacities, websockify ratio, farm scaling), kept apart from rendering.
import type { CaseResult, KioskScheme } from './capacityCaseRunner.js';
import type { ChaosPhaseResult } from './chaosRun.js';
import type { SoakResult } from './soakRun.js';

export interface ThroughputResult {
  path: 'raw-tls' | 'lanterna' | 'websockify';
  pduBytes: number;
  seconds: number;
  megabytesPerSecond: number;
  relayCpuCores: number | undefined;
  error: string | undefined;
}

export interface LongFatNetworkResult {
  rttMs: number;
  bufferBytes: number;
  path: 'raw-tls' | 'lanterna';
  megabytesPerSecond: number;
  /** Window-limited ceiling: buffer / RTT (before TCP's own overhead share). */
  windowLimitMegabytesPerSecond: number;
  error: string | undefined;
}

export interface MachineInfo {
  cpus: number;
  cpuModel: string;
  kernel: string;
  node: string;
  memoryGiB: number;
  fdLimit: string;
}

export interface RunReport {
  startedAt: string;
  finishedAt: string;
  command: string;
  machine: MachineInfo;
  budgetMs: number;
  /** 1-minute load averages seen at the start and end of the run: other work on the machine skews every figure. */
  loadAverage: { start: number; end: number };
  capacity: CaseResult[];
  throughput: ThroughputResult[];
  longFatNetwork: LongFatNetworkResult[];
  chaos: ChaosPhaseResult[];
  soak: SoakResult[];
}

export interface DerivedFigures {
  /** Per scenario: p99 capacity of one gateway worker (pinned to one core). */
  perCore: Record<string, {
    lanterna: number | undefined; websockify: number | undefined; ratio: number | undefined;
    /** The minimal Node relay (`--relay pipe`) on one core, and the gateway's capacity as a share of it. */
    pipe?: number | undefined; pipeRatio?: number | undefined;
    /** Relay CPU µs per round trip at the largest step both reached: gateway, pipe, and their ratio. */
    cpuPerRoundTrip?: { connections: number; lanternaUs: number | undefined; pipeUs: number | undefined } | undefined;
    /** What each relay's kiosk leg spoke (ws or wss: `--kiosk-tls`), so a ratio is seen to be like for like. */
    kioskSchemes: { lanterna?: KioskScheme | undefined; websockify?: KioskScheme | undefined; pipe?: KioskScheme | undefined };
    lowerBound: boolean;
  }>;
  /** Capacity added by each server past the first, as a fraction of one server's capacity. */
  farmScaling: number | undefined;
  /** Capacity with N workers over capacity with one. */
  processorScaling: { workers: number; capacity: number; speedup: number }[];
}

function capacityOf(report: RunReport, id: string): CaseResult | undefined {
  return report.capacity.find((result) => result.case.id === id && result.error === undefined);
}

/** Relay CPU per round trip of the gateway and the pipe at the largest connection count both held. */
function sharedStepCost(lanterna: CaseResult | undefined, pipe: CaseResult): { connections: number; lanternaUs: number | undefined; pipeUs: number | undefined } | undefined {
  if (!lanterna) return undefined;
  const pipeSteps = new Map(pipe.steps.map((step) => [step.connections, step]));
  const shared = lanterna.steps.filter((step) => pipeSteps.has(step.connections)).at(-1);
  if (!shared) return undefined;
  return { connections: shared.connections, lanternaUs: shared.relayCpuUsPerRoundTrip, pipeUs: pipeSteps.get(shared.connections)?.relayCpuUsPerRoundTrip };
}

export function deriveFigures(report: RunReport): DerivedFigures {
  const perCore: DerivedFigures['perCore'] = {};
  for (const scenario of ['kw-v1', 'kw-v2.2']) {
    const lanterna = capacityOf(report, `${scenario}/lanterna`);
    const websockify = capacityOf(report, `${scenario}/websockify`);
    const pipe = capacityOf(report, `${scenario}/pipe`);
    if (!lanterna && !websockify && !pipe) continue;
    const lanternaPerCore = lanterna ? lanterna.capacity.byP99 / (lanterna.case.workers * lanterna.case.instances) : undefined;
    const websockifyPerCore = websockify?.capacity.byP99;
    perCore[scenario] = {
      lanterna: lanternaPerCore,
      websockify: websockifyPerCore,
      ratio: lanternaPerCore !== undefined && websockifyPerCore !== undefined && websockifyPerCore > 0 ? lanternaPerCore / websockifyPerCore : undefined,
      ...(pipe ? {
        pipe: pipe.capacity.byP99,
        pipeRatio: lanternaPerCore !== undefined && pipe.capacity.byP99 > 0 ? lanternaPerCore / pipe.capacity.byP99 : undefined,
        cpuPerRoundTrip: sharedStepCost(lanterna, pipe),
      } : {}),
      kioskSchemes: { lanterna: lanterna?.kioskScheme, websockify: websockify?.kioskScheme, pipe: pipe?.kioskScheme },
      lowerBound: (lanterna?.capacity.lowerBoundOnly ?? false) || (websockify?.capacity.lowerBoundOnly ?? false) || (pipe?.capacity.lowerBoundOnly ?? false),
    };
  }
  const farm = report.capacity.filter((result) => result.case.scenario === 'farm' && result.error === undefined)
    .sort((a, b) => a.case.instances - b.case.instances);
  let farmScaling: number | undefined;
  const first = farm[0];
  const last = farm[farm.length - 1];
  if (first && last && first.case.instances === 1 && last.case.instances > 1 && first.capacity.byP99 > 0) {
    farmScaling = (last.capacity.byP99 - first.capacity.byP99) / first.capacity.byP99 / (last.case.instances - 1);
  }
  const processors = report.capacity.filter((result) => result.case.scenario === 'processors' && result.error === undefined)
    .sort((a, b) => a.case.workers - b.case.workers);
  const base = processors[0]?.capacity.byP99 ?? 0;
  const processorScaling = processors.map((result) => ({
    workers: result.case.workers, capacity: result.capacity.byP99, speedup: base > 0 ? result.capacity.byP99 / base : 0,
  }));
  return { perCore, farmScaling, processorScaling };
}
