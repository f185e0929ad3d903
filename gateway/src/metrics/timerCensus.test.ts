import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Registry } from 'prom-client';
import { startTimerCensus, TIMER_CENSUS_METRIC } from './timerCensus.js';

async function count(registry: Registry): Promise<number> {
  const metric = await registry.getSingleMetric(TIMER_CENSUS_METRIC)?.get();
  return metric?.values[0]?.value ?? Number.NaN;
}

void test('the census counts unref\'d timers that Node\'s active-resource count misses, until they are cleared or fire', async () => {
  const registry = new Registry();
  const stop = startTimerCensus(registry);
  try {
    const before = await count(registry);
    const nodeBefore = process.getActiveResourcesInfo().filter((type) => type === 'Timeout').length;
    const unrefd = Array.from({ length: 5 }, () => setTimeout(() => undefined, 60_000).unref());
    const interval = setInterval(() => undefined, 60_000).unref();
    const soon = { fired: false };
    setTimeout(() => { soon.fired = true; }, 1).unref();
    assert.equal(await count(registry), before + 7);
    assert.equal(process.getActiveResourcesInfo().filter((type) => type === 'Timeout').length, nodeBefore, 'Node does not see unref\'d timers');
    for (const timer of unrefd) clearTimeout(timer);
    clearInterval(interval);
    // Node runs destroy hooks a little after the fact: poll (on immediates, no timers of our own) with a deadline
    const deadline = Date.now() + 5000;
    while ((!soon.fired || await count(registry) !== before) && Date.now() < deadline) await new Promise((resolve) => setImmediate(resolve));
    assert.ok(soon.fired);
    assert.equal(await count(registry), before, 'cleared and fired timers are no longer counted');
  } finally {
    stop();
  }
});
