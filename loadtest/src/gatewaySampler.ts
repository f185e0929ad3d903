// What the soak watches in the gateway over time: resident memory and open
// file descriptors of every gateway process (from /proc, the kernel's view),
// and from the gateway's own /metrics (behind its token) the event loop's
// active resources by type (sockets, and the timers that keep the loop
// alive), every timer when the gateway runs its timer census (unref'd ones
// too: the gateway unrefs all of its own), heap and external memory (so RSS
// growth can be told apart: JavaScript heap, Buffers, or native memory) and
// sessions.
import { readdirSync } from 'node:fs';
import { descendantsOf } from './processTreeUsage.js';
import { metricsText } from './gatewayAdmin.js';
import { byLabel, parsePrometheusText } from './prometheusText.js';
import { rssBytes } from './procMemory.js';

export interface GatewaySample {
  processes: number;
  rssBytes: number;
  openFds: number;
  /** Active resources by type (process.getActiveResourcesInfo, summed over workers). */
  resources: Record<string, number>;
  /** Every timer alive, unref'd ones too (the gateway's diagnostics.timerCensus); undefined without it. */
  timers: number | undefined;
  heapUsedBytes: number | undefined;
  /** V8's committed heap: what the JavaScript heap holds of the RSS. */
  heapTotalBytes: number | undefined;
  /** The committed heap by V8 space (new, old, code, large_object…): which part of the heap grows. */
  heapSpaceTotalBytes: Record<string, number>;
  /** Memory V8 does not own but tracks (Buffers, ArrayBuffers): the relay's data in flight. */
  externalBytes: number | undefined;
  sessionsActive: number | undefined;
  displaysOnline: number | undefined;
}

function openFds(pid: number): number {
  try { return readdirSync(`/proc/${pid}/fd`).length; } catch { return 0; }
}

export async function sampleGateway(rootPid: number, httpUrl: string, token: string): Promise<GatewaySample> {
  const pids = descendantsOf([rootPid]);
  const metrics = parsePrometheusText(await metricsText(httpUrl, token));
  return {
    processes: pids.length,
    rssBytes: pids.reduce((sum, pid) => sum + rssBytes(pid), 0),
    openFds: pids.reduce((sum, pid) => sum + openFds(pid), 0),
    resources: byLabel(metrics, 'nodejs_active_resources', 'type'),
    timers: metrics.get('lanterna_debug_timers'),
    heapUsedBytes: metrics.get('nodejs_heap_size_used_bytes'),
    heapTotalBytes: metrics.get('nodejs_heap_size_total_bytes'),
    heapSpaceTotalBytes: byLabel(metrics, 'nodejs_heap_space_size_total_bytes', 'space'),
    externalBytes: metrics.get('nodejs_external_memory_bytes'),
    sessionsActive: metrics.get('lanterna_sessions_active'),
    displaysOnline: metrics.get('lanterna_displays_online'),
  };
}
