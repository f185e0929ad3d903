// The soak: a fleet of page-like displays with mixed traffic (KW v1, KW v2.2
// and bursts) relays through one gateway for a long time while a few percent
// of the pages close and come back every minute (churn). Every minute the
// run samples the gateway's memory, file descriptors and active resources
// (timers, sockets) and the minute's round trips; it then compares the end
// with the end of the warm-up (memory, descriptors, timers) and the first
// block of minutes with the last (p99).
import { randomBytes } from 'node:crypto';
import { startEchoHostProcess } from './echoHostProcess.js';
import { buildDisplayRoster } from './displayRoster.js';
import { startGateway } from './gatewayInstance.js';
import { FleetPool } from './fleetPool.js';
import type { FleetDisplay } from './fleetProtocol.js';
import { sampleGateway, type GatewaySample } from './gatewaySampler.js';
import { mergeEncoded, summarizeEncoded, type LatencySummary } from './latencyHistogram.js';
import { oneMinuteLoad } from './machineInfo.js';
import { KW_V1_SHAPE, type TrafficShape } from './trafficShapes.js';
import { endRun } from './stopInReverse.js';

export interface SoakOptions {
  sessions: number;
  durationMinutes: number;
  workers: number;
  fleets: number;
  /** Pages closed and reopened each minute, as a percentage of the fleet. */
  churnPercentPerMinute: number;
  /** How long a closed page stays away (each between half and one and a half of it). */
  churnPauseMs: number;
  minuteMs: number;
  startSpreadMs: number;
  startDeadlineMs: number;
  mix: readonly TrafficShape[];
  onMinute?: (minute: SoakMinute) => void;
  onPhase?: (text: string) => void;
}

export interface SoakMinute {
  minute: number;
  gateway: GatewaySample;
  /** Per traffic shape (encoded HDR histograms, merged per block for the report). */
  histograms: Record<string, string>;
  latency: LatencySummary;
  sent: number;
  received: number;
  /** Sessions that broke while relaying (not closed by churn). */
  failures: number;
  losses: number;
  lastLoss: string | undefined;
  churned: number;
  relaying: number;
  fleetCpuCores: number;
  fleetLoopDelayP99Ms: number;
  loadAverage: number;
}

export interface SoakBlock {
  fromMinute: number;
  toMinute: number;
  latency: LatencySummary;
  byShape: Record<string, LatencySummary>;
  loadAverage: number;
  failures: number;
  losses: number;
}

export interface SoakFigures {
  warmupMinutes: number;
  rss: { startMb: number; warmMb: number; endMb: number; maxAfterWarmMb: number; growthPercent: number };
  heapUsed: { warmMb: number | undefined; endMb: number | undefined };
  fds: { start: number; warm: number; end: number; maxAfterWarm: number; growth: number };
  timers: { start: number; warm: number; end: number; maxAfterWarm: number; growth: number };
  resourcesWarm: Record<string, number>;
  resourcesEnd: Record<string, number>;
  p99: { firstBlockMs: number; lastBlockMs: number; changePercent: number };
  failures: number;
  losses: number;
  churned: number;
  verdict: { rssGrowthUnder5Percent: boolean; noFdGrowth: boolean; noTimerGrowth: boolean; p99Flat: boolean; noFailures: boolean };
}

export interface SoakResult {
  sessions: number;
  durationMinutes: number;
  workers: number;
  mix: readonly TrafficShape[];
  churnPercentPerMinute: number;
  minutes: SoakMinute[];
  blocks: SoakBlock[];
  figures: SoakFigures | undefined;
  loadAverage: { start: number; end: number };
  durationSeconds: number;
  error: string | undefined;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
const mb = (bytes: number): number => Math.round(bytes / 1024 / 102.4) / 10;

/** Warm-up and block length: 10 minutes of an hour, one of a five-minute run. */
export function blockMinutesFor(durationMinutes: number): number {
  return Math.min(10, Math.max(1, Math.round(durationMinutes / 6)));
}

/** A tolerance for counts that wobble with churn: a page between close and reopen holds no sockets. */
function grew(warm: number, end: number): boolean {
  return end > warm + Math.max(5, warm * 0.02);
}

export function soakBlocks(minutes: readonly SoakMinute[], blockMinutes: number): SoakBlock[] {
  const blocks: SoakBlock[] = [];
  for (let from = 0; from < minutes.length; from += blockMinutes) {
    const slice = minutes.slice(from, from + blockMinutes);
    const shapes = [...new Set(slice.flatMap((minute) => Object.keys(minute.histograms)))];
    const byShape: Record<string, LatencySummary> = {};
    for (const shape of shapes) byShape[shape] = summarizeEncoded(slice.flatMap((minute) => (minute.histograms[shape] === undefined ? [] : [minute.histograms[shape]])));
    blocks.push({
      fromMinute: slice[0]?.minute ?? 0,
      toMinute: slice[slice.length - 1]?.minute ?? 0,
      latency: summarizeEncoded(slice.flatMap((minute) => Object.values(minute.histograms))),
      byShape,
      loadAverage: Math.round((slice.reduce((sum, minute) => sum + minute.loadAverage, 0) / Math.max(1, slice.length)) * 100) / 100,
      failures: slice.reduce((sum, minute) => sum + minute.failures, 0),
      losses: slice.reduce((sum, minute) => sum + minute.losses, 0),
    });
  }
  return blocks;
}

export function soakFigures(minutes: readonly SoakMinute[], blocks: readonly SoakBlock[], warmupMinutes: number): SoakFigures | undefined {
  const first = minutes[0];
  const warm = minutes[Math.min(warmupMinutes, minutes.length) - 1];
  const last = minutes[minutes.length - 1];
  const firstBlock = blocks[0];
  const lastBlock = blocks[blocks.length - 1];
  if (!first || !warm || !last || !firstBlock || !lastBlock) return undefined;
  const after = minutes.slice(warmupMinutes);
  const timers = (sample: GatewaySample): number => sample.timers ?? sample.resources.Timeout ?? 0;
  const rssGrowthPercent = Math.round(((last.gateway.rssBytes - warm.gateway.rssBytes) / warm.gateway.rssBytes) * 1000) / 10;
  const p99Change = firstBlock.latency.p99Ms > 0 ? Math.round(((lastBlock.latency.p99Ms - firstBlock.latency.p99Ms) / firstBlock.latency.p99Ms) * 1000) / 10 : 0;
  const figures: SoakFigures = {
    warmupMinutes,
    rss: {
      startMb: mb(first.gateway.rssBytes), warmMb: mb(warm.gateway.rssBytes), endMb: mb(last.gateway.rssBytes),
      maxAfterWarmMb: mb(Math.max(warm.gateway.rssBytes, ...after.map((minute) => minute.gateway.rssBytes))), growthPercent: rssGrowthPercent,
    },
    heapUsed: {
      warmMb: warm.gateway.heapUsedBytes === undefined ? undefined : mb(warm.gateway.heapUsedBytes),
      endMb: last.gateway.heapUsedBytes === undefined ? undefined : mb(last.gateway.heapUsedBytes),
    },
    fds: {
      start: first.gateway.openFds, warm: warm.gateway.openFds, end: last.gateway.openFds,
      maxAfterWarm: Math.max(warm.gateway.openFds, ...after.map((minute) => minute.gateway.openFds)), growth: last.gateway.openFds - warm.gateway.openFds,
    },
    timers: {
      start: timers(first.gateway), warm: timers(warm.gateway), end: timers(last.gateway),
      maxAfterWarm: Math.max(timers(warm.gateway), ...after.map((minute) => timers(minute.gateway))), growth: timers(last.gateway) - timers(warm.gateway),
    },
    resourcesWarm: warm.gateway.resources,
    resourcesEnd: last.gateway.resources,
    p99: { firstBlockMs: firstBlock.latency.p99Ms, lastBlockMs: lastBlock.latency.p99Ms, changePercent: p99Change },
    failures: minutes.reduce((sum, minute) => sum + minute.failures, 0),
    losses: minutes.reduce((sum, minute) => sum + minute.losses, 0),
    churned: minutes.reduce((sum, minute) => sum + minute.churned, 0),
    verdict: {
      rssGrowthUnder5Percent: rssGrowthPercent < 5,
      noFdGrowth: !grew(warm.gateway.openFds, last.gateway.openFds),
      noTimerGrowth: !grew(timers(warm.gateway), timers(last.gateway)),
      // within a quarter of the first block, or 5 ms: p99 on a shared machine moves with the neighbours' load
      p99Flat: Math.abs(lastBlock.latency.p99Ms - firstBlock.latency.p99Ms) <= Math.max(5, firstBlock.latency.p99Ms * 0.25),
      noFailures: minutes.every((minute) => minute.failures === 0 && minute.losses === 0),
    },
  };
  return figures;
}

function pickChurn(ids: readonly string[], count: number): string[] {
  const pool = [...ids];
  const picked: string[] = [];
  while (picked.length < count && pool.length > 0) {
    const index = Math.floor(Math.random() * pool.length);
    picked.push(...pool.splice(index, 1));
  }
  return picked;
}

export async function runSoak(options: SoakOptions): Promise<SoakResult> {
  const started = performance.now();
  const cleanups: (() => Promise<void>)[] = [];
  const note = (text: string): void => options.onPhase?.(`[soak] ${text}`);
  const result: SoakResult = {
    sessions: options.sessions, durationMinutes: options.durationMinutes, workers: options.workers, mix: options.mix,
    churnPercentPerMinute: options.churnPercentPerMinute, minutes: [], blocks: [], figures: undefined,
    loadAverage: { start: oneMinuteLoad(), end: 0 }, durationSeconds: 0, error: undefined,
  };
  const blockMinutes = blockMinutesFor(options.durationMinutes);
  try {
    const displays = buildDisplayRoster(options.sessions);
    const echo = await startEchoHostProcess({ handshake: 'x224-then-tls', sessionTickets: true, sizedReplies: true });
    cleanups.push(() => echo.process.stop());
    const adminToken = randomBytes(24).toString('hex');
    const gateway = await startGateway({ displays, echoPort: echo.port, workers: options.workers, sessionSecret: randomBytes(32).toString('hex'), adminToken, timerCensus: true });
    cleanups.push(() => gateway.stop());
    const pool = await FleetPool.start(options.fleets, undefined);
    cleanups.push(() => pool.stop());
    cleanups.push(() => pool.closeAll());
    pool.configure(gateway.baseUrl, false, 15_000);
    const fleet: FleetDisplay[] = displays.map((display, index) => ({ ...display, index, shape: options.mix[index % options.mix.length] ?? KW_V1_SHAPE }));
    note(`starting ${options.sessions} displays (${options.mix.map((shape) => shape.name).join(', ')})`);
    await pool.start(fleet, options.startSpreadMs);
    await pool.untilRelaying(options.sessions, options.startDeadlineMs);
    const churnPerMinute = Math.round((options.sessions * options.churnPercentPerMinute) / 100);
    const ids = displays.map((display) => display.id);
    note(`relaying; ${options.durationMinutes} minutes, ${churnPerMinute} pages closed and reopened each minute`);
    for (let minute = 1; minute <= options.durationMinutes; minute += 1) {
      const minuteStart = performance.now();
      pool.beginWindow();
      // churn at a random moment of the minute, so it does not line up with the samples
      await sleep(Math.random() * options.minuteMs * 0.5);
      if (churnPerMinute > 0) await pool.churn(pickChurn(ids, churnPerMinute), options.churnPauseMs);
      await sleep(Math.max(0, options.minuteMs - (performance.now() - minuteStart)));
      const windows = await pool.endWindow(false);
      const histograms: Record<string, string> = {};
      const shapes = [...new Set(windows.flatMap((window) => Object.keys(window.histograms)))];
      for (const shape of shapes) {
        const parts = windows.flatMap((window) => (window.histograms[shape] === undefined ? [] : [window.histograms[shape]]));
        histograms[shape] = mergeEncoded(parts);
      }
      const sample: SoakMinute = {
        minute,
        gateway: await sampleGateway(gateway.process.pid, gateway.httpUrl, adminToken),
        histograms,
        latency: summarizeEncoded(Object.values(histograms)),
        sent: windows.reduce((sum, window) => sum + window.sent, 0),
        received: windows.reduce((sum, window) => sum + window.received, 0),
        failures: windows.reduce((sum, window) => sum + window.failures, 0),
        losses: windows.reduce((sum, window) => sum + window.losses, 0),
        lastLoss: windows.find((window) => window.lastLoss !== undefined)?.lastLoss,
        churned: windows.reduce((sum, window) => sum + window.churned, 0),
        relaying: windows.reduce((sum, window) => sum + window.relaying, 0),
        fleetCpuCores: Math.round(Math.max(...windows.map((window) => window.cpuCores)) * 100) / 100,
        fleetLoopDelayP99Ms: Math.round(Math.max(...windows.map((window) => window.loopDelayP99Ms)) * 10) / 10,
        loadAverage: oneMinuteLoad(),
      };
      result.minutes.push(sample);
      options.onMinute?.(sample);
    }
    result.blocks = soakBlocks(result.minutes, blockMinutes);
    result.figures = soakFigures(result.minutes, result.blocks, blockMinutes);
  } catch (error) {
    result.error = error instanceof Error ? error.message : String(error);
  }
  return endRun(result, cleanups, started, note);
}
