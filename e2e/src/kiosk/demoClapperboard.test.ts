// The README's demo with sound (issue 27, "Done when": the clapperboard plays
// on the README's demo display with sound): `scripts/run.sh --scene
// clapperboard` makes the demo presenter an xrdp session with PipeWire that
// flashes white and clicks at every whole second. The demo CLI itself (its
// gateway, xrdp, the lab's clapperboard), the real display page in Chromium
// (autoplay allowed, as the kiosk launcher starts it) with the worklet's tap
// (?audiotap): the clicks it rendered come once a second, each after the
// second whose flash the page presented (read from the flash's timestamp
// strip), and the A/V offset is printed.
//
// Engines: one (the demo runs its gateway's default, the native data plane).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { stripStamp } from '@lanterna/protocol';
import { launchChromium, startDemo, waitFor } from '@lanterna/testkit';
import { clicksHeard, pairFlashes, readClockedTap } from '../bench/clapperboardFigures.js';
import { hook, soundState } from './soundTap.js';

/** The timestamp strip is 1,152 px wide: the presenter's screen must hold it. */
const SIZE = { width: 1280, height: 720 };
const LISTEN_S = 12;

/** A present that first showed a flash: its strip's stamp (ms mod 2^32), its latency, and the page's clock when it was told. */
interface FlashSeen { stamp: number; latencyMs: number; toldAt: number }

/** The whole epoch ms a stamp (mod 2^32) stands for, the one nearest to `near`. */
function unwrapStamp(stamp: number, near: number): number {
  return Math.floor(near) - ((stripStamp(near) - stamp) | 0);
}

test('the README demo with --scene clapperboard: the display page plays a click once a second, each after the white flash it presented for that second', { timeout: 300_000 }, async (t) => {
  const demo = await startDemo(t, ['--no-discovery', '--scene', 'clapperboard', '--display-size', `${SIZE.width}x${SIZE.height}`]);
  assert.match(demo.output.join('\n'), /presenter: +RDP \S+ \(user \S+\), an xrdp session with sound showing the "clapperboard" scene/);
  const url = demo.displayUrl;

  const browser = await launchChromium([`--ignore-certificate-errors-spki-list=${demo.gatewaySpki()}`]);
  t.after(() => void browser.close());
  const page = await browser.newPage({ viewport: SIZE });
  const [base, hash] = url.split('#');
  await page.goto(`${base ?? ''}?audiotap=${LISTEN_S + 6}#${hash ?? ''}`);
  await page.evaluate(() => {
    const seen: FlashSeen[] = [];
    (globalThis as unknown as { flashesSeen: FlashSeen[] }).flashesSeen = seen;
    window.addEventListener('lanterna:render', (event) => {
      const strip = (event as CustomEvent<{ strip?: { stamp: number; latencyMs: number } }>).detail.strip;
      if (strip) seen.push({ stamp: strip.stamp, latencyMs: strip.latencyMs, toldAt: Date.now() });
    });
  });
  await waitFor('the display\'s sound running', async () => (await soundState(page)) === 'running', 60_000);
  await waitFor('sound from the demo presenter', async () => ((await hook(page, (sound) => sound.counters().waves ?? 0)) > 20), 120_000, 500);
  // the stream settles in the jitter buffer
  await new Promise((resolve) => { setTimeout(resolve, 2000); });
  assert.equal(await hook(page, (sound) => sound.armTap()), true, 'the page has a tap');
  const armed = Date.now();
  await new Promise((resolve) => { setTimeout(resolve, LISTEN_S * 1000); });
  const tap = await readClockedTap(page);
  const seen = await page.evaluate(() => (globalThis as unknown as { flashesSeen: FlashSeen[] }).flashesSeen);

  const clicks = clicksHeard(tap);
  const gaps = clicks.slice(1).map((at, index) => at - (clicks[index] ?? at));
  const sortedGaps = [...gaps].sort((a, b) => a - b);
  const medianGap = sortedGaps[Math.floor(sortedGaps.length / 2)] ?? Number.NaN;
  // flashes the page presented while listening: when each was on the presenter's screen, by its stamp
  const flashes = seen.map((flash) => ({ ...flash, flashedAt: unwrapStamp(flash.stamp, flash.toldAt) })).filter((flash) => flash.flashedAt >= armed - 1500);
  const pairs = pairFlashes(flashes.map((flash) => flash.flashedAt), flashes, clicks);
  console.log(`# demo clapperboard: ${clicks.length} clicks in ${LISTEN_S} s, gaps ${gaps.map((gap) => gap.toFixed(0)).join(', ')} ms; ${flashes.length} flashes presented; A/V offsets ${pairs.offsets.map((offset) => offset.toFixed(0)).join(', ')} ms (+ = sound late)`);

  // a loaded machine loses a click now and then (the display's jitter buffer drops what piles up past its
  // bound: xrdp sends in bursts); what is heard must still be clicks on whole seconds, most seconds
  assert.ok(clicks.length >= LISTEN_S / 2, `a click most seconds: ${clicks.length} in ${LISTEN_S} s`);
  assert.ok(Math.abs(medianGap - 1000) < 60, `clicks a second apart: median gap ${medianGap.toFixed(0)} ms`);
  assert.ok(gaps.every((gap) => gap > 700 && Math.abs(gap - Math.round(gap / 1000) * 1000) < 300), `clicks only on whole seconds: gaps ${gaps.map((gap) => gap.toFixed(0)).join(', ')}`);
  assert.ok(flashes.length >= LISTEN_S - 3, `the picture flashes about every second: ${flashes.length} presented`);
  for (const flash of flashes) assert.equal(flash.flashedAt % 1000, 0, `each flash the page presented is the presenter's flash of a whole second: ${flash.flashedAt}`);
  // a click belongs to the flash before it when it comes less than 900 ms after that second (pairFlashes)
  assert.ok(pairs.offsets.length >= 3, `clicks heard after the flashes they go with: ${pairs.offsets.length} pairs`);

  demo.child.kill('SIGINT');
  assert.equal(await demo.exited, 0, 'Ctrl-C ends the demo with 0');
});
