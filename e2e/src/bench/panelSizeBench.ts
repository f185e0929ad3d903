// Benchmark (not a test): the display page's pipeline at each panel size
// (issue 28). For each size a lab display (Xvfb) of that size shows a scene,
// FreeRDP's shadow server sends it with one codec, and the display page, its
// window that size (device pixel ratio 1), asks for a desktop of that size
// through the real gateway. FreeRDP's shadow server sends its whole screen
// again as fast as the client acknowledges, even when nothing changes
// (kioskRig.ts), so a still scene is a stream of whole-desktop updates: what
// each frame costs at that size. Printed per size × scene × codec: frames/s in
// the page, decode ms (wasm: bulk, codec, colour conversion into the BGRX
// surface), upload ms (the render worker's texSubImage2D of the dirty
// rectangles), Mpixel uploaded per frame, MB/s on the wire, and the time from
// starting the page to the first whole picture on screen (exact for planar,
// ≥ 30 dB for the lossy codecs; for a moving scene the first that is not
// black). Exits 1 when a case shows no picture.
//
//   node e2e/dist/bench/panelSizeBench.js [--sizes 1920x1080,2560x1440,3840x2160]
//     [--scenes slide] [--codecs planar,remotefx,progressive] [--seconds 10] [--out FILE]
//
// after `bash wasm/build.sh && npm run build -w web && npx tsc -b e2e`.
import { loadavg } from 'node:os';
import { compareImages, type RgbImage, type SceneName } from '@lanterna/lab';
import { startKioskRig, waitForPicture } from '../kiosk/kioskRig.js';
import { psnr } from '../kiosk/psnr.js';
import { benchFlags } from './benchFlags.js';
import { runLabBench } from './labBench.js';
import { selectCodecs } from './glassToGlassCodecs.js';
import { samplePageFrames, sampleFigures } from './pageFrameSample.js';

const values = benchFlags({ sizes: '1920x1080,2560x1440,3840x2160', scenes: 'slide', codecs: 'planar,remotefx,progressive', seconds: '10', out: undefined });
const sizes = values.sizes.split(',').map((text) => {
  const match = /^(\d+)x(\d+)$/.exec(text.trim());
  if (!match) throw new Error(`a size is WIDTHxHEIGHT, not ${text}`);
  return { width: Number(match[1]), height: Number(match[2]) };
});
const scenes = values.scenes.split(',') as SceneName[];
const codecs = selectCodecs(values.codecs.split(','));
const seconds = Number(values.seconds);
/** Scenes that stand still: their first picture is compared with the screen. */
const STILL_SCENES: ReadonlySet<SceneName> = new Set(['slide', 'reference']);

await runLabBench({
  labName: 'panel-size-bench',
  out: values.out,
  heading: `panel size bench: ${seconds} s per case after the first picture, load ${loadavg().map((l) => l.toFixed(1)).join(' ')}`,
  columns: ['desktop', 'scene', 'codec', 'first picture s', 'frames/s', 'decode ms median / p95', 'upload ms median / p95', 'Mpixel uploaded per frame', 'MB/s on the wire', 'MB per frame'],
}, async ({ lab, say, fail }) => {
  for (const size of sizes) {
    for (const scene of scenes) {
      const display = await lab.display(size);
      await display.showScene(scene);
      const screen = await display.screenshot();
      for (const codec of codecs) {
        const shadow = await lab.shadowServer({ display, auth: 'tls', gfx: codec.gfx, extraArgs: codec.serverArgs });
        const started = Date.now();
        const rig = await startKioskRig({ target: shadow, ...size, ...(codec.kioskCodecs !== undefined ? { query: `codecs=${codec.kioskCodecs}` } : {}) });
        try {
          // a still scene: lossless codecs the exact picture, lossy ones within 30 dB of it (the shadow
          // server's RemoteFX keeps ≈45 on the slide); a moving one (terminal, animation) has no one
          // picture to wait for: the first of the desktop's size that is not black. H.264 needs a
          // moving scene to be measured at all: the shadow server sends it only what changed
          const lossless = codec.name === 'planar';
          // the black picture a moving scene is told from: made only for one (33 MB at 4K)
          const black: RgbImage | null = STILL_SCENES.has(scene) ? null : { width: size.width, height: size.height, data: Buffer.alloc(size.width * size.height * 4) };
          const shows = (image: RgbImage): boolean => image.width === size.width && image.height === size.height
            && (black !== null ? psnr(black, image) < 30 : lossless ? compareImages(screen, image) === undefined : psnr(screen, image) >= 30);
          const first = await waitForPicture(rig, shows, 90_000);
          const firstSeconds = ((Date.now() - started) / 1000).toFixed(1);
          if (!shows(first)) {
            fail();
            say(`| ${size.width}×${size.height} | ${scene} | ${codec.name} | no picture within 90 s | | | | | | |`);
            continue;
          }
          const sample = await samplePageFrames(rig.page, 2000, seconds);
          const f = sampleFigures(sample);
          const perFrame = sample.frames > 0 ? (sample.pixels / sample.frames / 1e6).toFixed(2) : '—';
          const wirePerFrame = sample.frames > 0 ? (Number(f.wireMBps) * seconds / sample.frames).toFixed(2) : '—';
          say(`| ${size.width}×${size.height} | ${scene} | ${codec.name} | ${firstSeconds} | ${f.framesPerSecond} | ${f.decode} | ${f.upload} | ${perFrame} | ${f.wireMBps} | ${wirePerFrame} |`);
          if (rig.kiosk.problems.length > 0) say(`  page problems: ${rig.kiosk.problems.join('; ')}`);
        } finally {
          await rig.close();
          await shadow.stop();
        }
      }
    }
  }
});
