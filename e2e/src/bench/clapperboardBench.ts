// Benchmark (not a test): how far the display's sound is from its picture
// (issue 27, the clapperboard). A tab in the presenter's Chromium flashes
// white and clicks at the same instant once a second; the presenter page
// shares it with its sound (getDisplayMedia, H.264 + rdpsnd through the real
// gateway) to the display page in a second headless Chromium. Each flash
// carries the timestamp strip (@lanterna/protocol) with the time it was
// scheduled for, so the display's render worker names the present that first
// shows it (`lanterna:render` detail.strip: the end of that present, on this
// machine's clock). The click is found in what the display's AudioWorklet
// rendered (the tap, ?audiotap) and put on the same clock with the tap's
// first frame and the context's getOutputTimestamp(): when it is heard,
// output latency included. Offset = sound heard − picture presented
// (positive: the sound is late). A real screen shows a present about a frame
// later than the draw calls that the picture's time marks.
//
//   node e2e/dist/bench/clapperboardBench.js [--seconds 20] [--width 1280] [--height 720] [--audiocodecs pcm] [--out clapperboard.md]
//
// The sound goes as the two pages agree (Opus where both Chromiums' WebCodecs can, which is
// here); --audiocodecs pcm gives the display page ?audiocodecs=pcm, so it takes PCM only.
//
// Exits 1 when fewer than half the flashes were paired with a click.
import { writeFile } from 'node:fs/promises';
import { cpus, loadavg } from 'node:os';
import type { Browser, Page } from 'playwright-core';
import { stripStamp, stripWhiteRects, TIMESTAMP_STRIP, type StripRect } from '@lanterna/protocol';
import { launchChromium, waitFor } from '@lanterna/testkit';
import { openPresenterPage, pressShare, shareReports, startShareRig, stopSharing, type ShareRig } from '../kiosk/shareRig.js';
import { hook, soundState } from '../kiosk/soundTap.js';
import { channel } from '../kiosk/toneAnalysis.js';
import { quantile } from './benchFigures.js';
import { benchFlags, positiveFlag } from './benchFlags.js';
import { runBench } from './benchRun.js';

const TITLE = 'Lanterna clapperboard';
const FLASH_MS = 100;
const CLICK_THRESHOLD = 0.1;
const QUIET_BEFORE_CLICK_MS = 300;

/** The tab: black, and at each scheduled time a white page with the strip and a 5 ms click of 2 kHz. */
const CLAPPER_HTML = `<!doctype html><html><head><title>${TITLE}</title>
<style>html,body{margin:0;height:100%;background:#000;overflow:hidden}#flash{position:fixed;inset:0;background:#fff;display:none}
canvas{position:fixed;left:0;top:0}</style></head><body><div id="flash"></div>
<canvas id="strip" width="${TIMESTAMP_STRIP.width}" height="${TIMESTAMP_STRIP.height}"></canvas>
<script>
  const context = new AudioContext();
  const tone = context.createOscillator();
  tone.frequency.value = 2000;
  const gate = context.createGain();
  gate.gain.value = 0;
  tone.connect(gate).connect(context.destination);
  tone.start();
  const flash = document.getElementById('flash');
  const strip = document.getElementById('strip').getContext('2d');
  strip.fillStyle = '#000';
  strip.fillRect(0, 0, ${TIMESTAMP_STRIP.width}, ${TIMESTAMP_STRIP.height});
  const fired = [];
  window.clapperFired = fired;
  window.clapperState = () => context.state;
  // flashes: [{ at: epoch ms, rects: [{x,y,width,height}] }]
  window.clapper = (flashes) => {
    let next = 0;
    let off = 0;
    const frame = () => {
      const now = Date.now();
      if (off && now >= off) {
        flash.style.display = 'none';
        strip.fillStyle = '#000';
        strip.fillRect(0, 0, ${TIMESTAMP_STRIP.width}, ${TIMESTAMP_STRIP.height});
        off = 0;
      }
      const due = flashes[next];
      if (due && now >= due.at) {
        flash.style.display = 'block';
        strip.fillStyle = '#000';
        strip.fillRect(0, 0, ${TIMESTAMP_STRIP.width}, ${TIMESTAMP_STRIP.height});
        strip.fillStyle = '#fff';
        for (const r of due.rects) strip.fillRect(r.x, r.y, r.width, r.height);
        const t = context.currentTime;
        gate.gain.setValueAtTime(0.8, t);
        gate.gain.setValueAtTime(0, t + 0.005);
        fired.push(now);
        off = now + ${FLASH_MS};
        next += 1;
      }
      if (next < flashes.length || off) requestAnimationFrame(frame);
    };
    requestAnimationFrame(frame);
  };
</script></body></html>`;

interface Options { seconds: number; width: number; height: number; out: string; audioCodecs: string | undefined }

function parseOptions(argv: readonly string[]): Options {
  const values = benchFlags({ seconds: '20', width: '1280', height: '720', out: 'clapperboard.md', audiocodecs: undefined }, argv);
  const whole = (name: 'seconds' | 'width' | 'height'): number => Math.round(positiveFlag(values[name], name));
  return { seconds: whole('seconds'), width: whole('width'), height: whole('height'), out: values.out, audioCodecs: values.audiocodecs };
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

interface StripSeen { stamp: number; latencyMs: number }

async function installStripLog(page: Page): Promise<void> {
  await page.evaluate(() => {
    const seen: StripSeen[] = [];
    (globalThis as unknown as { clapperStrips: StripSeen[] }).clapperStrips = seen;
    window.addEventListener('lanterna:render', (event) => {
      const strip = (event as CustomEvent<{ strip?: StripSeen }>).detail.strip;
      if (strip) seen.push({ stamp: strip.stamp, latencyMs: strip.latencyMs });
    });
  });
}

/** The epoch ms at which each click in the tap is heard: onsets after a quiet stretch. */
function clicksHeard(tap: { samples: Float32Array; rate: number; startFrame: number; clock: { contextTime: number; epochMs: number } }): number[] {
  const left = channel(tap.samples, 0);
  const quietFrames = Math.round((QUIET_BEFORE_CLICK_MS / 1000) * tap.rate);
  const heard: number[] = [];
  let lastLoud = -quietFrames;
  for (let i = 0; i < left.length; i++) {
    if (Math.abs(left[i] ?? 0) < CLICK_THRESHOLD) continue;
    if (i - lastLoud >= quietFrames) {
      heard.push(tap.clock.epochMs + (((tap.startFrame + i) / tap.rate) - tap.clock.contextTime) * 1000);
    }
    lastLoud = i;
  }
  return heard;
}

async function main(): Promise<number> {
  const options = parseOptions(process.argv.slice(2));
  const loadBefore = loadavg()[0] ?? 0;
  const tapSeconds = Math.min(60, options.seconds + 8);
  const rig: ShareRig = await startShareRig({ width: options.width, height: options.height, displayId: 'room-clapper', displayQuery: `audiotap=${tapSeconds}${options.audioCodecs === undefined ? '' : `&audiocodecs=${encodeURIComponent(options.audioCodecs)}`}` });
  let presenterBrowser: Browser | undefined;
  try {
    const display = rig.display.page;
    await waitFor('the display\'s sound running', async () => (await soundState(display)) === 'running', 10_000);
    await installStripLog(display);
    presenterBrowser = await launchChromium([`--auto-select-tab-capture-source-by-title=${TITLE}`, '--disable-background-timer-throttling', '--disable-renderer-backgrounding', '--disable-backgrounding-occluded-windows'], { audible: true });
    const presenter = await openPresenterPage(presenterBrowser, rig, { width: options.width, height: options.height });
    const tab = await presenter.page.context().newPage();
    await tab.setViewportSize({ width: options.width, height: options.height });
    await tab.setContent(CLAPPER_HTML);
    await waitFor('the tab\'s sound running', async () => (await tab.evaluate(() => (window as unknown as { clapperState(): string }).clapperState())) === 'running', 10_000);
    await presenter.page.bringToFront();
    await pressShare(presenter.page, rig);
    await tab.bringToFront();
    // the share's sound settles in the display's jitter buffer
    await sleep(3000);

    const first = Date.now() + 2000;
    const flashes = Array.from({ length: options.seconds }, (_, k) => {
      const at = first + k * 1000;
      const rects: StripRect[] = stripWhiteRects(stripStamp(at));
      return { at, rects };
    });
    if (!(await hook(display, (sound) => sound.armTap()))) throw new Error('the display page has no tap');
    await tab.evaluate((list) => { (window as unknown as { clapper(f: unknown): void }).clapper(list); }, flashes);
    await sleep(options.seconds * 1000 + 2000 + 2500);

    const fired = await tab.evaluate(() => (window as unknown as { clapperFired: number[] }).clapperFired);
    const strips = await display.evaluate(() => (globalThis as unknown as { clapperStrips: StripSeen[] }).clapperStrips);
    const raw = await display.evaluate(() => (window as unknown as { lanternaSound: { readTap(): { base64: string; sampleRate: number; startFrame: number; clock: { contextTime: number; epochMs: number } | null } | null } }).lanternaSound.readTap());
    if (!raw?.clock) throw new Error('the tap has no clock');
    const bytes = Buffer.from(raw.base64, 'base64');
    const tap = { samples: new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4), rate: raw.sampleRate, startFrame: raw.startFrame, clock: raw.clock };
    const clicks = clicksHeard(tap);
    const counters = await hook(display, (sound) => sound.counters());
    const codec = (await shareReports(presenter.page)).findLast((report) => report.type === 'sound' && typeof report.codec === 'string')?.codec;
    await stopSharing(presenter.page, rig).catch(() => undefined);

    // pair: the present that first showed flash k (its stamp), and the click heard within a second of it
    const offsets: number[] = [];
    const pictureLatency: number[] = [];
    const soundLatency: number[] = [];
    let pictures = 0;
    for (const flash of flashes) {
      const shown = strips.find((strip) => strip.stamp === stripStamp(flash.at));
      const picture = shown === undefined ? undefined : flash.at + shown.latencyMs;
      if (picture !== undefined) pictures += 1;
      const heard = clicks.find((at) => at >= flash.at && at < flash.at + 900);
      if (picture === undefined || heard === undefined) continue;
      offsets.push(heard - picture);
      pictureLatency.push(picture - flash.at);
      soundLatency.push(heard - flash.at);
    }
    const loadAfter = loadavg()[0] ?? 0;
    const f = (value: number): string => (Number.isNaN(value) ? '—' : value.toFixed(0));
    const row = (name: string, values: number[]): string => `| ${name} | ${f(quantile(values, 0.5))} | ${f(quantile(values, 0.95))} | ${f(Math.min(...values))} | ${f(Math.max(...values))} |`;
    const table = [
      `Clapperboard through the browser presenter (tab ${options.width}×${options.height}, H.264 + rdpsnd ${typeof codec === 'string' ? codec : 'unknown format'}, ${options.seconds} flashes a second apart; ${offsets.length} paired, ${pictures} pictures read, ${clicks.length} clicks heard, ${fired.length} fired); display context ${tap.rate} Hz; load average ${loadBefore.toFixed(1)} → ${loadAfter.toFixed(1)} on ${cpus().length} cores; jitter target ${counters.targetMs} ms, ${counters.underruns} underruns, ${counters.dropped} frames dropped`,
      '',
      '| ms | p50 | p95 | min | max |',
      '|---|---|---|---|---|',
      row('A/V offset: sound heard − picture presented (+ = sound late)', offsets),
      row('picture: flash scheduled → present that shows it', pictureLatency),
      row('sound: flash scheduled → click heard (output latency included)', soundLatency),
      '',
    ].join('\n');
    console.log(table);
    await writeFile(options.out, `${table}\n`);
    return offsets.length * 2 >= options.seconds ? 0 : 1;
  } finally {
    await presenterBrowser?.close();
    await rig.close();
  }
}

runBench(main);
