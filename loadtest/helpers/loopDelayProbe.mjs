// Preloaded into a relay under load (`--relay-node-options "--import
// ./loadtest/helpers/loopDelayProbe.mjs"`, loadtest/README.md "Profiling"):
// every LANTERNA_LOOP_PROBE_MS (1000) it appends one JSON line to
// LANTERNA_LOOP_PROBE_FILE with the event loop's delay (1 ms resolution:
// p50/p99/max), the garbage collections of the interval by kind (count, total
// and longest pause) and the process's CPU, so a latency tail can be laid
// against what the loop was doing. Does nothing without the file variable.
import { appendFileSync } from 'node:fs';
import { monitorEventLoopDelay, PerformanceObserver, constants } from 'node:perf_hooks';

const file = process.env.LANTERNA_LOOP_PROBE_FILE;
if (file) {
  const everyMs = Number(process.env.LANTERNA_LOOP_PROBE_MS ?? 1000);
  const delay = monitorEventLoopDelay({ resolution: 1 });
  delay.enable();
  const kinds = { [constants.NODE_PERFORMANCE_GC_MINOR]: 'minor', [constants.NODE_PERFORMANCE_GC_MAJOR]: 'major', [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental', [constants.NODE_PERFORMANCE_GC_WEAKCB]: 'weakcb' };
  let gc = {};
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const kind = kinds[entry.detail?.kind] ?? 'other';
      const slot = (gc[kind] ??= { count: 0, ms: 0, maxMs: 0 });
      slot.count += 1;
      slot.ms += entry.duration;
      slot.maxMs = Math.max(slot.maxMs, entry.duration);
    }
  }).observe({ entryTypes: ['gc'] });
  let cpu = process.cpuUsage();
  let at = performance.now();
  const round = (value) => Math.round(value * 100) / 100;
  setInterval(() => {
    const now = performance.now();
    const used = process.cpuUsage(cpu);
    const line = {
      pid: process.pid, at: new Date().toISOString(),
      loopMs: { p50: round(delay.percentile(50) / 1e6), p99: round(delay.percentile(99) / 1e6), max: round(delay.max / 1e6) },
      gc: Object.fromEntries(Object.entries(gc).map(([kind, slot]) => [kind, { count: slot.count, ms: round(slot.ms), maxMs: round(slot.maxMs) }])),
      cpuCores: round((used.user + used.system) / 1000 / (now - at)),
      heapMb: round(process.memoryUsage().heapUsed / 2 ** 20),
    };
    appendFileSync(file, `${JSON.stringify(line)}\n`);
    delay.reset();
    gc = {};
    cpu = process.cpuUsage();
    at = now;
  }, everyMs).unref();
}
