// Renderer placement benchmark: the same BGRA frames (1920×1080 unless asked) rendered on the
// page's main thread and in the render worker (OffscreenCanvas), full frames
// and 200 64×64 tiles. Prints per-frame upload, draw and main-thread ms.
// Run after the build: node web/dist/bench/rendererBench.js [frames] [WIDTHxHEIGHT]
import { labDir, launchChromium, openWatchedPage, publicDir, startStaticServer } from '@lanterna/testkit';
import type { BenchResult } from '../lab/renderBench.js';

const frames = Number(process.argv[2] ?? 60);
const size = /^(\d+)x(\d+)$/.exec(process.argv[3] ?? '1920x1080');
if (!size) throw new Error('the size is WIDTHxHEIGHT, e.g. 3840x2160');
const width = Number(size[1]);
const height = Number(size[2]);

const server = await startStaticServer(publicDir, labDir);
const browser = await launchChromium();
try {
  const { page, problems } = await openWatchedPage(browser, { width, height });
  page.setDefaultTimeout(300_000);
  await page.goto(`${server.origin}/lab/lab.html`);
  await page.waitForSelector('body[data-ready="true"]');
  const info = await page.evaluate(() => {
    const gl = document.createElement('canvas').getContext('webgl2');
    const debug = gl?.getExtension('WEBGL_debug_renderer_info');
    return { renderer: gl && debug ? String(gl.getParameter(debug.UNMASKED_RENDERER_WEBGL)) : 'none', cores: navigator.hardwareConcurrency };
  });
  console.log(`renderer bench: ${width}×${height} BGRA, ${frames} frames per case, GPU ${info.renderer}, ${info.cores} cores`);
  console.log('placement  scenario  renderer  rects  upload ms (median/p95)  draw ms (median/p95)  main-thread ms (median/p95)  copies');
  const results: BenchResult[] = [];
  for (const scenario of ['full', 'tiles'] as const) {
    for (const placement of ['main', 'worker'] as const) {
      const result = await page.evaluate(
        (options) => {
          const lab = window.lanternaLab;
          if (!lab) throw new Error('lab api missing');
          return lab.runRenderBench(options);
        },
        { placement, scenario, frames, width, height, workerUrl: '/render.worker.js' },
      );
      results.push(result);
      const pair = (p: { median: number; p95: number }): string => `${p.median.toFixed(2)} / ${p.p95.toFixed(2)}`;
      console.log(
        [
          placement.padEnd(9),
          scenario.padEnd(8),
          result.renderer.padEnd(8),
          String(result.rectsPerFrame).padStart(5),
          pair(result.uploadMs).padStart(22),
          pair(result.drawMs).padStart(20),
          pair(result.mainThreadMs).padStart(27),
          String(result.copies).padStart(7),
        ].join('  '),
      );
    }
  }
  if (problems.length > 0) console.log(`page problems: ${problems.join('; ')}`);
  if (process.env.LANTERNA_BENCH_JSON === '1') console.log(JSON.stringify(results));
} finally {
  await browser.close();
  await server.close();
}
