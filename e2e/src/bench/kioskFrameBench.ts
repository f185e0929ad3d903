// Benchmark (not a test): per-frame cost in the kiosk page at 1920×1080 —
// decode ms (session worker: first input after a frame → end of paint) and
// upload ms (render worker, texSubImage2D of the dirty rectangles) — and the
// CPU copies of decoded pixels, for live shadow-server sessions. The wasm
// client has no replay API yet, so the recordings in /work/shared/recordings/
// cannot be replayed into the page; live sessions of the lab's scenes stand in.
//
//   node e2e/dist/bench/kioskFrameBench.js [seconds per case]
import { Lab, type SceneName } from '@lanterna/lab';
import { startKioskRig } from '../kiosk/kioskRig.js';

interface Case {
  readonly name: string;
  readonly scene: SceneName;
  readonly gfx: boolean;
  readonly extraArgs?: readonly string[];
  readonly query?: string;
}

const cases: readonly Case[] = [
  { name: 'animation, GFX RemoteFX/progressive', scene: 'animation', gfx: true },
  { name: 'animation, GFX planar', scene: 'animation', gfx: true, extraArgs: ['-gfx-progressive', '-gfx-rfx'], query: 'codecs=planar' },
  { name: 'animation, RemoteFX surface bits', scene: 'animation', gfx: false },
  { name: 'terminal, GFX RemoteFX/progressive', scene: 'terminal', gfx: true },
];

const seconds = Number(process.argv[2] ?? 10);

interface Sample { decode: number[]; upload: number[]; draw: number[]; copies: number; frames: number; pixels: number }

function quantile(values: readonly number[], q: number): string {
  if (values.length === 0) return '—';
  const sorted = [...values].sort((a, b) => a - b);
  return (sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0).toFixed(1);
}

const lab = await Lab.create({ name: 'kiosk-frame-bench' });
try {
  const display = await lab.display({ width: 1920, height: 1080 });
  console.log(`| case | frames/s | decode ms median / p95 | upload ms median / p95 | Mpixel uploaded/s | copies |`);
  console.log(`|---|---|---|---|---|---|`);
  for (const c of cases) {
    await display.showScene(c.scene);
    const shadow = await lab.shadowServer({ display, auth: 'tls', gfx: c.gfx, ...(c.extraArgs ? { extraArgs: c.extraArgs } : {}) });
    const rig = await startKioskRig({ target: shadow, ...(c.query !== undefined ? { query: c.query } : {}) });
    try {
      await rig.page.evaluate(() => {
        const sample = { decode: [] as number[], upload: [] as number[], draw: [] as number[], copies: 0, frames: 0, pixels: 0, recording: false };
        (globalThis as unknown as { benchSample: typeof sample }).benchSample = sample;
        window.addEventListener('lanterna:decode', (event) => {
          if (sample.recording) sample.decode.push((event as CustomEvent<{ decodeMs: number }>).detail.decodeMs);
        });
        window.addEventListener('lanterna:render', (event) => {
          const stats = (event as CustomEvent<{ uploadMs: number; drawMs: number; copies: number; pixels: number }>).detail;
          if (!sample.recording) return;
          sample.frames += 1;
          sample.upload.push(stats.uploadMs);
          sample.draw.push(stats.drawMs);
          sample.copies += stats.copies;
          sample.pixels += stats.pixels;
        });
      });
      // Let the first full frame pass, then measure.
      await new Promise((resolve) => setTimeout(resolve, 5000));
      await rig.page.evaluate(() => { (globalThis as unknown as { benchSample: { recording: boolean } }).benchSample.recording = true; });
      await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
      const sample = await rig.page.evaluate(() => (globalThis as unknown as { benchSample: Sample }).benchSample);
      console.log(`| ${c.name} | ${(sample.frames / seconds).toFixed(1)} | ${quantile(sample.decode, 0.5)} / ${quantile(sample.decode, 0.95)} | ${quantile(sample.upload, 0.5)} / ${quantile(sample.upload, 0.95)} | ${(sample.pixels / seconds / 1e6).toFixed(2)} | ${sample.copies} |`);
      if (rig.kiosk.problems.length > 0) console.log(`  page problems: ${rig.kiosk.problems.join('; ')}`);
    } finally {
      await rig.close();
      await shadow.stop();
    }
  }
} finally {
  await lab.close();
}
