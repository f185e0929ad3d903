// Entry of the lab page (dist/lab-pages/lab.html): exposes the renderer to tests and benchmarks.
import { computeLetterbox } from '../src/render/letterbox.js';
import { createRenderer } from '../src/render/createRenderer.js';
import { showRendererWarning } from '../src/pages/display/rendererWarning.js';
import { readCanvasRgba, toBase64 } from './canvasReadback.js';
import type { LabApi } from './labApi.js';
import { runRenderBench } from './renderBench.js';
import { RenderWorkerClient } from '../src/render/renderWorkerClient.js';
import { fillPattern } from './testPattern.js';
import { makePixelCanvas } from './pixelCanvas.js';

const api: LabApi = {
  createRenderer,
  computeLetterbox,
  fillPattern,
  readCanvasRgba,
  toBase64,
  showRendererWarning,
  runRenderBench,
  RenderWorkerClient,
  makeCanvas: makePixelCanvas,
};
window.lanternaLab = api;
document.body.dataset.ready = 'true';
