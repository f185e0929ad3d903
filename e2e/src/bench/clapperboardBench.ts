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
//   node e2e/dist/bench/clapperboardBench.js [--through browser|xrdp] [--seconds 20] [--width 1280] [--height 720] [--audiocodecs pcm] [--out clapperboard.md]
//
// --through xrdp: the same measure through a real RDP server instead
// (clapperboardThroughXrdp.ts): xrdp's session flashes and clicks itself.
//
// The sound goes as the two pages agree (Opus where both Chromiums' WebCodecs can, which is
// here); --audiocodecs pcm gives the display page ?audiocodecs=pcm, so it takes PCM only.
//
// Exits 1 when fewer than half the flashes were paired with a click.
import { writeFile } from 'node:fs/promises';
import { cpus, loadavg } from 'node:os';
import type { Browser } from 'playwright-core';
import { stripStamp, stripWhiteRects, TIMESTAMP_STRIP, type StripRect } from '@lanterna/protocol';
import { launchChromium, waitFor } from '@lanterna/testkit';
import { openPresenterPage, pressShare, shareReports, startShareRig, stopSharing, type ShareRig } from '../kiosk/shareRig.js';
import { hook, soundState } from '../kiosk/soundTap.js';
import { benchFlags, positiveFlag } from './benchFlags.js';
import { runBench } from './benchRun.js';
import { clapperTable, clicksHeard, describeDisplayEvents, installStripLog, pairFlashes, readClockedTap, readStripLog, sampleDisplayDelay } from './clapperboardFigures.js';
import { clapperboardThroughXrdp } from './clapperboardThroughXrdp.js';

const TITLE = 'Lanterna clapperboard';
const FLASH_MS = 100;

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

interface Options { through: 'browser' | 'xrdp'; seconds: number; width: number; height: number; out: string; audioCodecs: string | undefined }

function parseOptions(argv: readonly string[]): Options {
  const values = benchFlags({ through: 'browser', seconds: '20', width: '1280', height: '720', out: 'clapperboard.md', audiocodecs: undefined }, argv);
  const whole = (name: 'seconds' | 'width' | 'height'): number => Math.round(positiveFlag(values[name], name));
  if (values.through !== 'browser' && values.through !== 'xrdp') throw new Error(`--through must be browser or xrdp, got '${values.through}'`);
  if (values.through === 'xrdp' && values.audiocodecs !== undefined) throw new Error('--audiocodecs is for the browser presenter: xrdp sends PCM');
  return { through: values.through, seconds: whole('seconds'), width: whole('width'), height: whole('height'), out: values.out, audioCodecs: values.audiocodecs };
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

async function main(): Promise<number> {
  const options = parseOptions(process.argv.slice(2));
  if (options.through === 'xrdp') return clapperboardThroughXrdp(options);
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
    // what the display itself adds to the sound: its queue and its output, sampled while the flashes run
    const displayShare = await sampleDisplayDelay(display, first, first + options.seconds * 1000 + 2500);

    const fired = await tab.evaluate(() => (window as unknown as { clapperFired: number[] }).clapperFired);
    const strips = await readStripLog(display);
    const tap = await readClockedTap(display);
    const clicks = clicksHeard(tap);
    const counters = await hook(display, (sound) => sound.counters());
    const codec = (await shareReports(presenter.page)).findLast((report) => report.type === 'sound' && typeof report.codec === 'string')?.codec;
    await stopSharing(presenter.page, rig).catch(() => undefined);

    const pairs = pairFlashes(flashes.map((flash) => flash.at), strips, clicks);
    const loadAfter = loadavg()[0] ?? 0;
    const table = clapperTable(`Clapperboard through the browser presenter (tab ${options.width}×${options.height}, H.264 + rdpsnd ${typeof codec === 'string' ? codec : 'unknown format'}, ${options.seconds} flashes a second apart; ${pairs.offsets.length} paired, ${pairs.pictures} pictures read, ${clicks.length} clicks heard, ${fired.length} fired); display context ${tap.rate} Hz; load average ${loadBefore.toFixed(1)} → ${loadAfter.toFixed(1)} on ${cpus().length} cores; jitter target ${counters.targetMs} ms, ${counters.underruns} underruns (${displayShare.underruns} while the flashes ran), ${displayShare.stretchedMs} ms stretched meanwhile, ${counters.dropped} frames dropped`, pairs, [
      ['display: its queue + output, sampled every 200 ms (of the sound latency)', displayShare.delays],
    ]);
    const report = `${table}\n\n${describeDisplayEvents(displayShare)}`;
    console.log(report);
    await writeFile(options.out, `${report}\n`);
    return pairs.offsets.length * 2 >= options.seconds ? 0 : 1;
  } finally {
    await presenterBrowser?.close();
    await rig.close();
  }
}

runBench(main);
