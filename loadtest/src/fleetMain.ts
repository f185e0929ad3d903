// A fleet process: keeps its share of page-like displays up (they reconnect
// as the page does), answers status and endpoint queries, reports each
// measurement window per traffic shape (and per display when asked), and
// closes and reopens displays on request (churn).
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { CoordinatorToFleet, FleetDisplay, FleetToCoordinator } from './fleetProtocol.js';
import { PageLikeDisplay } from './pageLikeDisplay.js';
import { sourceAddressFor } from './displayRoster.js';
import { LatencyRecorder } from './latencyHistogram.js';
import type { WindowCounters } from './pacedConnection.js';
import { requestFor, type TrafficShape } from './trafficShapes.js';

const send = (message: FleetToCoordinator): void => { process.send?.(message); };

let baseUrl = '';
let distinctSourceAddresses = false;
let timeoutMs = 15_000;
const displays = new Map<string, { display: PageLikeDisplay; assignment: FleetDisplay }>();
const recorders = new Map<string, LatencyRecorder>();
const requests = new Map<string, Buffer>();
const counters: WindowCounters = { sent: 0, received: 0, failures: 0, lastFailure: undefined };
let churned = 0;
const reopening = new Set<NodeJS.Timeout>();
const LOOP_DELAY_RESOLUTION_MS = 10;
const loopDelay = monitorEventLoopDelay({ resolution: LOOP_DELAY_RESOLUTION_MS });
loopDelay.enable();
let windowStart = { cpu: process.cpuUsage(), wall: process.hrtime.bigint() };

function recorderFor(shape: TrafficShape): LatencyRecorder {
  let recorder = recorders.get(shape.name);
  if (!recorder) { recorder = new LatencyRecorder(); recorders.set(shape.name, recorder); }
  return recorder;
}

function requestOf(shape: TrafficShape): Buffer {
  let request = requests.get(shape.name);
  if (!request) { request = requestFor(shape); requests.set(shape.name, request); }
  return request;
}

function open(assignment: FleetDisplay): void {
  const display = new PageLikeDisplay({
    baseUrl, displayId: assignment.id, displayToken: assignment.token,
    localAddress: distinctSourceAddresses ? sourceAddressFor(assignment.index) : undefined,
    timeoutMs, shape: assignment.shape, request: requestOf(assignment.shape), recorder: recorderFor(assignment.shape), counters,
  });
  displays.set(assignment.id, { display, assignment });
  display.start();
}

function start(list: FleetDisplay[], spreadMs: number): void {
  list.forEach((assignment, index) => {
    const delay = list.length > 1 ? (spreadMs * index) / list.length : 0;
    setTimeout(() => open(assignment), delay);
  });
  send({ type: 'started', count: list.length });
}

function churn(ids: string[], pauseMs: number): void {
  let count = 0;
  for (const id of ids) {
    const entry = displays.get(id);
    if (!entry) continue;
    entry.display.close();
    displays.delete(id);
    count += 1;
    churned += 1;
    // between half and one and a half pauses: pages come back at different times
    const timer = setTimeout(() => { reopening.delete(timer); open(entry.assignment); }, pauseMs * (0.5 + Math.random()));
    reopening.add(timer);
  }
  send({ type: 'churned', count });
}

function status(): void {
  let relaying = 0;
  let stoppedForGood = 0;
  for (const { display } of displays.values()) {
    if (display.isRelaying()) relaying += 1;
    if (display.isStoppedForGood()) stoppedForGood += 1;
  }
  send({ type: 'status', displays: displays.size, relaying, stoppedForGood });
}

function beginWindow(): void {
  for (const recorder of recorders.values()) recorder.reset();
  counters.sent = 0;
  counters.received = 0;
  counters.failures = 0;
  counters.lastFailure = undefined;
  churned = 0;
  for (const { display } of displays.values()) display.takeWindow();
  loopDelay.reset();
  windowStart = { cpu: process.cpuUsage(), wall: process.hrtime.bigint() };
}

function endWindow(perDisplay: boolean): void {
  const wallSeconds = Number(process.hrtime.bigint() - windowStart.wall) / 1e9;
  const cpu = process.cpuUsage(windowStart.cpu);
  const windows = [...displays.values()].map(({ display }) => display.takeWindow());
  const histograms: Record<string, string> = {};
  for (const [name, recorder] of recorders) histograms[name] = recorder.encode();
  send({
    type: 'window',
    histograms,
    sent: counters.sent,
    received: counters.received,
    failures: counters.failures,
    lastFailure: counters.lastFailure,
    losses: windows.reduce((sum, window) => sum + window.losses, 0),
    lastLoss: windows.find((window) => window.lastLoss !== undefined)?.lastLoss,
    relaying: windows.filter((window) => window.relaying).length,
    displays: windows.length,
    churned,
    perDisplay: perDisplay ? windows : undefined,
    cpuCores: (cpu.user + cpu.system) / 1e6 / wallSeconds,
    loopDelayP99Ms: Math.max(0, loopDelay.percentile(99) / 1e6 - LOOP_DELAY_RESOLUTION_MS),
    loopDelayMaxMs: Math.max(0, loopDelay.max / 1e6 - LOOP_DELAY_RESOLUTION_MS),
    wallSeconds,
  });
  // the histograms restart with the next window whether or not one is begun
  for (const recorder of recorders.values()) recorder.reset();
}

process.on('message', (message: CoordinatorToFleet) => {
  switch (message.type) {
    case 'configure':
      ({ baseUrl, distinctSourceAddresses, timeoutMs } = message);
      break;
    case 'start':
      start(message.displays, message.spreadMs);
      break;
    case 'status':
      status();
      break;
    case 'endpoints':
      send({ type: 'endpoints', endpoints: [...displays.values()].map(({ display }) => display.endpoints()) });
      break;
    case 'begin-window':
      beginWindow();
      break;
    case 'end-window':
      endWindow(message.perDisplay);
      break;
    case 'churn':
      churn(message.ids, message.pauseMs);
      break;
    case 'close-all':
      for (const timer of reopening) clearTimeout(timer);
      reopening.clear();
      for (const { display } of displays.values()) display.close();
      displays.clear();
      // give the close frames a moment to leave before the coordinator ends us
      setTimeout(() => send({ type: 'closed' }), 300);
      break;
  }
});
process.on('disconnect', () => process.exit(0));
send({ type: 'ready' });
