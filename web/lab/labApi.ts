// What the lab page puts on window for Node-side tests and benchmarks (they
// drive it with page.evaluate).
import type { computeLetterbox } from '../src/render/letterbox.js';
import type { createRenderer } from '../src/render/createRenderer.js';
import type { showRendererWarning } from '../src/pages/display/rendererWarning.js';
import type { readCanvasRgba, toBase64 } from './canvasReadback.js';
import type { runRenderBench } from './renderBench.js';
import type { RenderWorkerClient } from '../src/render/renderWorkerClient.js';
import type { fillPattern } from './testPattern.js';

export interface LabApi {
  readonly createRenderer: typeof createRenderer;
  readonly computeLetterbox: typeof computeLetterbox;
  readonly fillPattern: typeof fillPattern;
  readonly readCanvasRgba: typeof readCanvasRgba;
  readonly toBase64: typeof toBase64;
  readonly showRendererWarning: typeof showRendererWarning;
  readonly runRenderBench: typeof runRenderBench;
  readonly RenderWorkerClient: typeof RenderWorkerClient;
  /** A canvas of exactly width×height device pixels, shown at that CSS size. */
  makeCanvas(width: number, height: number): HTMLCanvasElement;
}

declare global {
  interface Window {
    lanternaLab?: LabApi;
  }
}
