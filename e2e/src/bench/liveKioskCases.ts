// The kiosk frame benchmark's live cases: the lab's animation scene through a
// real shadow server and the real gateway into the display page. The
// recordings are all xterm and typing; this is the only heavy-motion load.
import { Lab, type SceneName } from '@lanterna/lab';
import { startKioskRig } from '../kiosk/kioskRig.js';
import { medianP95 } from './benchFigures.js';

interface LiveCase {
  readonly name: string;
  readonly scene: SceneName;
  readonly gfx: boolean;
  readonly extraArgs?: readonly string[];
  readonly query?: string;
}

// The page advertises AVC whenever its VideoDecoder can decode it, and the shadow
// server then prefers H.264: the non-H.264 GFX cases leave AVC out with ?codecs=.
const cases: readonly LiveCase[] = [
  { name: 'animation, GFX H.264 AVC444v2 (server defaults)', scene: 'animation', gfx: true },
  { name: 'animation, GFX H.264 AVC420', scene: 'animation', gfx: true, query: 'codecs=planar,progressive,avc420' },
  { name: 'animation, GFX RemoteFX/progressive', scene: 'animation', gfx: true, query: 'codecs=planar,remotefx,progressive' },
  { name: 'animation, GFX progressive', scene: 'animation', gfx: true, extraArgs: ['-gfx-rfx'], query: 'codecs=planar,progressive' },
  { name: 'animation, GFX planar', scene: 'animation', gfx: true, extraArgs: ['-gfx-progressive', '-gfx-rfx'], query: 'codecs=planar' },
  { name: 'animation, RemoteFX surface bits', scene: 'animation', gfx: false },
];

interface Sample { decode: number[]; upload: number[]; copies: number; frames: number; pixels: number; bytesFrom: number | null; bytesTo: number }

/** Prints one row per live case, measured for `seconds` after 5 s of warm-up. */
export async function runLiveCases(seconds: number): Promise<void> {
  const lab = await Lab.create({ name: 'kiosk-frame-bench' });
  try {
    const display = await lab.display({ width: 1920, height: 1080 });
    console.log(`| live case | frames/s | decode ms median / p95 | upload ms median / p95 | Mpixel uploaded/s | MB/s on the wire | copies |`);
    console.log(`|---|---|---|---|---|---|---|`);
    for (const c of cases) {
      await display.showScene(c.scene);
      const shadow = await lab.shadowServer({ display, auth: 'tls', gfx: c.gfx, ...(c.extraArgs ? { extraArgs: c.extraArgs } : {}) });
      const rig = await startKioskRig({ target: shadow, ...(c.query !== undefined ? { query: c.query } : {}) });
      try {
        await rig.page.evaluate(() => {
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
        // Let the first full frame pass, then measure.
        await new Promise((resolve) => setTimeout(resolve, 5000));
        await rig.page.evaluate(() => { (globalThis as unknown as { benchSample: { recording: boolean } }).benchSample.recording = true; });
        await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
        const sample = await rig.page.evaluate(() => (globalThis as unknown as { benchSample: Sample }).benchSample);
        const wireMBps = (sample.bytesTo - (sample.bytesFrom ?? sample.bytesTo)) / seconds / 1e6;
        console.log(`| ${c.name} | ${(sample.frames / seconds).toFixed(1)} | ${medianP95(sample.decode)} | ${medianP95(sample.upload)} | ${(sample.pixels / seconds / 1e6).toFixed(2)} | ${wireMBps.toFixed(2)} | ${sample.copies} |`);
        if (rig.kiosk.problems.length > 0) console.log(`  page problems: ${rig.kiosk.problems.join('; ')}`);
      } finally {
        await rig.close();
        await shadow.stop();
      }
    }
  } finally {
    await lab.close();
  }
}
