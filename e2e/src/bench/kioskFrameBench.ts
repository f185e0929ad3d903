// Benchmark (not a test): what one frame costs in the kiosk page at 1920×1080,
// for each shared recorded session (@lanterna/lab's recordingsDir()) replayed into the
// page. A stand-in gateway (recordingDataSocket.ts) sends the recording's
// server PDUs, all at once, to the replay lab page, which runs the display
// page's pipeline (production session worker → wasm engine → render worker →
// WebGL2); the engine never waits for input, so each frame's time is its cost.
// Printed per recording: frames (ends of paint), decode ms (previous frame
// handed back → end of paint), hand-back ms (end of paint → the render worker
// gives the frame back after its upload), the render worker's own upload ms,
// their sum per frame, pixels uploaded, and the CPU copies of
// decoded pixels the page made. A screenshot of each replay's last picture is
// kept in /tmp; a replay that draws nothing exits non-zero.
//
//   node e2e/dist/bench/kioskFrameBench.js [--only NAME] [--gpu-sync] [--live SECONDS]
//
// --only replays the recordings whose file name contains NAME; --gpu-sync makes
// the renderer wait for the GPU after uploads and draws (upload ms = the
// texture holds the pixels; without it the render worker runs as on the
// display page and upload ms is the calls' own time); --live also runs the
// lab's animation scene live (shadow server → gateway → display page).
import type { Server } from 'node:http';
import { basename } from 'node:path';
import { loadavg } from 'node:os';
import { writeFile } from 'node:fs/promises';
import { PNG } from 'pngjs';
import type { Page } from 'playwright-core';
import { readRecording, listRecordings, recordingsDir } from '@lanterna/lab';
import { GatewayStandIn, labDir, publicDir, replayRecording, startStaticServer } from '@lanterna/testkit';
import type { ReplayProbe } from '../../../web/lab/replayProbe.js';
import { openKiosk } from '../kiosk/kioskBrowser.js';
import { medianP95, sum } from './benchFigures.js';
import { runLiveCases } from './liveKioskCases.js';
import { serverBursts } from './replayBursts.js';

/** Recordings this build cannot draw, and why. */
const skipped: Readonly<Record<string, string>> = {};

const width = 1920;
const height = 1080;
/** The page is done when nothing was presented for this long after the last PDU went out. */
const QUIET_MS = 2000;
const SCREENSHOT_TIMEOUT_MS = 30_000;

interface ReplayRow {
  readonly name: string;
  readonly failure: string | null;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

async function readProbe(page: Page): Promise<ReplayProbe> {
  return page.evaluate(() => {
    const probe = window.lanternaReplay;
    if (!probe) throw new Error('the replay page did not start');
    return probe;
  });
}

/**
 * Waits for the first frame (wasm start and a full-screen decode take seconds
 * on a busy machine), then until no frame has come for QUIET_MS.
 */
async function waitForQuiet(page: Page, firstFrameDeadlineMs: number, deadlineMs: number): Promise<void> {
  const start = Date.now();
  while (Date.now() < start + deadlineMs) {
    const idleMs = await page.evaluate(() => {
      const last = window.lanternaReplay?.lastFrameAtMs ?? null;
      return last === null ? null : performance.now() - last;
    });
    if (idleMs === null ? Date.now() > start + firstFrameDeadlineMs : idleMs >= QUIET_MS) return;
    await sleep(250);
  }
}

/** How many distinct colours a screenshot holds (sampled every 7th pixel): 1 means nothing was drawn. */
function distinctColours(png: PNG): number {
  const colours = new Set<number>();
  for (let i = 0; i < png.data.length; i += 4 * 7) {
    colours.add(((png.data[i] ?? 0) << 16) | ((png.data[i + 1] ?? 0) << 8) | (png.data[i + 2] ?? 0));
  }
  return colours.size;
}

async function replay(path: string, origin: string, server: Server): Promise<ReplayRow> {
  const name = basename(path);
  const { records } = await readRecording(path);
  const bursts = serverBursts(records);
  const recordedMs = bursts[bursts.length - 1]?.atMs ?? 0;
  // what the server sent: the bytes a gateway relays to the page for this session
  const wireBytes = sum(records.filter((r) => r.direction === 'server-to-client').map((r) => r.data.length));
  const recording = replayRecording(bursts);
  const gateway = new GatewayStandIn(server, { dataScript: recording.dataScript });
  const dataUrl = gateway.dataUrl(name);
  const kiosk = await openKiosk(`${origin}/lab/replay.html?data=${encodeURIComponent(dataUrl)}&width=${width}&height=${height}${gpuSync ? '&sync=1' : ''}`, width, height);
  try {
    await Promise.race([recording.sent, sleep(60_000)]);
    await waitForQuiet(kiosk.page, 60_000, 300_000);
    const screenshotPath = `/tmp/kiosk-replay-${name.replace(/\.dump$/, '')}.png`;
    const shot = await kiosk.page.screenshot({ type: 'png', timeout: SCREENSHOT_TIMEOUT_MS });
    await writeFile(screenshotPath, shot);
    const colours = distinctColours(PNG.sync.read(shot));
    gateway.endSessions('server-closed');
    const endBy = Date.now() + 10_000;
    while ((await readProbe(kiosk.page)).ended === null && Date.now() < endBy) await sleep(100);
    const probe = await readProbe(kiosk.page);

    const { frames, presents } = probe;
    const decode = frames.map((f) => f.decodeMs);
    const handBack = frames.map((f) => f.handBackMs);
    const cycle = frames.map((f) => f.decodeMs + f.handBackMs);
    const pixels = sum(frames.map((f) => f.pixels));
    const copies = sum(presents.map((p) => p.copies));
    const perFrameCopies = frames.length === 0 ? '—' : (copies / frames.length).toFixed(2);
    const meanCycle = frames.length === 0 ? '—' : (sum(cycle) / frames.length).toFixed(1);
    const pageFps = frames.length === 0 ? '—' : (frames.length / (sum(cycle) / 1000)).toFixed(1);
    console.log(`| ${name} | ${(wireBytes / 1e6).toFixed(2)} | ${frames.length} | ${medianP95(decode)} | ${medianP95(handBack)} | ${medianP95(presents.map((p) => p.uploadMs))} | ${medianP95(cycle)} / ${meanCycle} | ${pageFps} | ${(pixels / 1e6).toFixed(1)} | ${copies} (${perFrameCopies}/frame) | ${(recordedMs / 1000).toFixed(1)} / ${(sum(cycle) / 1000).toFixed(1)} |`);
    const problems = [...probe.problems, ...kiosk.problems];
    if (problems.length > 0) console.log(`  page problems: ${problems.join('; ')}`);
    const h264 = frames[frames.length - 1]?.h264;
    if (h264) console.log(`  H.264: ${h264.pictures} pictures decoded by WebCodecs, ${(h264.decodeMs / h264.pictures).toFixed(2)} ms each (decode() → picture copied into the wasm heap; AVC444 frames are two pictures)`);
    console.log(`  ${presents.length} presents, renderer ${probe.renderer ?? '?'}, ended: ${probe.ended ?? 'not yet'}, engine sent ${gateway.binaryFramesReceived.length} binary frames, screenshot ${screenshotPath} (${colours} colours sampled)`);
    const failure = frames.length === 0 || pixels === 0 ? 'the page drew nothing'
      : colours <= 1 ? 'the page shows one flat colour'
      : probe.renderer !== 'webgl2' ? `the renderer is ${probe.renderer ?? 'missing'}, not WebGL2`
      : null;
    return { name, failure };
  } finally {
    await kiosk.close();
    gateway.close();
  }
}

function option(flag: string): string | null {
  const at = process.argv.indexOf(flag);
  return at >= 0 ? process.argv[at + 1] ?? '' : null;
}
const only = option('--only');
const gpuSync = process.argv.includes('--gpu-sync');
const live = option('--live');
const liveSeconds = live === null ? null : Number(live || 10);

console.log(`kiosk frame bench, ${width}×${height}, ${gpuSync ? 'GPU-synchronous' : 'display-page'} render timing, recordings from ${recordingsDir()}; load average ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
console.log(`| recording | MB on the wire | frames | decode ms median / p95 | hand-back (upload) ms median / p95 | render worker upload ms per present median / p95 | decode+upload ms per frame median / p95 / mean | frames/s in the page | Mpixel uploaded | CPU copies | recorded / decode+upload s |`);
console.log(`|---|---|---|---|---|---|---|---|---|---|---|`);
const web = await startStaticServer(publicDir, labDir);
const failures: string[] = [];
try {
  for (const path of listRecordings().filter((p) => only === null || basename(p).includes(only))) {
    const reason = skipped[basename(path)];
    if (reason !== undefined) {
      console.log(`| ${basename(path)} | skipped: ${reason} |||||||||| `);
      continue;
    }
    const row = await replay(path, web.origin, web.server);
    if (row.failure !== null) failures.push(`${row.name}: ${row.failure}`);
  }
} finally {
  await web.close();
}
console.log(`load average after the replays ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
if (liveSeconds !== null) await runLiveCases(liveSeconds);
if (failures.length > 0) {
  console.error(`FAILED: ${failures.join('; ')}`);
  process.exitCode = 1;
}
