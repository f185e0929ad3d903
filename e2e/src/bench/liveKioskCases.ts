// The kiosk frame benchmark's live cases: the lab's animation scene through a
// real shadow server and the real gateway into the display page. The
// recordings are all xterm and typing; this is the only heavy-motion load.
import { Lab, type SceneName } from '@lanterna/lab';
import { startKioskRig } from '../kiosk/kioskRig.js';
import { samplePageFrames, sampleFigures } from './pageFrameSample.js';

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
        // Let the first full frame pass, then measure.
        const sample = await samplePageFrames(rig.page, 5000, seconds);
        const f = sampleFigures(sample);
        console.log(`| ${c.name} | ${f.framesPerSecond} | ${f.decode} | ${f.upload} | ${f.mpixelPerSecond} | ${f.wireMBps} | ${sample.copies} |`);
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
