// Benchmark (not a test): several sources on one display page (issue 29).
// For 1, 2 and 4 sources a lab room (../kiosk/roomRig.ts): one X screen per
// source the size of its slot on the panel (grid layout: 1 fills it, 2 side
// by side, 4 in a 2×2 grid), each with its own FreeRDP shadow server showing
// the scene with one codec, all projected into one display page through the
// real gateway. FreeRDP's shadow server resends its whole screen as fast as
// the client acknowledges (kioskRig.ts), so even a still scene is a stream of
// whole-slot updates. Printed per sources × scene × codec, from the page's
// own hooks (`lanterna:decode`, `lanterna:render`, each naming its slot):
// frames/s per source (mean of the sources) and in all, decode ms and upload
// ms per frame (median / p95 over all sources), decode + upload ms per frame
// (medians added), and each source's MB/s on the wire at its slot size.
//
//   node e2e/dist/bench/roomSourcesBench.js [--sources 1,2,4] [--scenes animation,slide]
//     [--codecs planar] [--panel 1920x1080] [--seconds 10] [--out FILE]
//
// after `bash wasm/build.sh && npm run build -w web && npx tsc -b e2e`.
import { loadavg } from 'node:os';
import { type SceneName } from '@lanterna/lab';
import { startRoomRig } from '../kiosk/roomRig.js';
import { medianP95, quantile } from './benchFigures.js';
import { benchFlags } from './benchFlags.js';
import { runLabBench } from './labBench.js';
import { selectCodecs } from './glassToGlassCodecs.js';

const values = benchFlags({ sources: '1,2,4', scenes: 'animation,slide', codecs: 'planar', panel: '1920x1080', seconds: '10', warmup: '5', out: undefined });
const counts = values.sources.split(',').map(Number);
const scenes = values.scenes.split(',') as SceneName[];
const codecs = selectCodecs(values.codecs.split(','));
const panelMatch = /^(\d+)x(\d+)$/.exec(values.panel);
if (!panelMatch) throw new Error(`--panel is WIDTHxHEIGHT, not ${values.panel}`);
const panel = { width: Number(panelMatch[1]), height: Number(panelMatch[2]) };
const seconds = Number(values.seconds);
const warmupMs = Number(values.warmup) * 1000;

interface RoomSample {
  decode: number[];
  upload: number[];
  /** Presents that changed each slot's picture. */
  frames: Record<string, number>;
  bytesFrom: Record<string, number>;
  bytesTo: Record<string, number>;
  recording: boolean;
}

await runLabBench({
  labName: 'room-sources-bench',
  out: values.out,
  heading: `several sources on one display: panel ${panel.width}×${panel.height}, ${seconds} s per case after ${warmupMs / 1000} s of warm-up, load ${loadavg().map((l) => l.toFixed(1)).join(' ')} (2 shared cores: figures are inflated)`,
  columns: ['sources', 'scene', 'codec', 'slot size', 'frames/s per source', 'frames/s in all', 'decode ms median / p95', 'upload ms median / p95', 'decode + upload ms per frame', 'MB/s per source'],
}, async ({ lab, say, fail }) => {
  for (const count of counts) {
    for (const scene of scenes) {
      for (const codec of codecs) {
        const room = await startRoomRig(lab, {
          count, panel, pictures: [scene], gfx: codec.gfx, serverArgs: codec.serverArgs,
          ...(codec.kioskCodecs !== undefined ? { query: `codecs=${codec.kioskCodecs}` } : {}),
        });
        try {
          // every source's picture is up before the warm-up starts
          const allDrew = await room.page.waitForFunction((n) => Object.keys((globalThis as unknown as { roomSeen: { presents: Record<string, number> } }).roomSeen.presents).length >= n, count, { timeout: 120_000, polling: 500 }).then(() => true, () => false);
          if (!allDrew) {
            const drew = await room.page.evaluate(() => JSON.stringify((globalThis as unknown as { roomSeen: { presents: unknown } }).roomSeen.presents));
            const labels = await room.page.$$eval('#slot-labels .slot-tag', (tags) => tags.map((tag) => tag.textContent).join(' | '));
            say(`  ${count} × ${scene}: not every source drew within 120 s (presents per slot ${drew}; labels: ${labels}); measuring what there is`);
          }
          await room.page.evaluate(() => {
            const sample: RoomSample = { decode: [], upload: [], frames: {}, bytesFrom: {}, bytesTo: {}, recording: false };
            (globalThis as unknown as { roomSample: RoomSample }).roomSample = sample;
            window.addEventListener('lanterna:decode', (event) => {
              const detail = (event as CustomEvent<{ decodeMs: number; bytesIn: number; slot: number }>).detail;
              if (!sample.recording) return;
              sample.decode.push(detail.decodeMs);
              if (!(detail.slot in sample.bytesFrom)) sample.bytesFrom[detail.slot] = detail.bytesIn;
              sample.bytesTo[detail.slot] = detail.bytesIn;
            });
            window.addEventListener('lanterna:render', (event) => {
              const detail = (event as CustomEvent<{ uploadMs: number; slot: number }>).detail;
              if (!sample.recording) return;
              sample.frames[detail.slot] = (sample.frames[detail.slot] ?? 0) + 1;
              sample.upload.push(detail.uploadMs);
            });
          });
          await new Promise((resolve) => setTimeout(resolve, warmupMs));
          await room.page.evaluate(() => { (globalThis as unknown as { roomSample: RoomSample }).roomSample.recording = true; });
          await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
          const sample = await room.page.evaluate(() => {
            const taken = (globalThis as unknown as { roomSample: RoomSample }).roomSample;
            taken.recording = false;
            return taken;
          });
          const perSource = Object.values(sample.frames);
          const allFrames = perSource.reduce((total, frames) => total + frames, 0);
          const wire = Object.keys(sample.bytesTo).map((slot) => ((sample.bytesTo[slot] ?? 0) - (sample.bytesFrom[slot] ?? 0)) / seconds / 1e6);
          const slot = room.sources[0]?.display;
          const both = quantile(sample.decode, 0.5) + quantile(sample.upload, 0.5);
          if (perSource.length < count) fail();
          say(`| ${count} | ${scene} | ${codec.name} | ${slot ? `${slot.width}×${slot.height}` : '—'} | ${(allFrames / seconds / count).toFixed(1)}${perSource.length < count ? ` (${perSource.length} of ${count} drew)` : ''} | ${(allFrames / seconds).toFixed(1)} | ${medianP95(sample.decode)} | ${medianP95(sample.upload)} | ${Number.isNaN(both) ? '—' : both.toFixed(1)} | ${wire.length > 0 ? (wire.reduce((a, b) => a + b, 0) / wire.length).toFixed(2) : '—'} |`);
          if (room.kiosk.problems.length > 0) say(`  page problems: ${room.kiosk.problems.join('; ')}`);
        } finally {
          await room.close();
        }
      }
    }
  }
});
