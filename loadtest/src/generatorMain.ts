// A generator process: opens simulated kiosks (or websockify clients) when the
// coordinator asks, keeps them paced, and reports each measurement window:
// latency histogram, counts, and its own CPU and event-loop delay so the
// coordinator can tell a saturated generator from a saturated relay.
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { CoordinatorMessage, GeneratorMessage, RelayTarget, DisplayAssignment } from './generatorProtocol.js';
import type { TrafficPattern } from './trafficPattern.js';
import type { EchoChannel } from './echoChannel.js';
import { connectSimulatedKiosk } from './simulatedKiosk.js';
import { connectWebsockifyKiosk } from './websockifyKiosk.js';
import { connectDirectChannel } from './directChannel.js';
import { sourceAddressFor } from './displayRoster.js';
import { LatencyRecorder } from './latencyHistogram.js';
import { PacedConnection, type WindowCounters } from './pacedConnection.js';
import { buildTpktPdu } from './tpktPdu.js';

const send = (message: GeneratorMessage): void => { process.send?.(message); };

let target: RelayTarget | undefined;
let pattern: TrafficPattern = { upBytes: 90, downBytes: 90, intervalMs: 100 };
let request = buildTpktPdu(90);
let connectConcurrency = 32;
let connectTimeoutMs = 15_000;
const recorder = new LatencyRecorder();
const counters: WindowCounters = { sent: 0, received: 0, failures: 0, lastFailure: undefined };
const connections: PacedConnection[] = [];
const LOOP_DELAY_RESOLUTION_MS = 10;
// the histogram records the time between its own timer ticks, so an idle loop
// reads as the resolution: only the excess is delay
const loopDelay = monitorEventLoopDelay({ resolution: LOOP_DELAY_RESOLUTION_MS });
loopDelay.enable();
let windowStart = { cpu: process.cpuUsage(), wall: process.hrtime.bigint() };

function connect(display: DisplayAssignment): Promise<EchoChannel> {
  if (!target) throw new Error('generator not configured');
  const localAddress = target.distinctSourceAddresses ? sourceAddressFor(display.index) : undefined;
  switch (target.kind) {
    case 'lanterna':
      return connectSimulatedKiosk({ baseUrl: target.baseUrl, displayId: display.id, displayToken: display.token, localAddress, caPem: target.caPem, timeoutMs: connectTimeoutMs });
    case 'websockify':
      return connectWebsockifyKiosk({ url: target.url, localAddress, timeoutMs: connectTimeoutMs });
    case 'pipe':
    case 'pipe-go':
      return connectWebsockifyKiosk({ url: target.url, localAddress, caPem: target.caPem, timeoutMs: connectTimeoutMs });
    case 'direct':
      return connectDirectChannel({ host: target.host, port: target.port, timeoutMs: connectTimeoutMs });
  }
}

const OPEN_PROGRESS_MS = 1000;

async function openAll(displays: DisplayAssignment[]): Promise<void> {
  let opened = 0;
  let failed = 0;
  let firstError: string | undefined;
  let next = 0;
  const worker = async (): Promise<void> => {
    for (;;) {
      const display = displays[next];
      next += 1;
      if (display === undefined) return;
      try {
        const channel = await connect(display);
        const connection = new PacedConnection(channel, request, pattern.intervalMs, recorder, counters);
        connections.push(connection);
        connection.start();
        opened += 1;
      } catch (error) {
        failed += 1;
        firstError ??= error instanceof Error ? error.message : String(error);
      }
    }
  };
  const progress = setInterval(() => { send({ type: 'open-progress', opened, failed }); }, OPEN_PROGRESS_MS);
  try {
    await Promise.all(Array.from({ length: Math.min(connectConcurrency, displays.length) }, () => worker()));
  } finally {
    clearInterval(progress);
  }
  send({ type: 'opened', opened, failed, firstError });
}

function beginWindow(): void {
  recorder.reset();
  counters.sent = 0;
  counters.received = 0;
  counters.failures = 0;
  counters.lastFailure = undefined;
  loopDelay.reset();
  windowStart = { cpu: process.cpuUsage(), wall: process.hrtime.bigint() };
}

function endWindow(): void {
  const wallSeconds = Number(process.hrtime.bigint() - windowStart.wall) / 1e9;
  const cpu = process.cpuUsage(windowStart.cpu);
  const now = Number(process.hrtime.bigint());
  const lateNs = pattern.intervalMs * 1e6;
  let alive = 0;
  let lateOutstanding = 0;
  for (const connection of connections) {
    if (!connection.isAlive()) continue;
    alive += 1;
    if (connection.oldestOutstandingNs(now) > lateNs) lateOutstanding += connection.outstanding();
  }
  send({
    type: 'window',
    histogram: recorder.encode(),
    sent: counters.sent,
    received: counters.received,
    failures: counters.failures,
    lastFailure: counters.lastFailure,
    alive,
    lateOutstanding,
    cpuCores: (cpu.user + cpu.system) / 1e6 / wallSeconds,
    loopDelayP99Ms: Math.max(0, loopDelay.percentile(99) / 1e6 - LOOP_DELAY_RESOLUTION_MS),
    loopDelayMaxMs: Math.max(0, loopDelay.max / 1e6 - LOOP_DELAY_RESOLUTION_MS),
    wallSeconds,
  });
}

process.on('message', (message: CoordinatorMessage) => {
  switch (message.type) {
    case 'configure':
      target = message.target;
      pattern = message.pattern;
      request = buildTpktPdu(pattern.upBytes);
      connectConcurrency = message.connectConcurrency;
      connectTimeoutMs = message.connectTimeoutMs;
      break;
    case 'open':
      void openAll(message.displays);
      break;
    case 'begin-window':
      beginWindow();
      break;
    case 'end-window':
      endWindow();
      break;
    case 'close-all':
      for (const connection of connections) connection.close();
      connections.length = 0;
      // give the close frames a moment to leave before the coordinator ends us
      setTimeout(() => send({ type: 'closed' }), 300);
      break;
  }
});
process.on('disconnect', () => process.exit(0));
send({ type: 'ready' });
