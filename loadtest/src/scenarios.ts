// Named presets reproducing the RD Gateway capacity whitepaper's experiments.
// Each capacity scenario expands into cases (one ramp each); parameters can be
// overridden from the command line.
import type { TrafficPattern } from './trafficPattern.js';

/**
 * `direct` = no relay: the client talks to the echo host itself (the floor);
 * `pipe` = the least a Node relay can do (pipeRelay.ts), the gateway's baseline;
 * `pipe-go` = the same in Go (generator-go/cmd/pipe-relay), the native floor.
 */
export type RelayKind = 'lanterna' | 'lanterna-native' | 'websockify' | 'direct' | 'pipe' | 'pipe-go';

/** The relays that are a Lanterna gateway: its Node engine, or its native data plane (`relay.engine: native`). */
export function isGatewayRelay(relay: RelayKind): relay is 'lanterna' | 'lanterna-native' {
  return relay === 'lanterna' || relay === 'lanterna-native';
}

export interface RampShape { step: number; max: number; holdSeconds: number }

export interface CapacityCase {
  id: string;
  scenario: string;
  relay: RelayKind;
  pattern: TrafficPattern;
  workers: number;
  instances: number;
  ramp: RampShape;
  /** The swept parameter, for tables and plots. */
  variable?: { name: 'packetBytes' | 'intervalMs' | 'workers' | 'instances'; value: number };
}

export interface ScenarioOverrides {
  maxConnections?: number | undefined;
  step?: number | undefined;
  holdSeconds?: number | undefined;
  relays?: RelayKind[] | undefined;
  upBytes?: number | undefined;
  downBytes?: number | undefined;
  intervalMs?: number | undefined;
  workers?: number | undefined;
  farmSizes?: number[] | undefined;
}

export type ScenarioKind = 'capacity' | 'throughput' | 'long-fat-network' | 'chaos' | 'soak';

export interface ScenarioDefinition {
  name: string;
  kind: ScenarioKind;
  description: string;
}

export const SCENARIOS: readonly ScenarioDefinition[] = [
  { name: 'kw-v1', kind: 'capacity', description: 'KW v1: 90 B each way every 100 ms, Lanterna vs websockify' },
  { name: 'kw-v2.2', kind: 'capacity', description: 'KW v2.2: 25 B up, 1669 B down every 200 ms, Lanterna vs websockify' },
  { name: 'packet-size', kind: 'capacity', description: 'packet size sweep 10..2000 B at 100 ms' },
  { name: 'frequency', kind: 'capacity', description: 'frequency sweep 10..1000 ms at 90 B' },
  { name: 'processors', kind: 'capacity', description: 'KW v1 with gateway workers 1..cores' },
  { name: 'farm', kind: 'capacity', description: 'KW v1 through HAProxy to 1..N gateway instances' },
  { name: 'throughput', kind: 'throughput', description: 'one session\'s MB/s through the gateway vs raw TLS on loopback' },
  { name: 'long-fat-network', kind: 'long-fat-network', description: '250 ms RTT (packet delay line between namespaces): throughput vs socket buffers' },
  { name: 'chaos', kind: 'chaos', description: 'kill -9 a gateway worker, then a whole instance behind HAProxy, under 1,000 page-like displays: reconnect times, bystanders undisturbed' },
  { name: 'soak', kind: 'soak', description: '500 displays of mixed traffic with churn for --duration-minutes (60): RSS, fds, timers, p99 over time' },
];

/** What `run --all` runs: the benchmarks, not the long or destructive runs (chaos, soak), which are named. */
export const ALL_SCENARIOS: readonly string[] = SCENARIOS.filter((scenario) => scenario.kind !== 'chaos' && scenario.kind !== 'soak').map((scenario) => scenario.name);

const KW_V1: TrafficPattern = { upBytes: 90, downBytes: 90, intervalMs: 100 };
const KW_V22: TrafficPattern = { upBytes: 25, downBytes: 1669, intervalMs: 200 };
const PACKET_SIZES = [10, 90, 200, 500, 1000, 2000];
const INTERVALS = [10, 100, 500, 1000];
/** 3 sockets per display on the gateway under a 20,000 fd limit, with headroom. */
const FD_SAFE_MAX = 5000;

function shaped(base: RampShape, overrides: ScenarioOverrides): RampShape {
  return {
    step: overrides.step ?? base.step,
    max: Math.min(overrides.maxConnections ?? base.max, FD_SAFE_MAX),
    holdSeconds: overrides.holdSeconds ?? base.holdSeconds,
  };
}

function patternWith(base: TrafficPattern, overrides: ScenarioOverrides): TrafficPattern {
  return { upBytes: overrides.upBytes ?? base.upBytes, downBytes: overrides.downBytes ?? base.downBytes, intervalMs: overrides.intervalMs ?? base.intervalMs };
}

const LANTERNA_RAMP: RampShape = { step: 200, max: 4000, holdSeconds: 5 };
const WEBSOCKIFY_RAMP: RampShape = { step: 50, max: 1000, holdSeconds: 5 };
const SWEEP_RAMP: RampShape = { step: 400, max: 4000, holdSeconds: 3 };
const FREQUENCY_SWEEP_MAX = 2400;

export function capacityCases(name: string, overrides: ScenarioOverrides, cpus: number): CapacityCase[] {
  const relays = overrides.relays ?? ['lanterna', 'websockify'];
  const workers = overrides.workers ?? 1;
  switch (name) {
    case 'kw-v1':
    case 'kw-v2.2': {
      const pattern = patternWith(name === 'kw-v1' ? KW_V1 : KW_V22, overrides);
      return relays.map((relay) => ({
        id: `${name}/${relay}`, scenario: name, relay, pattern, workers, instances: 1,
        ramp: shaped(relay === 'websockify' ? WEBSOCKIFY_RAMP : LANTERNA_RAMP, overrides),
      }));
    }
    case 'packet-size':
      return PACKET_SIZES.map((bytes) => ({
        id: `packet-size/${bytes}`, scenario: name, relay: 'lanterna' as const, workers, instances: 1,
        pattern: patternWith({ upBytes: bytes, downBytes: bytes, intervalMs: 100 }, { intervalMs: overrides.intervalMs }),
        ramp: shaped(SWEEP_RAMP, overrides), variable: { name: 'packetBytes' as const, value: bytes },
      }));
    case 'frequency':
      return INTERVALS.map((intervalMs) => {
        // the same offered packet rate per step whatever the interval
        const scale = intervalMs / 100;
        // opening thousands of TLS sessions is slow on 2 cores: long intervals stop at a lower bound
        const max = Math.min(Math.round(SWEEP_RAMP.max * scale), FREQUENCY_SWEEP_MAX);
        const base = { step: Math.min(max, Math.max(25, Math.round(SWEEP_RAMP.step * scale))), max, holdSeconds: Math.max(SWEEP_RAMP.holdSeconds, (3 * intervalMs) / 1000) };
        return {
          id: `frequency/${intervalMs}`, scenario: name, relay: 'lanterna' as const, workers, instances: 1,
          pattern: patternWith({ upBytes: 90, downBytes: 90, intervalMs }, { upBytes: overrides.upBytes, downBytes: overrides.downBytes }),
          ramp: shaped(base, { ...overrides, step: overrides.step === undefined ? undefined : Math.round(overrides.step * scale) }),
          variable: { name: 'intervalMs' as const, value: intervalMs },
        };
      });
    case 'processors':
      return Array.from({ length: cpus }, (_unused, index) => index + 1).map((count) => ({
        id: `processors/${count}`, scenario: name, relay: 'lanterna' as const, workers: count, instances: 1,
        pattern: patternWith(KW_V1, overrides), ramp: shaped(SWEEP_RAMP, overrides), variable: { name: 'workers' as const, value: count },
      }));
    case 'farm':
      return (overrides.farmSizes ?? Array.from({ length: cpus }, (_unused, index) => index + 1)).map((instances) => ({
        id: `farm/${instances}`, scenario: name, relay: 'lanterna' as const, workers: 1, instances,
        pattern: patternWith(KW_V1, overrides), ramp: shaped(SWEEP_RAMP, overrides), variable: { name: 'instances' as const, value: instances },
      }));
    default:
      throw new Error(`unknown capacity scenario ${name}`);
  }
}

export function findScenario(name: string): ScenarioDefinition {
  const found = SCENARIOS.find((scenario) => scenario.name === name);
  if (!found) throw new Error(`unknown scenario ${name} (known: ${SCENARIOS.map((scenario) => scenario.name).join(', ')})`);
  return found;
}
