// A diagnostic gauge for long runs (the load test's soak): timers alive in
// this process, unref'd ones included. Node's own count
// (process.getActiveResourcesInfo, exported by prom-client as
// nodejs_active_resources{type="Timeout"}) sees only timers that keep the
// event loop alive, and the gateway unrefs every timer it arms (heartbeats,
// deadlines, re-projection pauses), so a leak of them would not show there.
//
// It counts through an async hook (init/destroy of `Timeout` resources),
// which costs a function call for every async resource the process creates
// (socket writes included): off by default, on with
// `diagnostics.timerCensus`.
import { createHook } from 'node:async_hooks';
import { Gauge, type Registry } from 'prom-client';

export const TIMER_CENSUS_METRIC = 'lanterna_debug_timers';

/** Starts counting and registers the gauge; returns a function that stops counting. */
export function startTimerCensus(registry: Registry): () => void {
  const live = new Set<number>();
  const hook = createHook({
    init(asyncId, type) { if (type === 'Timeout') live.add(asyncId); },
    destroy(asyncId) { live.delete(asyncId); },
  });
  hook.enable();
  new Gauge({
    name: TIMER_CENSUS_METRIC,
    help: 'Timers alive in this process, unref\'d ones included (diagnostics.timerCensus)',
    registers: [registry],
    collect() { this.set(live.size); },
  });
  return () => hook.disable();
}
