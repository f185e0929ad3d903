// The display page's glass-to-glass samples: each `lanterna:render` whose
// render worker read a new timestamp-strip stamp from the frame it drew
// (`detail.strip.latencyMs`), counted in the page from `startSampling` on.
// The same for every presenter path the benchmarks compare.
import type { Page } from 'playwright-core';

export interface StripSamples {
  /** Latency of each new stamp drawn (ms). */
  readonly latencies: number[];
  /** Presents, with or without a new stamp. */
  readonly presents: number;
  /** Wall time the samples cover (ms). */
  readonly spanMs: number;
}

interface PageSampler {
  latencies: number[];
  presents: number;
  since: number;
}

/** Starts listening on the page (once per page). */
export async function installStripSampler(page: Page): Promise<void> {
  await page.evaluate(() => {
    const sampler: PageSampler = { latencies: [], presents: 0, since: performance.now() };
    (globalThis as unknown as { glassToGlass: PageSampler }).glassToGlass = sampler;
    window.addEventListener('lanterna:render', (event) => {
      const detail = (event as CustomEvent<{ strip?: { latencyMs: number } }>).detail;
      sampler.presents += 1;
      if (detail.strip) sampler.latencies.push(detail.strip.latencyMs);
    });
  });
}

/** Drops what came before: counting starts now. */
export async function startStripSampling(page: Page): Promise<void> {
  await page.evaluate(() => {
    const sampler = (globalThis as unknown as { glassToGlass: PageSampler }).glassToGlass;
    sampler.latencies = [];
    sampler.presents = 0;
    sampler.since = performance.now();
  });
}

export async function stripSamples(page: Page): Promise<StripSamples> {
  return page.evaluate(() => {
    const sampler = (globalThis as unknown as { glassToGlass: PageSampler }).glassToGlass;
    return { latencies: [...sampler.latencies], presents: sampler.presents, spanMs: performance.now() - sampler.since };
  });
}
