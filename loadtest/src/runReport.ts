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
    /** The minimal Go relay (`--relay pipe-go`) on one core, and the gateway's capacity as a share of it. */
    pipeGo?: number | undefined; pipeGoRatio?: number | undefined;
    /** The gateway with its native data plane (`--relay lanterna-native`) per core, and that as a share of pipe-go. */
    native?: number | undefined; nativeToPipeGo?: number | undefined;
    /** Relay CPU µs per round trip at the largest step every one of them that ran reached: gateway, pipe, pipe-go. */
    cpuPerRoundTrip?: RelayCostAtSharedStep | undefined;
    /** What each relay's kiosk leg spoke (ws or wss: `--kiosk-tls`), so a ratio is seen to be like for like. */
    kioskSchemes: { lanterna?: KioskScheme | undefined; websockify?: KioskScheme | undefined; pipe?: KioskScheme | undefined; 'pipe-go'?: KioskScheme | undefined; 'lanterna-native'?: KioskScheme | undefined };
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

export interface RelayCostAtSharedStep {
  connections: number;
  lanternaUs: number | undefined;
  pipeUs: number | undefined;
  pipeGoUs?: number | undefined;
  nativeUs?: number | undefined;
}

/** Relay CPU per round trip of the gateway and the pipes at the largest connection count all of those that ran (two at least) reached. */
function sharedStepCost(lanterna: CaseResult | undefined, pipe: CaseResult | undefined, pipeGo: CaseResult | undefined, native: CaseResult | undefined): RelayCostAtSharedStep | undefined {
  const ran = [lanterna, pipe, pipeGo, native].filter((result): result is CaseResult => result !== undefined);
  if (ran.length < 2) return undefined;
  const shared = ran[0]?.steps.map((step) => step.connections)
    .filter((connections) => ran.every((result) => result.steps.some((step) => step.connections === connections))).at(-1);
  if (shared === undefined) return undefined;
  const costAt = (result: CaseResult | undefined): number | undefined => result?.steps.find((step) => step.connections === shared)?.relayCpuUsPerRoundTrip;
  return { connections: shared, lanternaUs: costAt(lanterna), pipeUs: costAt(pipe), ...(pipeGo ? { pipeGoUs: costAt(pipeGo) } : {}), ...(native ? { nativeUs: costAt(native) } : {}) };
}

export function deriveFigures(report: RunReport): DerivedFigures {
  const perCore: DerivedFigures['perCore'] = {};
  for (const scenario of ['kw-v1', 'kw-v2.2']) {
    const lanterna = capacityOf(report, `${scenario}/lanterna`);
    const websockify = capacityOf(report, `${scenario}/websockify`);
    const pipe = capacityOf(report, `${scenario}/pipe`);
    const pipeGo = capacityOf(report, `${scenario}/pipe-go`);
    const native = capacityOf(report, `${scenario}/lanterna-native`);
    if (!lanterna && !websockify && !pipe && !pipeGo && !native) continue;
    const nativePerCore = native ? native.capacity.byP99 / (native.case.workers * native.case.instances) : undefined;
    const lanternaPerCore = lanterna ? lanterna.capacity.byP99 / (lanterna.case.workers * lanterna.case.instances) : undefined;
    const websockifyPerCore = websockify?.capacity.byP99;
    perCore[scenario] = {
      lanterna: lanternaPerCore,
      websockify: websockifyPerCore,
      ratio: lanternaPerCore !== undefined && websockifyPerCore !== undefined && websockifyPerCore > 0 ? lanternaPerCore / websockifyPerCore : undefined,
      ...(pipe ? {
        pipe: pipe.capacity.byP99,
        pipeRatio: lanternaPerCore !== undefined && pipe.capacity.byP99 > 0 ? lanternaPerCore / pipe.capacity.byP99 : undefined,
      } : {}),
      ...(pipeGo ? {
        pipeGo: pipeGo.capacity.byP99,
        pipeGoRatio: lanternaPerCore !== undefined && pipeGo.capacity.byP99 > 0 ? lanternaPerCore / pipeGo.capacity.byP99 : undefined,
      } : {}),
      ...(native ? {
        native: nativePerCore,
        nativeToPipeGo: nativePerCore !== undefined && pipeGo && pipeGo.capacity.byP99 > 0 ? nativePerCore / pipeGo.capacity.byP99 : undefined,
      } : {}),
      ...(pipe || pipeGo || native ? { cpuPerRoundTrip: sharedStepCost(lanterna, pipe, pipeGo, native) } : {}),
      kioskSchemes: {
        lanterna: lanterna?.kioskScheme, websockify: websockify?.kioskScheme, pipe: pipe?.kioskScheme,
        ...(pipeGo ? { 'pipe-go': pipeGo.kioskScheme } : {}),
        ...(native ? { 'lanterna-native': native.kioskScheme } : {}),
      },
      lowerBound: [lanterna, websockify, pipe, pipeGo, native].some((result) => result?.capacity.lowerBoundOnly ?? false),
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
