// Benchmark (not a test): glass-to-glass latency at 1920×1080. The lab's
// terminal, animation and reference scenes carry the timestamp strip on Xvfb;
// FreeRDP's shadow server shares that screen with each codec it offers
// (glassToGlassCodecs.ts); the real gateway relays it to the display page in
// Debian's headless Chromium, whose render worker reads the strip back from
// each frame it draws. Per scene × codec: new stamps drawn per second (frames
// shown/s) and presenter screen → end of present latency p50/p95/p99.
//
//   node e2e/dist/bench/glassToGlassBench.js [--seconds 10] [--warmup 5]
//     [--scenes terminal,animation,reference] [--codecs planar,remotefx,progressive]
//     [--webgl swiftshader|gpu] [--gpu-sync] [--out glass-to-glass.md]
//
// --webgl gpu: Chromium's WebGL2 on the machine's GPU instead of SwiftShader
// (the table's header names the renderer the page got); --gpu-sync: a present
// ends when the GPU has drawn it (a pixel read back) instead of when its draw
// calls are issued. Exits 1 when a cell reads no stamp at all.
import { cpus, loadavg } from 'node:os';
import { Lab, type SceneName } from '@lanterna/lab';
import type { WebGlBackend } from '@lanterna/testkit';
import { quantile } from './benchFigures.js';
import { benchFlags, flagList, positiveFlag, sceneFlag } from './benchFlags.js';
import { selectCodecs, type ServerCodec } from './glassToGlassCodecs.js';
import { startGlassToGlassSession } from './glassToGlassSession.js';
import { runBench, writeTable } from './benchRun.js';

const BENCH_SCENES: readonly SceneName[] = ['terminal', 'animation', 'reference'];

interface Options {
  seconds: number;
  warmupSeconds: number;
  scenes: SceneName[];
  codecs: ServerCodec[];
  webgl: WebGlBackend;
  gpuSync: boolean;
  out: string;
}

function parseOptions(argv: readonly string[]): Options {
  const values = benchFlags({
    seconds: '10', warmup: '5', scenes: undefined, codecs: undefined, webgl: 'swiftshader', 'gpu-sync': false, out: 'glass-to-glass.md',
  }, argv);
  const scenes = values.scenes === undefined ? [...BENCH_SCENES] : sceneFlag(values.scenes);
  if (values.webgl !== 'swiftshader' && values.webgl !== 'gpu') throw new Error(`--webgl must be swiftshader or gpu, got '${values.webgl}'`);
  return {
    seconds: positiveFlag(values.seconds, 'seconds', ' of seconds'),
    warmupSeconds: positiveFlag(values.warmup, 'warmup', ' of seconds'),
    scenes,
    codecs: selectCodecs(values.codecs === undefined ? undefined : flagList(values.codecs)),
    webgl: values.webgl,
    gpuSync: values['gpu-sync'],
    out: values.out,
  };
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

const fixed = (value: number): string => (Number.isNaN(value) ? '—' : value.toFixed(1));
const load = (): string => loadavg().map((value) => value.toFixed(1)).join(' ');

async function main(): Promise<number> {
  const options = parseOptions(process.argv.slice(2));
  const rows: string[] = [];
  let renderer = 'unknown';
  let emptyCells = 0;
  const loadBefore = load();
  const lab = await Lab.create({ name: 'glass-to-glass-bench' });
  try {
    const display = await lab.display({ width: 1920, height: 1080 });
    for (const scene of options.scenes) {
      await display.showScene(scene, { timestampStrip: true });
      for (const codec of options.codecs) {
        const session = await startGlassToGlassSession({ lab, display, codec, webgl: options.webgl, gpuSync: options.gpuSync });
        try {
          renderer = await session.webglRenderer();
          await sleep(options.warmupSeconds * 1000);
          await session.startSampling();
          const loadAtStart = loadavg()[0] ?? 0;
          await sleep(options.seconds * 1000);
          const { latencies, presents, spanMs } = await session.samples();
          const seconds = spanMs / 1000;
          if (latencies.length === 0) emptyCells += 1;
          const problems = session.rig.kiosk.problems.length > 0 ? ` (page: ${session.rig.kiosk.problems.slice(0, 2).join('; ')})` : '';
          const row = `| ${scene} | ${codec.name} | ${(latencies.length / seconds).toFixed(1)} | ${fixed(quantile(latencies, 0.5))} | ${fixed(quantile(latencies, 0.95))} | ${fixed(quantile(latencies, 0.99))} | ${latencies.length} | ${(presents / seconds).toFixed(1)} | ${loadAtStart.toFixed(1)} |${problems}`;
          rows.push(row);
          console.log(row);
        } finally {
          await session.close();
        }
      }
    }
  } finally {
    await lab.close();
  }
  const about = [
    `Glass-to-glass at 1920×1080: presenter screen (the lab's timestamp strip on Xvfb) → FreeRDP shadow server → gateway → display page (wasm FreeRDP, WebGL2 render worker) → end of present${options.gpuSync ? ' (GPU waited for)' : ' (draw calls issued)'}.`,
    `WebGL: ${renderer}. ${options.seconds} s measured per cell after ${options.warmupSeconds} s of warm-up. ${cpus().length} CPUs; load average (1/5/15 min) before ${loadBefore}, after ${load()}.`,
  ];
  const columns = ['scene', 'codec', 'frames shown/s', 'latency p50 ms', 'p95 ms', 'p99 ms', 'stamps', 'presents/s', 'load at start'];
  await writeTable(options.out, about, columns, rows);
  return emptyCells > 0 ? 1 : 0;
}

runBench(main);
