// What a live display page did over a while: the page's own hooks
// (`lanterna:decode`, `lanterna:render`) collected in the page after a
// warm-up, for the live benchmarks (liveKioskCases.ts, panelSizeBench.ts).
import type { Page } from 'playwright-core';
import { medianP95 } from './benchFigures.js';

export interface PageFrameSample {
  readonly seconds: number;
  /** Decode ms per frame (previous frame handed back → end of paint). */
  readonly decode: number[];
  /** Upload ms per present (the render worker's texSubImage2D calls). */
  readonly upload: number[];
  readonly copies: number;
  /** Presents. */
  readonly frames: number;
  readonly pixels: number;
  readonly bytesFrom: number | null;
  readonly bytesTo: number;
}

/** Starts collecting in the page, waits `warmupMs`, keeps `seconds` of samples and returns them. */
export async function samplePageFrames(page: Page, warmupMs: number, seconds: number): Promise<PageFrameSample> {
  await page.evaluate(() => {
    const sample = { decode: [] as number[], upload: [] as number[], copies: 0, frames: 0, pixels: 0, recording: false, bytesFrom: null as number | null, bytesTo: 0 };
    (globalThis as unknown as { benchSample: typeof sample }).benchSample = sample;
    window.addEventListener('lanterna:decode', (event) => {
      const detail = (event as CustomEvent<{ decodeMs: number; bytesIn: number }>).detail;
      if (!sample.recording) return;
      sample.decode.push(detail.decodeMs);
      sample.bytesFrom ??= detail.bytesIn;
      sample.bytesTo = detail.bytesIn;
    });
    window.addEventListener('lanterna:render', (event) => {
      const stats = (event as CustomEvent<{ uploadMs: number; copies: number; pixels: number }>).detail;
      if (!sample.recording) return;
      sample.frames += 1;
      sample.upload.push(stats.uploadMs);
      sample.copies += stats.copies;
      sample.pixels += stats.pixels;
    });
  });
  await new Promise((resolve) => setTimeout(resolve, warmupMs));
  await page.evaluate(() => { (globalThis as unknown as { benchSample: { recording: boolean } }).benchSample.recording = true; });
  await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
  const sample = await page.evaluate(() => (globalThis as unknown as { benchSample: Omit<PageFrameSample, 'seconds'> }).benchSample);
  return { ...sample, seconds };
}

/** The figures of a sample: frames/s, decode and upload ms (median / p95), Mpixel uploaded per second, MB/s on the wire. */
export function sampleFigures(sample: PageFrameSample): { framesPerSecond: string; decode: string; upload: string; mpixelPerSecond: string; wireMBps: string } {
  const wire = (sample.bytesTo - (sample.bytesFrom ?? sample.bytesTo)) / sample.seconds / 1e6;
  return {
    framesPerSecond: (sample.frames / sample.seconds).toFixed(1),
    decode: medianP95(sample.decode),
    upload: medianP95(sample.upload),
    mpixelPerSecond: (sample.pixels / sample.seconds / 1e6).toFixed(2),
    wireMBps: wire.toFixed(2),
  };
}
