// Does the shadow server's H.264 picture refine over time? A still scene on a
// lab display, a fresh shadow server (TLS, GFX defaults) and the kiosk page
// (AVC444v2 by default, AVC420 with the page's codecs=…,avc420), with or
// without the timestamp strip changing the top-left corner every frame (so the
// encoder keeps producing P-frames); every second the page's picture, PSNR
// against the display outside the strip's band (rows 64 and down), and the
// bytes relayed to the kiosk in that second. A benchmark: it prints, asserts nothing.
//
// node e2e/dist/bench/h264Refinement.js [--seconds 20] [--scenes reference,slide] [--codecs avc444,avc420] [--strip on,off]
import { Lab, type SceneName } from '@lanterna/lab';
import { startKioskRig } from '../kiosk/kioskRig.js';
import { psnr } from '../kiosk/psnr.js';
import { benchFlags } from './benchFlags.js';

const QUERIES = { avc444: undefined, avc420: 'codecs=planar,progressive,avc420' } as const;
type Codec = keyof typeof QUERIES;

const values = benchFlags({ seconds: '20', scenes: 'reference', codecs: 'avc444,avc420', strip: 'on,off' });
const seconds = Number(values.seconds);
const scenes = values.scenes.split(',') as SceneName[];
const codecs = values.codecs.split(',') as Codec[];
const strips = values.strip.split(',').map((s) => s === 'on');

// Below the strip's band (@lanterna/protocol's TIMESTAMP_STRIP: the top 64 rows), the whole width: the part that never changes.
const STRIP_BAND_ROWS = 64;
const still = { x: 0, y: STRIP_BAND_ROWS, width: 1920, height: 1080 - STRIP_BAND_ROWS };

const lab = await Lab.create({ name: 'h264-refinement' });
try {
  for (const scene of scenes) {
    for (const strip of strips) {
      const display = await lab.display({ width: 1920, height: 1080 });
      await display.showScene(scene, { timestampStrip: strip });
      const truth = await display.screenshot();
      for (const codec of codecs) {
        const shadow = await lab.shadowServer({ display, auth: 'tls', gfx: true });
        const rig = await startKioskRig({ target: shadow, ...(QUERIES[codec] !== undefined ? { query: QUERIES[codec] } : {}) });
        try {
          const curve: string[] = [];
          const start = Date.now();
          let lastBytes = 0;
          for (let s = 1; s <= seconds; s++) {
            const due = start + s * 1000;
            if (Date.now() < due) await new Promise((resolve) => setTimeout(resolve, due - Date.now()));
            const image = await rig.screenshot();
            const { values: bytes } = await rig.gateway.metrics.bytes.get();
            const toKiosk = bytes.find((v) => v.labels.direction === 'to-kiosk')?.value ?? 0;
            curve.push(`${((Date.now() - start) / 1000).toFixed(1)} s ${psnr(truth, image, still).toFixed(2)} dB (${Math.round((toKiosk - lastBytes) / 1024)} KiB)`);
            lastBytes = toKiosk;
          }
          console.log(`${scene} ${codec} strip ${strip ? 'on' : 'off'}: ${curve.join(', ')}`);
        } finally {
          await rig.close();
          await shadow.stop();
        }
      }
    }
  }
} finally {
  await lab.close();
}
