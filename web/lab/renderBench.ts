// Renderer benchmark run inside the page: the same frames rendered on the
// main thread or in the render worker (OffscreenCanvas), with GPU-synchronous
// timing so that upload and draw costs are measured, not only queued.
import { createRenderer } from '../src/render/createRenderer.js';
import type { Rect } from '../src/render/frame.js';
import type { RenderStats } from '../src/render/renderStats.js';
import { RenderWorkerClient } from '../src/render/renderWorkerClient.js';
import { fillPattern } from './testPattern.js';

export type BenchPlacement = 'main' | 'worker';
export type BenchScenario = 'full' | 'tiles';

export interface BenchOptions {
  readonly placement: BenchPlacement;
  readonly scenario: BenchScenario;
  readonly frames: number;
  readonly width: number;
  readonly height: number;
  readonly workerUrl: string;
}

export interface Percentiles {
  readonly median: number;
  readonly p95: number;
}

export interface BenchResult {
  readonly placement: BenchPlacement;
  readonly scenario: BenchScenario;
  readonly renderer: string;
  readonly frames: number;
  readonly uploadMs: Percentiles;
  readonly drawMs: Percentiles;
  /** Main-thread time spent handing one frame over (all of it on the main placement). */
  readonly mainThreadMs: Percentiles;
  readonly rectsPerFrame: number;
  readonly pixelsPerFrame: number;
  readonly copies: number;
}

function percentiles(values: number[]): Percentiles {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number): number => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
  return { median: at(0.5), p95: at(0.95) };
}

/** 200 64×64 tiles spread over the desktop, moving with the frame number. */
function tiles(frame: number, width: number, height: number): Rect[] {
  const columns = Math.floor(width / 64);
  const rows = Math.floor(height / 64);
  const rects: Rect[] = [];
  for (let i = 0; i < 200; i++) {
    const cell = (i * 37 + frame * 101) % (columns * rows);
    rects.push({ x: (cell % columns) * 64, y: Math.floor(cell / columns) * 64, width: 64, height: 64 });
  }
  return rects;
}

export async function runRenderBench(options: BenchOptions): Promise<BenchResult> {
  const { width, height } = options;
  const stride = width * 4;
  const pixels = new Uint8Array(new SharedArrayBuffer(stride * height));
  fillPattern(pixels, width, height, stride, 1);
  const canvas = document.createElement('canvas');
  canvas.width = width;
  canvas.height = height;
  canvas.style.width = `${width}px`;
  canvas.style.height = `${height}px`;
  document.body.append(canvas);
  const rectsFor = (frame: number): Rect[] => (options.scenario === 'full' ? [{ x: 0, y: 0, width, height }] : tiles(frame, width, height));

  const stats: RenderStats[] = [];
  const mainThread: number[] = [];
  let rendererKind = '';
  try {
    if (options.placement === 'main') {
      const renderer = createRenderer(canvas, { syncTiming: true });
      rendererKind = renderer.kind;
      renderer.onstatistics = (s) => stats.push(s);
      renderer.setDesktopSize(width, height);
      for (let frame = 0; frame < options.frames; frame++) {
        const started = performance.now();
        renderer.update({ pixels, stride, format: 'bgra', rects: rectsFor(frame) });
        renderer.present();
        mainThread.push(performance.now() - started);
        // Let the page composite between frames as it would in real life.
        await new Promise((resolve) => setTimeout(resolve, 0));
      }
      renderer.destroy();
    } else {
      let pending: ((s: RenderStats) => void) | null = null;
      let abandon: ((error: Error) => void) | null = null;
      const trouble: { failure: string | null } = { failure: null };
      let started: () => void = () => undefined;
      const ready = new Promise<void>((resolve) => { started = resolve; });
      const client = new RenderWorkerClient(canvas, options.workerUrl, { syncTiming: true }, {
        onready: (kind) => {
          rendererKind = kind;
          started();
        },
        onstatistics: (s) => pending?.(s),
        onerror: (message) => {
          trouble.failure = message;
          started();
          abandon?.(new Error(message));
        },
      });
      await ready;
      if (trouble.failure !== null) throw new Error(trouble.failure);
      client.setDesktopSize(width, height);
      for (let frame = 0; frame < options.frames; frame++) {
        const done = new Promise<RenderStats>((resolve, reject) => {
          pending = resolve;
          abandon = reject;
        });
        const sentAt = performance.now();
        client.sendFrame({ type: 'frame', id: frame, pixels, stride, format: 'bgra', rects: rectsFor(frame), presentNow: true });
        mainThread.push(performance.now() - sentAt);
        stats.push(await done);
      }
      client.terminate();
    }
  } finally {
    canvas.remove();
  }
  const first = stats[0];
  return {
    placement: options.placement,
    scenario: options.scenario,
    renderer: rendererKind,
    frames: stats.length,
    uploadMs: percentiles(stats.map((s) => s.uploadMs)),
    drawMs: percentiles(stats.map((s) => s.drawMs)),
    mainThreadMs: percentiles(mainThread),
    rectsPerFrame: first?.rects ?? 0,
    pixelsPerFrame: first?.pixels ?? 0,
    copies: stats.reduce((sum, s) => sum + s.copies, 0),
  };
}
