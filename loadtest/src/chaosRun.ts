// The chaos scenario: a fleet of page-like displays relays through real
// gateway processes, then something dies with `kill -9` — one cluster worker
// of a gateway (phase `worker`), or a whole gateway instance behind HAProxy
// (phase `instance`). Which displays had a socket in the victim is read
// before the kill, independently of the displays (worker: /proc; instance:
// each instance's admin API). The run times each of those displays from the
// kill to its session relaying again, and checks that every other display
// kept relaying: no loss, no stall past the latency budget.
import { randomBytes } from 'node:crypto';
import { startEchoHostProcess, type EchoHostProcess } from './echoHostProcess.js';
import { buildDisplayRoster, type DisplayIdentity } from './displayRoster.js';
import { startGateway, type GatewayInstance } from './gatewayInstance.js';
import { startHaproxy, type HaproxyInstance } from './haproxyInstance.js';
import { FleetPool } from './fleetPool.js';
import type { FleetDisplay, FleetWindow } from './fleetProtocol.js';
import type { DisplayWindow } from './pageLikeDisplay.js';
import { childrenOf, descendantsOf, describeChildren } from './processTreeUsage.js';
import { runInRealTime } from './realtimeScheduling.js';
import { endpointKey, ownersByPeer } from './socketOwners.js';
import { onlineDisplays } from './gatewayAdmin.js';
import { summarizeEncoded, type LatencySummary } from './latencyHistogram.js';
import { oneMinuteLoad } from './machineInfo.js';
import type { TrafficShape } from './trafficShapes.js';
import { percentile } from './percentile.js';
import { endRun } from './stopInReverse.js';

export type ChaosPhase = 'worker' | 'instance';
export const CHAOS_PHASES: readonly ChaosPhase[] = ['worker', 'instance'];

export interface ChaosOptions {
  sessions: number;
  phases: readonly ChaosPhase[];
  shape: TrafficShape;
  /** Cluster workers per gateway instance (at least 2 for the worker phase). */
  workers: number;
  fleets: number;
  /** Every display on the victim must relay again within this long after the kill. */
  reconnectBudgetMs: number;
  /** Displays elsewhere may not stall longer than this (beyond their request interval). */
  latencyBudgetMs: number;
  /** How long the run waits for stragglers before it reports them as not back. */
  recoveryDeadlineMs: number;
  /** The fleet's displays start spread over this long. */
  startSpreadMs: number;
  startDeadlineMs: number;
  /**
   * Every display has relayed at least this long when the victim is killed
   * (the window before the kill counts). A room's screen has usually been
   * showing for a while; a signage display whose session was younger than the
   * gateway's stable-session mark (30 s) waits the short-session pause before
   * it is projected again. 0: kill straight after the start-up.
   */
  sessionAgeMs: number;
  /** A window before the kill, measured the same way: what the bystanders see without a kill, on this machine now. */
  baselineMs: number;
  /** Relaying after the last display is back, inside the window. */
  afterMs: number;
  /**
   * Displays run by a probe fleet of their own (0: none): a process that
   * reconnects few displays, so its displays' stalls are the gateway's share
   * (the other fleets' event loops are held up by their own reconnect storm).
   */
  probeDisplays: number;
  /** Finding 7 of issue 31: a bystander of the probe fleet may stall at most this long. */
  bystanderStallBudgetMs: number;
  /**
   * Niceness of the load side's processes (the regular fleets and their echo
   * host; undefined: the run's, as the gateway's). On a LAN the displays and
   * the presenters' computers are other machines; here they share two cores
   * with the gateway, and Linux's autogroups give each of their processes as
   * much CPU as the whole gateway. The probe fleet and its echo host, the
   * instrument, run at the run's niceness, as the gateway does.
   */
  loadSideNiceness: number | undefined;
  /**
   * Which instruments run under SCHED_RR from the moment every display
   * relays (realtimeScheduling.ts): the probe fleet with its echo host, and
   * HAProxy, the site's load balancer. Not from the start: set before the
   * fleet had connected, one run reached only 986 of 1,000 displays relaying
   * in 145 s (not followed up; the window measured is the kill's).
   */
  realtimeInstruments: readonly RealtimeInstrument[];
  onPhase?: (text: string) => void;
}

export interface ReconnectFigures {
  /** Displays that had a socket in the victim. */
  displays: number;
  back: number;
  backWithinBudget: number;
  /** Never relayed again before the recovery deadline. */
  notBack: number;
  p50Ms: number | undefined;
  p95Ms: number | undefined;
  maxMs: number | undefined;
  /** Displays on the victim that noticed nothing (their sockets were there: should be none). */
  noticedNothing: number;
  recovery: RecoveryBreakdown;
}

/** Percentiles (ms from the kill) over the displays that reached a step. */
export interface StepTimes { displays: number; p50Ms: number | undefined; p95Ms: number | undefined }

/** Where the victims' reconnect time went: what they lost first, how often they knocked, and when each step came. */
export interface RecoveryBreakdown {
  /** Displays by their first loss (the control socket, or only their session). */
  firstLosses: Record<string, number>;
  /** Control sockets opened before the first response, over the displays that opened any. */
  attemptsP50: number | undefined;
  attemptsMax: number;
  welcome: StepTimes;
  project: StepTimes;
}

export interface BystanderFigures {
  displays: number;
  /** Displays that lost something though none of their sockets were in the victim: must be 0. */
  disturbed: number;
  /** Their losses in all (control sockets, sessions, failed opens): must be 0. */
  errors: number;
  firstError: string | undefined;
  /** Longest round trip of any bystander in the window. */
  maxRoundTripMs: number;
  /** p99 over bystanders of each one's longest round trip. */
  p99OfMaxRoundTripMs: number;
  /** Longest time between two responses of a bystander's session, less the request interval. */
  maxStallMs: number;
}

/** The probe fleet's own figures: the gateway's share of what bystanders see. */
export interface ProbeFigures {
  displays: number;
  /** Its displays that were on the victim: their reconnect is the gateway's, not slowed by a fleet's own storm. */
  reconnect: ReconnectFigures;
  bystanders: BystanderFigures;
  baseline: BystanderFigures;
  /** Its event loop, held up how long at most in the window (small: it reconnects few displays). */
  loopDelayMaxMs: number;
  cpuCores: number;
}

export interface ChaosPhaseResult {
  phase: ChaosPhase;
  sessions: number;
  instances: number;
  workersPerInstance: number;
  shape: TrafficShape;
  victim: string;
  /** Displays whose sockets could not be placed in any process (or instance) before the kill. */
  unplaced: number;
  /** Displays with the control socket in one worker and the data socket in another. */
  split: number | undefined;
  reconnect: ReconnectFigures;
  bystanders: BystanderFigures;
  /** The same displays in the window before the kill. */
  baseline: BystanderFigures;
  /** The probe fleet's displays alone (undefined: no probe fleet). */
  probe: ProbeFigures | undefined;
  /** Niceness of the load side (regular fleets, their echo host; undefined: the run's). */
  loadSideNiceness: number | undefined;
  /** The processes put under SCHED_RR once every display relayed, by name. */
  realtime: string[];
  /** Every response in the window (all displays, the recovery included). */
  windowLatency: LatencySummary;
  /** From the last display relaying to the kill: the youngest session's age when it died. */
  youngestSessionSeconds: number;
  /** Worker phase: seconds until the primary had replaced the killed worker. */
  replacementSeconds: number | undefined;
  /** The fleet's own state at the end: a busy load side slows recovery too. */
  fleetCpuCores: number;
  fleetLoopDelayP99Ms: number;
  fleetLoopDelayMaxMs: number;
  loadAverage: { start: number; end: number };
  durationSeconds: number;
  haproxyConfig: string | undefined;
  error: string | undefined;
  verdict: {
    everyDisplayBackInBudget: boolean;
    bystandersUndisturbed: boolean;
    /** The bystanders' longest stall is within the latency budget. */
    bystanderStallWithinBudget: boolean;
    /** ... or at least no more than the budget past what they saw before the kill (a shared machine stalls on its own). */
    bystanderStallWithinBaselinePlusBudget: boolean;
    /** The probe fleet's bystanders stalled at most `bystanderStallBudgetMs` (undefined: no probe fleet). */
    probeStallWithinBystanderBudget: boolean | undefined;
    /** Every probe display on the victim relayed again within the reconnect budget (undefined: no probe fleet). */
    probeBackInBudget: boolean | undefined;
  };
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
const nowNs = (): number => Number(process.hrtime.bigint());
const ms = (ns: number): number => Math.round(ns / 1e4) / 100;

interface Topology {
  echo: EchoHostProcess;
  /** The probe fleet's echo host (the presenter's computer of its sessions). */
  probeEcho: EchoHostProcess | undefined;
  gateways: GatewayInstance[];
  haproxy: HaproxyInstance | undefined;
  adminToken: string;
  baseUrl: string;
}

export const REALTIME_INSTRUMENTS = ['probe', 'balancer'] as const;
export type RealtimeInstrument = typeof REALTIME_INSTRUMENTS[number];

/** Every n-th display, spread over the start as the others are: the probe fleet's. */
export function probeIdsOf(displays: readonly DisplayIdentity[], count: number): Set<string> {
  if (count <= 0) return new Set();
  const every = Math.max(1, Math.floor(displays.length / count));
  return new Set(displays.filter((_display, index) => index % every === 0).slice(0, count).map((display) => display.id));
}

async function startTopology(phase: ChaosPhase, displays: readonly DisplayIdentity[], workers: number, probeIds: ReadonlySet<string>, loadSideNiceness: string | undefined, cleanups: (() => Promise<void>)[]): Promise<Topology> {
  const startEcho = async (niceness: string | undefined): Promise<EchoHostProcess> => {
    const echo = await startEchoHostProcess({ handshake: 'x224-then-tls', sessionTickets: true, sizedReplies: true, niceness });
    cleanups.push(() => echo.process.stop());
    return echo;
  };
  const echo = await startEcho(loadSideNiceness);
  const probeEcho = probeIds.size > 0 ? await startEcho(undefined) : undefined;
  const probeServer = probeEcho ? { port: probeEcho.port, ids: probeIds } : undefined;
  const sessionSecret = randomBytes(32).toString('hex');
  const adminToken = randomBytes(24).toString('hex');
  const gateways: GatewayInstance[] = [];
  for (let index = 0; index < (phase === 'instance' ? 2 : 1); index += 1) {
    const gateway = await startGateway({ displays, echoPort: echo.port, probeServer, workers, sessionSecret, adminToken });
    cleanups.push(() => gateway.stop());
    gateways.push(gateway);
  }
  let haproxy: HaproxyInstance | undefined;
  if (phase === 'instance') {
    haproxy = await startHaproxy(gateways.map((gateway) => gateway.port), displays.length * 2 + 100, undefined);
    const balancer = haproxy;
    cleanups.push(() => balancer.stop());
  }
  const first = gateways[0];
  if (!first) throw new Error('no gateway started');
  return { echo, probeEcho, gateways, haproxy, adminToken, baseUrl: haproxy?.baseUrl ?? first.baseUrl };
}

/** Puts the chosen instruments under SCHED_RR; returns what it put there. */
function realtimeFor(topology: Topology, pool: FleetPool, instruments: readonly RealtimeInstrument[]): string[] {
  const chosen: [string, number | undefined][] = [];
  if (instruments.includes('probe') && pool.hasProbe) chosen.push(['the probe fleet', pool.probePid], ['its echo host', topology.probeEcho?.process.pid]);
  if (instruments.includes('balancer') && topology.haproxy) chosen.push(['HAProxy', topology.haproxy.process.pid]);
  return chosen.flatMap(([name, pid]) => {
    if (pid === undefined) return [];
    runInRealTime(pid);
    return [name];
  });
}

function workerPids(gateway: GatewayInstance): number[] {
  return childrenOf(gateway.process.pid);
}

/** Each worker's process tree: with the native engine its data plane, which holds the displays' sockets, is the worker's child. */
function workerOf(workers: readonly number[]): Map<number, number> {
  const owner = new Map<number, number>();
  for (const worker of workers) for (const pid of descendantsOf([worker])) owner.set(pid, worker);
  return owner;
}

interface Placement { victim: string; onVictim: Set<string>; unplaced: number; split: number | undefined; kill: () => void; replacement?: () => Promise<number> }

/** Worker phase: which displays have a socket in the first worker, from the kernel's socket tables. */
async function placeOnWorker(topology: Topology, pool: FleetPool, workers: number): Promise<Placement> {
  const gateway = topology.gateways[0];
  if (!gateway) throw new Error('no gateway');
  const pids = workerPids(gateway);
  const victimPid = pids[0];
  if (victimPid === undefined || pids.length < 2) throw new Error(`the worker phase needs at least 2 workers, found ${pids.length}`);
  const trees = workerOf(pids);
  const byPeer = ownersByPeer([...trees.keys()]);
  const owners = new Map([...byPeer].map(([peer, pid]) => [peer, trees.get(pid)]));
  const onVictim = new Set<string>();
  let unplaced = 0;
  let split = 0;
  for (const display of await pool.endpoints()) {
    const control = display.control ? owners.get(endpointKey(display.control)) : undefined;
    const data = display.data ? owners.get(endpointKey(display.data)) : undefined;
    if (control === undefined || data === undefined) unplaced += 1;
    if (control !== undefined && data !== undefined && control !== data) split += 1;
    if (control === victimPid || data === victimPid) onVictim.add(display.id);
  }
  return {
    victim: `worker pid ${victimPid} of ${pids.length}`, onVictim, unplaced, split,
    kill: () => process.kill(victimPid, 'SIGKILL'),
    replacement: async () => {
      const started = nowNs();
      for (;;) {
        const now = workerPids(gateway);
        if (now.length >= workers && !now.includes(victimPid)) return (nowNs() - started) / 1e9;
        if (nowNs() - started > 30e9) throw new Error(`the killed worker was not replaced within 30 s (the primary's children: ${describeChildren(gateway.process.pid)})`);
        await sleep(50);
      }
    },
  };
}

/** Instance phase: which displays the second instance holds, from each instance's admin API. */
async function placeOnInstance(topology: Topology, pool: FleetPool): Promise<Placement> {
  const [first, second] = topology.gateways;
  if (!first || !second) throw new Error('the instance phase needs two gateway instances');
  const [onFirst, onSecond] = await Promise.all([onlineDisplays(first.httpUrl, topology.adminToken), onlineDisplays(second.httpUrl, topology.adminToken)]);
  let unplaced = 0;
  for (const display of await pool.endpoints()) {
    if (onFirst.has(display.id) === onSecond.has(display.id)) unplaced += 1;
  }
  return {
    victim: `instance 2 of 2 (pid ${second.process.pid} and its workers; ${onSecond.size} displays, ${onFirst.size} on the survivor)`,
    onVictim: onSecond, unplaced, split: undefined,
    // the whole process group: the primary and its workers at once, as a machine or container dies
    kill: () => process.kill(-second.process.pid, 'SIGKILL'),
  };
}

/** Waits until every display relays again, seen after a dip (or at least a second after the kill), or the deadline. */
async function untilRecovered(pool: FleetPool, total: number, killedNs: number, deadlineMs: number): Promise<void> {
  let dipped = false;
  for (;;) {
    const { relaying } = await pool.status();
    if (relaying < total) dipped = true;
    const elapsedMs = (nowNs() - killedNs) / 1e6;
    if (relaying >= total && (dipped || elapsedMs > 1000)) return;
    if (elapsedMs > deadlineMs) return;
    await sleep(100);
  }
}

const round = (value: number | undefined): number | undefined => (value === undefined ? undefined : Math.round(value));

function stepTimes(affected: readonly DisplayWindow[], at: (window: DisplayWindow) => number | undefined, killedNs: number): StepTimes {
  const times = affected.flatMap((window) => { const ns = at(window); return ns === undefined ? [] : [(ns - killedNs) / 1e6]; }).sort((a, b) => a - b);
  return { displays: times.length, p50Ms: round(percentile(times, 50)), p95Ms: round(percentile(times, 95)) };
}

function recoveryBreakdown(affected: readonly DisplayWindow[], killedNs: number): RecoveryBreakdown {
  const firstLosses: Record<string, number> = {};
  for (const window of affected) if (window.firstLoss !== undefined) firstLosses[window.firstLoss] = (firstLosses[window.firstLoss] ?? 0) + 1;
  const attempts = affected.map((window) => window.attempts).filter((count) => count > 0).sort((a, b) => a - b);
  return {
    firstLosses,
    attemptsP50: percentile(attempts, 50),
    attemptsMax: attempts[attempts.length - 1] ?? 0,
    welcome: stepTimes(affected, (window) => window.welcomeNs, killedNs),
    project: stepTimes(affected, (window) => window.projectNs, killedNs),
  };
}

export function reconnectFigures(windows: readonly DisplayWindow[], onVictim: ReadonlySet<string>, killedNs: number, budgetMs: number): ReconnectFigures {
  const affected = windows.filter((window) => onVictim.has(window.id));
  const times = affected.flatMap((window) => (window.backNs === undefined ? [] : [(window.backNs - killedNs) / 1e6])).sort((a, b) => a - b);
  return {
    displays: affected.length,
    back: times.length,
    backWithinBudget: times.filter((time) => time <= budgetMs).length,
    notBack: affected.length - times.length,
    p50Ms: round(percentile(times, 50)),
    p95Ms: round(percentile(times, 95)),
    maxMs: round(times[times.length - 1]),
    noticedNothing: affected.filter((window) => window.losses === 0).length,
    recovery: recoveryBreakdown(affected, killedNs),
  };
}

export function bystanderFigures(windows: readonly DisplayWindow[], onVictim: ReadonlySet<string>, intervalMs: number): BystanderFigures {
  const others = windows.filter((window) => !onVictim.has(window.id));
  const maxima = others.map((window) => ms(window.maxRoundTripNs)).sort((a, b) => a - b);
  return {
    displays: others.length,
    disturbed: others.filter((window) => window.losses > 0).length,
    errors: others.reduce((sum, window) => sum + window.losses, 0),
    firstError: others.find((window) => window.lastLoss !== undefined)?.lastLoss,
    maxRoundTripMs: maxima[maxima.length - 1] ?? 0,
    p99OfMaxRoundTripMs: percentile(maxima, 99) ?? 0,
    maxStallMs: Math.round(Math.max(0, ...others.map((window) => ms(window.maxGapNs) - intervalMs)) * 100) / 100,
  };
}

export async function runChaosPhase(phase: ChaosPhase, options: ChaosOptions): Promise<ChaosPhaseResult> {
  const started = performance.now();
  const loadStart = oneMinuteLoad();
  const cleanups: (() => Promise<void>)[] = [];
  const note = (text: string): void => options.onPhase?.(`[chaos/${phase}] ${text}`);
  const displays = buildDisplayRoster(options.sessions);
  const instances = phase === 'instance' ? 2 : 1;
  const empty: LatencySummary = { count: 0, meanMs: 0, p50Ms: 0, p95Ms: 0, p99Ms: 0, maxMs: 0 };
  const result: ChaosPhaseResult = {
    phase, sessions: options.sessions, instances, workersPerInstance: options.workers, shape: options.shape, victim: '', unplaced: 0, split: undefined,
    reconnect: reconnectFigures([], new Set(), 0, options.reconnectBudgetMs),
    bystanders: { displays: 0, disturbed: 0, errors: 0, firstError: undefined, maxRoundTripMs: 0, p99OfMaxRoundTripMs: 0, maxStallMs: 0 },
    baseline: { displays: 0, disturbed: 0, errors: 0, firstError: undefined, maxRoundTripMs: 0, p99OfMaxRoundTripMs: 0, maxStallMs: 0 },
    probe: undefined, loadSideNiceness: options.loadSideNiceness, realtime: [], windowLatency: empty, youngestSessionSeconds: 0, replacementSeconds: undefined, fleetCpuCores: 0, fleetLoopDelayP99Ms: 0, fleetLoopDelayMaxMs: 0,
    loadAverage: { start: loadStart, end: 0 }, durationSeconds: 0, haproxyConfig: undefined, error: undefined,
    verdict: { everyDisplayBackInBudget: false, bystandersUndisturbed: false, bystanderStallWithinBudget: false, bystanderStallWithinBaselinePlusBudget: false, probeStallWithinBystanderBudget: undefined, probeBackInBudget: undefined },
  };
  try {
    note(`starting echo host, ${instances} gateway instance(s) of ${options.workers} workers${phase === 'instance' ? ', haproxy' : ''}`);
    const probeIds = probeIdsOf(displays, options.probeDisplays);
    const loadSideNiceness = options.loadSideNiceness === undefined ? undefined : String(options.loadSideNiceness);
    const topology = await startTopology(phase, displays, options.workers, probeIds, loadSideNiceness, cleanups);
    result.haproxyConfig = topology.haproxy?.config;
    const pool = await FleetPool.start(options.fleets, undefined, options.probeDisplays > 0, loadSideNiceness);
    cleanups.push(() => pool.stop());
    cleanups.push(() => pool.closeAll());
    pool.configure(topology.baseUrl, phase === 'instance', 15_000);
    note(`starting ${options.sessions} displays over ${options.startSpreadMs / 1000} s`);
    const fleet: FleetDisplay[] = displays.map((display, index) => ({ ...display, index, shape: options.shape }));
    await pool.start(fleet, options.startSpreadMs, probeIds);
    await pool.untilRelaying(options.sessions, options.startDeadlineMs);
    const relayingNs = nowNs();
    result.realtime = realtimeFor(topology, pool, options.realtimeInstruments);
    if (result.realtime.length > 0) note(`under SCHED_RR from now: ${result.realtime.join(', ')}`);
    // at least a second: the start-up's stragglers settle (every display has answered at least once now)
    const aging = Math.max(1000, options.sessionAgeMs - options.baselineMs);
    if (aging > 1000) note(`letting the sessions age ${Math.round(aging / 1000)} s before the kill`);
    await sleep(aging);

    const placement = phase === 'worker' ? await placeOnWorker(topology, pool, options.workers) : await placeOnInstance(topology, pool);
    result.victim = placement.victim;
    result.unplaced = placement.unplaced;
    result.split = placement.split;
    note(`${placement.onVictim.size} of ${options.sessions} displays have a socket in the victim (${placement.victim})`);

    pool.beginWindow();
    await sleep(options.baselineMs);
    const before = await pool.endWindow(true);
    result.baseline = bystanderFigures(before.flatMap((window) => window.perDisplay ?? []), placement.onVictim, options.shape.intervalMs);
    const probeBefore = pool.hasProbe ? before[before.length - 1] : undefined;
    pool.beginWindow();
    note('kill -9');
    const killedNs = nowNs();
    placement.kill();
    result.youngestSessionSeconds = Math.round((killedNs - relayingNs) / 1e8) / 10;
    // settled into a value at once: a rejection while the recovery is awaited must not end the process unhandled
    const replacement = placement.replacement?.().then((seconds) => ({ seconds }), (error: unknown) => ({ error }));
    await untilRecovered(pool, options.sessions, killedNs, options.recoveryDeadlineMs);
    await sleep(options.afterMs);
    const windows: FleetWindow[] = await pool.endWindow(true);
    if (replacement) {
      const replaced = await replacement;
      if ('error' in replaced) throw replaced.error;
      result.replacementSeconds = Math.round(replaced.seconds * 100) / 100;
    }

    const perDisplay = windows.flatMap((window) => window.perDisplay ?? []);
    result.reconnect = reconnectFigures(perDisplay, placement.onVictim, killedNs, options.reconnectBudgetMs);
    result.bystanders = bystanderFigures(perDisplay, placement.onVictim, options.shape.intervalMs);
    result.windowLatency = summarizeEncoded(windows.flatMap((window) => Object.values(window.histograms)));
    result.fleetCpuCores = Math.round(Math.max(...windows.map((window) => window.cpuCores)) * 100) / 100;
    result.fleetLoopDelayP99Ms = Math.round(Math.max(...windows.map((window) => window.loopDelayP99Ms)) * 10) / 10;
    result.fleetLoopDelayMaxMs = Math.round(Math.max(...windows.map((window) => window.loopDelayMaxMs)) * 10) / 10;
    const probeWindow = pool.hasProbe ? windows[windows.length - 1] : undefined;
    if (probeWindow && probeBefore) {
      const probeDisplays = probeWindow.perDisplay ?? [];
      result.probe = {
        displays: probeDisplays.length,
        reconnect: reconnectFigures(probeDisplays, placement.onVictim, killedNs, options.reconnectBudgetMs),
        bystanders: bystanderFigures(probeDisplays, placement.onVictim, options.shape.intervalMs),
        baseline: bystanderFigures(probeBefore.perDisplay ?? [], placement.onVictim, options.shape.intervalMs),
        loopDelayMaxMs: Math.round(probeWindow.loopDelayMaxMs * 10) / 10,
        cpuCores: Math.round(probeWindow.cpuCores * 100) / 100,
      };
    }
    result.verdict = {
      everyDisplayBackInBudget: result.reconnect.displays > 0 && result.reconnect.backWithinBudget === result.reconnect.displays,
      bystandersUndisturbed: result.bystanders.errors === 0 && result.unplaced === 0,
      bystanderStallWithinBudget: result.bystanders.maxStallMs <= options.latencyBudgetMs,
      bystanderStallWithinBaselinePlusBudget: result.bystanders.maxStallMs <= result.baseline.maxStallMs + options.latencyBudgetMs,
      probeStallWithinBystanderBudget: result.probe ? result.probe.bystanders.displays > 0 && result.probe.bystanders.maxStallMs <= options.bystanderStallBudgetMs : undefined,
      probeBackInBudget: result.probe ? result.probe.reconnect.displays > 0 && result.probe.reconnect.backWithinBudget === result.probe.reconnect.displays : undefined,
    };
    note(`back: ${result.reconnect.back}/${result.reconnect.displays}, p50 ${result.reconnect.p50Ms ?? '-'} ms, p95 ${result.reconnect.p95Ms ?? '-'} ms, max ${result.reconnect.maxMs ?? '-'} ms; bystander errors ${result.bystanders.errors}, max stall ${result.bystanders.maxStallMs} ms (${result.baseline.maxStallMs} ms before the kill); the fleets' own event loop held up at most ${result.fleetLoopDelayMaxMs} ms${result.probe ? `; the probe fleet's ${result.probe.reconnect.displays} victims back p50 ${result.probe.reconnect.p50Ms ?? '-'} ms, max ${result.probe.reconnect.maxMs ?? '-'} ms, its ${result.probe.bystanders.displays} bystanders: max stall ${result.probe.bystanders.maxStallMs} ms (${result.probe.baseline.maxStallMs} before), its loop held up at most ${result.probe.loopDelayMaxMs} ms` : ''}`);
  } catch (error) {
    result.error = error instanceof Error ? error.message : String(error);
  }
  return endRun(result, cleanups, started, note);
}

export async function runChaos(options: ChaosOptions): Promise<ChaosPhaseResult[]> {
  const results: ChaosPhaseResult[] = [];
  for (const phase of options.phases) results.push(await runChaosPhase(phase, options));
  return results;
}
