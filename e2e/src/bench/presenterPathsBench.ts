// Benchmark (not a test): glass-to-glass latency of the two ways a screen
// reaches a display, side by side in one run — the browser presenter (the
// presenter page is the RDP server: Chromium's getDisplayMedia of the whole
// screen, WebCodecs H.264, FreeRDP's server in wasm, the presenter socket)
// and FreeRDP's shadow server (today's path: the gateway connects to it over
// TLS). One Xvfb screen shows each lab scene with the timestamp strip (the
// lab paints this machine's clock in ms every frame); both paths share that
// same screen through the real gateway to the display page in headless
// Chromium, whose render worker reads the stamp back from each frame it
// draws. Per scene × path: frames shown/s (new stamps drawn per second),
// latency p50/p95/p99 (strip painted → end of the present that shows it), and
// for the browser path the presenter's own figures (capture, encode, bytes).
//
//   node e2e/dist/bench/presenterPathsBench.js [--seconds 10] [--warmup 5]
//     [--scenes terminal,animation] [--codecs avc420,remotefx]
//     [--width 1280] [--height 720] [--out presenter-paths.md]
//
// --codecs: the shadow server's codecs (glassToGlassCodecs.ts) to run beside
// the browser path. Exits 1 when a cell read no stamp at all.
import { cpus, loadavg } from 'node:os';
import type { Browser } from 'playwright-core';
import { Lab, type LabDisplay, type SceneName } from '@lanterna/lab';
import { launchScreenPresenter, minimiseWindow, openPresenterPage, pressShare, shareReports, startShareRig, stopSharing, type ShareRig } from '../kiosk/shareRig.js';
import { quantile } from './benchFigures.js';
import { benchFlags, flagList, positiveFlag, sceneFlag } from './benchFlags.js';
import { selectCodecs, type ServerCodec } from './glassToGlassCodecs.js';
import { startGlassToGlassSession } from './glassToGlassSession.js';
import { installStripSampler, startStripSampling, stripSamples, type StripSamples } from './stripSampler.js';
import { runBench, writeTable } from './benchRun.js';

interface Options {
  seconds: number;
  warmupSeconds: number;
  scenes: SceneName[];
  codecs: ServerCodec[];
  width: number;
  height: number;
  out: string;
  /** Where the browser presenter's own window is while it shares: minimised, or in front at the screen's bottom right (the strip, top left, stays clear). */
  presenterWindow: 'minimised' | 'front';
}

function parseOptions(argv: readonly string[]): Options {
  const values = benchFlags({
    seconds: '10', warmup: '5', scenes: 'terminal,animation', codecs: 'avc420,remotefx',
    width: '1280', height: '720', out: 'presenter-paths.md', 'presenter-window': 'minimised',
  }, argv);
  return {
    seconds: positiveFlag(values.seconds, 'seconds'),
    warmupSeconds: positiveFlag(values.warmup, 'warmup'),
    scenes: sceneFlag(values.scenes),
    codecs: selectCodecs(flagList(values.codecs)),
    width: Math.round(positiveFlag(values.width, 'width')),
    height: Math.round(positiveFlag(values.height, 'height')),
    out: values.out,
    presenterWindow: values['presenter-window'] === 'front' ? 'front' : 'minimised',
  };
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
const fixed = (value: number): string => (Number.isNaN(value) ? '—' : value.toFixed(1));
const load = (): string => loadavg().map((value) => value.toFixed(1)).join(' ');

interface Cell {
  samples: StripSamples;
  loadAtStart: number;
  /** The browser presenter's own figures over the sampled seconds, in words. */
  presenter: string;
}

/** Warm-up, then the samples of one path; `presenterFigures` is given when the sampling began (epoch ms). */
async function measure(page: Parameters<typeof startStripSampling>[0], options: Options, presenterFigures: (since: number) => Promise<string>): Promise<Cell> {
  await sleep(options.warmupSeconds * 1000);
  await startStripSampling(page);
  const loadAtStart = loadavg()[0] ?? 0;
  const since = Date.now();
  await sleep(options.seconds * 1000);
  const samples = await stripSamples(page);
  return { samples, loadAtStart, presenter: await presenterFigures(since) };
}

async function shadowCell(lab: Lab, display: LabDisplay, codec: ServerCodec, options: Options): Promise<Cell> {
  const session = await startGlassToGlassSession({ lab, display, codec, width: options.width, height: options.height });
  try {
    return await measure(session.rig.page, options, () => Promise.resolve('—'));
  } finally {
    await session.close();
  }
}

interface ShareFiguresReport { capturedPerSecond: number; picturesPerSecond: number; bytesPerSecond: number; encodeMs: number }

/**
 * The browser path for one scene. The presenter's window opens, shares and is
 * minimised over a still screen, and only then the scene starts: the terminal
 * scene's xdotool types into whichever window has the focus, and typed into
 * the presenter page it garbled the PIN.
 */
async function browserCell(display: LabDisplay, scene: SceneName, options: Options): Promise<Cell> {
  await display.showScene('slide');
  const rig: ShareRig = await startShareRig({ width: options.width, height: options.height, displayId: 'room-bench' });
  let presenterBrowser: Browser | undefined;
  try {
    await installStripSampler(rig.display.page);
    presenterBrowser = await launchScreenPresenter(display.env, { x: Math.max(0, options.width - 800), y: Math.max(0, options.height - 600) });
    const presenter = await openPresenterPage(presenterBrowser, rig, { width: 800, height: 600 });
    // the first picture took over 30 s once at load average 23
    await pressShare(presenter.page, rig, 90_000);
    // the presenter's window off the shared screen, as a person switching to their slides
    if (options.presenterWindow === 'minimised') await minimiseWindow(presenter.page);
    await display.showScene(scene, { timestampStrip: true });
    const cell = await measure(rig.display.page, options, async (since) => {
      const figures = (await shareReports(presenter.page))
        .filter((report) => report.type === 'figures' && report.at >= since)
        .map((report) => report.figures as ShareFiguresReport);
      if (figures.length === 0) return 'no figures';
      const mean = (pick: (figure: ShareFiguresReport) => number): number => figures.reduce((total, figure) => total + pick(figure), 0) / figures.length;
      return `captured ${mean((figure) => figure.capturedPerSecond).toFixed(1)}/s, sent ${mean((figure) => figure.picturesPerSecond).toFixed(1)}/s, encode ${mean((figure) => figure.encodeMs).toFixed(1)} ms, ${(mean((figure) => figure.bytesPerSecond) / 1e6).toFixed(2)} MB/s`;
    });
    await stopSharing(presenter.page, rig).catch(() => undefined);
    return cell;
  } finally {
    await presenterBrowser?.close();
    await rig.close();
  }
}

async function main(): Promise<number> {
  const options = parseOptions(process.argv.slice(2));
  const rows: string[] = [];
  let emptyCells = 0;
  const loadBefore = load();
  const lab = await Lab.create({ name: 'presenter-paths-bench' });
  const row = (scene: string, path: string, cell: Cell): void => {
    const { latencies, presents, spanMs } = cell.samples;
    const seconds = spanMs / 1000;
    if (latencies.length === 0) emptyCells += 1;
    const line = `| ${scene} | ${path} | ${(latencies.length / seconds).toFixed(1)} | ${fixed(quantile(latencies, 0.5))} | ${fixed(quantile(latencies, 0.95))} | ${fixed(quantile(latencies, 0.99))} | ${latencies.length} | ${(presents / seconds).toFixed(1)} | ${cell.presenter} | ${cell.loadAtStart.toFixed(1)} |`;
    rows.push(line);
    console.log(line);
  };
  try {
    const display = await lab.display({ width: options.width, height: options.height });
    for (const scene of options.scenes) {
      row(scene, 'browser presenter (Chromium, WebCodecs H.264 AVC420)', await browserCell(display, scene, options));
      for (const codec of options.codecs) row(scene, `FreeRDP shadow server (${codec.name})`, await shadowCell(lab, display, codec, options));
    }
  } finally {
    await lab.close();
  }
  const about = [
    `Glass-to-glass at ${options.width}×${options.height}, one Xvfb screen with the lab's timestamp strip shared two ways: the browser presenter (headful Chromium sharing the whole screen from /present) and FreeRDP's shadow server; the real gateway (native data plane), the display page in headless Chromium (wasm FreeRDP, WebGL2 on SwiftShader), latency = strip painted → end of the present that shows it.`,
    `${options.seconds} s measured per cell after ${options.warmupSeconds} s of warm-up. ${cpus().length} CPUs, shared; load average (1/5/15 min) before ${loadBefore}, after ${load()}.`,
  ];
  const columns = ['scene', 'path', 'frames shown/s', 'latency p50 ms', 'p95 ms', 'p99 ms', 'stamps', 'presents/s', 'presenter (browser path)', 'load at start'];
  await writeTable(options.out, about, columns, rows);
  return emptyCells > 0 ? 1 : 0;
}

runBench(main);
