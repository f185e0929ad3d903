// A shared tab's sound on the display (issue 27, "from a browser presenter"):
// two real Chromiums and the real gateway. The presenter's Chromium (started
// audible: Playwright mutes every tab by default, and a muted tab is captured
// as silence) has a tab that plays a 1 kHz tone on the left at half scale and
// 440 Hz on the right at quarter scale (WebAudio oscillators); /present shares
// that tab with its sound (the browser's picker answered by
// --auto-select-tab-capture-source-by-title). The page's share worker reads
// the capture's AudioData and sends it with the presenter's wasm RDP server
// (rdpsnd) in the same session as the picture; the display page's worklet tap
// (?audiotap) is read back: frequency, amplitude and channel order of what
// the display really rendered. The presenter's Mute button silences the
// display (the picture goes on), Unmute brings the tone back; a share without
// sound says so on the presenter page.
//
// Engines: both (scripts/run-tests.mjs runs this file in its Node-engine pass too).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { launchChromium, waitFor } from '@lanterna/testkit';
import { amplitude, discontinuities, frequency, longestRun, onset, peak } from './toneAnalysis.js';
import { hook, readTap, soundState } from './soundTap.js';
import { keepScreenshot } from './keepScreenshot.js';
import { openPresenterPage, pressShare, shareReports, startShareRig, type ShareRig } from './shareRig.js';
import { sharedRig } from './sharedRig.js';

const displayId = 'room-share-sound';
const displayName = 'Sound share room';
const TONE_TITLE = 'Lanterna tone tab';
const WIDTH = 640;
const HEIGHT = 360;

const toneHtml = `<!doctype html><html><head><title>${TONE_TITLE}</title></head>
<body style="margin:0;background:#1f5fa8;color:#fff;font:40px sans-serif">A tone: 1 kHz left, 440 Hz right
<script>
  const context = new AudioContext();
  const merger = context.createChannelMerger(2);
  for (const [hz, gain, side] of [[1000, 0.5, 0], [440, 0.25, 1]]) {
    const oscillator = context.createOscillator();
    oscillator.frequency.value = hz;
    const level = context.createGain();
    level.gain.value = gain;
    oscillator.connect(level).connect(merger, 0, side);
    oscillator.start();
  }
  merger.connect(context.destination);
  window.toneState = () => context.state;
</script></body></html>`;

interface Rig extends ShareRig {
  /** Started audible: Playwright's --mute-audio would make every captured tab silent. */
  presenterBrowser: Browser;
}

const rig = sharedRig(async (): Promise<Rig> => {
  const [share, presenterBrowser] = await Promise.all([
    startShareRig({ width: WIDTH, height: HEIGHT, displayId, displayName, displayQuery: 'audiotap=4' }),
    launchChromium([`--auto-select-tab-capture-source-by-title=${TONE_TITLE}`], { audible: true }),
  ]);
  await waitFor('the display\'s sound running', async () => (await soundState(share.display.page)) === 'running', 10_000);
  return { ...share, presenterBrowser };
}, async (r) => {
  await r.presenterBrowser.close();
  await r.close();
});

/** The presenter page (a 1280×900 window: larger than the display) and, beside it, the tab it shares. */
async function openPresenter(r: Rig, tabHtml: string): Promise<{ presenter: Page; tab: Page }> {
  const { page: presenter } = await openPresenterPage(r.presenterBrowser, r, { width: 1280, height: 900 });
  const tab = await presenter.context().newPage();
  await tab.setContent(tabHtml);
  return { presenter, tab };
}

/** Stops (the page's Stop where it shows; closing the page ends a share too) and waits for the display's idle screen. */
async function stopSharing(r: Rig, presenter: Page): Promise<void> {
  if (await presenter.locator('#stop').isVisible()) await presenter.click('#stop');
  await presenter.context().close();
  await r.display.page.waitForFunction(() => document.getElementById('idle')?.hidden === false, undefined, { timeout: 10_000 });
}

/** `seconds` of what the display renders from now. */
async function listen(display: Page, seconds: number): Promise<{ left: Float32Array; right: Float32Array; rate: number }> {
  assert.equal(await hook(display, (sound) => sound.armTap()), true);
  await new Promise((resolve) => { setTimeout(resolve, seconds * 1000); });
  return readTap(display);
}

function soundLine(presenter: Page): Promise<string> {
  return presenter.locator('#share-sound').innerText();
}

test('a shared tab\'s sound plays on the display: 1 kHz left at half scale, 440 Hz right at quarter; Mute silences it and Unmute brings it back', async () => {
  const r = await rig();
  const { presenter, tab } = await openPresenter(r, toneHtml);
  assert.equal(await tab.evaluate(() => (window as unknown as { toneState(): string }).toneState()), 'running', 'the tone tab plays');
  try {
    await pressShare(presenter, r);
    await heardAndMuted(r, presenter);
  } finally {
    await stopSharing(r, presenter);
  }
});

async function heardAndMuted(r: Rig, presenter: Page): Promise<void> {
  // issue 28: the tab (the presenter's 1280×900 window) is encoded at the display's 640×360, not at its own size
  const active = (await shareReports(presenter)).find((report) => report.type === 'active');
  assert.ok(active, 'the share reported its desktop');
  console.log(`# share sound: a 1280×900 capture for a 640×360 display is sent at ${String(active.width)}×${String(active.height)}`);
  const [width, height] = [Number(active.width), Number(active.height)];
  assert.ok(width <= 640 && height <= 360 && height >= 356, `encoded at the display's size: ${width}×${height}`);
  await waitFor('the presenter page says the display plays the sound', async () => /plays what you share/.test(await soundLine(presenter)), 15_000);
  // the jitter buffer fills and settles
  await new Promise((resolve) => { setTimeout(resolve, 1000); });

  const heard = await listen(r.display.page, 2);
  const start = onset(heard.left);
  assert.ok(start >= 0, 'the tone reached the display\'s output');
  // A loaded machine breaks the stream now and then (a late capture buffer, a dry queue), and the
  // display's jitter buffer plays up to 2 % fast to catch up: frequency is read where the tone runs
  // unbroken, within those 2 %, and the breaks are counted and printed.
  const breaks = discontinuities(heard.left.subarray(start), 1000, heard.rate, 0.02);
  const [from, to] = longestRun(heard.left.subarray(start), breaks);
  assert.ok(to - from >= 0.1 * heard.rate, `at least 100 ms of unbroken tone (${((to - from) / heard.rate).toFixed(2)} s)`);
  const [left, right] = [heard.left.subarray(start + from, start + to), heard.right.subarray(start + from, start + to)];
  const [fl, fr, al, ar] = [frequency(left, heard.rate), frequency(right, heard.rate), amplitude(left), amplitude(right)];
  console.log(`# share sound: display context ${heard.rate} Hz; left ${fl.toFixed(1)} Hz at ${al.toFixed(4)}, right ${fr.toFixed(1)} Hz at ${ar.toFixed(4)} (peak from RMS) over ${((to - from) / heard.rate).toFixed(2)} s unbroken; ${breaks.length} break samples in ${((heard.left.length - start) / heard.rate).toFixed(2)} s`);
  assert.ok(fl > 995 && fl < 1025, `left is the 1 kHz tone: ${fl.toFixed(1)} Hz`);
  assert.ok(fr > 437 && fr < 451, `right is the 440 Hz tone: ${fr.toFixed(1)} Hz`);
  assert.ok(Math.abs(al - 0.5) < 0.03, `left at half scale: ${al.toFixed(4)}`);
  assert.ok(Math.abs(ar - 0.25) < 0.02, `right at quarter scale: ${ar.toFixed(4)}`);
  await keepScreenshot(presenter, 'share-sound-presenter');

  await presenter.click('#mute');
  await waitFor('the presenter page says muted', async () => /Sound muted/.test(await soundLine(presenter)), 5000);
  assert.equal(await presenter.locator('#mute').getAttribute('aria-pressed'), 'true');
  // what the display had queued plays out (the jitter buffer: at most 260 ms)
  await new Promise((resolve) => { setTimeout(resolve, 600); });
  const muted = await listen(r.display.page, 1);
  assert.ok(peak(muted.left) < 0.01 && peak(muted.right) < 0.01, `muted: silence on the display (peaks ${peak(muted.left).toFixed(4)} / ${peak(muted.right).toFixed(4)})`);
  assert.equal(await r.display.page.evaluate(() => document.getElementById('idle')?.hidden), true, 'the picture goes on while muted');

  await presenter.click('#mute');
  await waitFor('the presenter page says the sound plays again', async () => /plays what you share/.test(await soundLine(presenter)), 5000);
  await new Promise((resolve) => { setTimeout(resolve, 800); });
  const back = await listen(r.display.page, 1);
  const again = amplitude(back.left.subarray(Math.floor(back.left.length / 2)));
  assert.ok(again > 0.4, `unmuted: the tone again (${again.toFixed(4)})`);
}

test('a share without sound says so on the presenter page and offers no Mute button', async () => {
  const r = await rig();
  const { presenter } = await openPresenter(r, `<!doctype html><html><head><title>${TONE_TITLE}</title></head><body>silent</body></html>`);
  // as a browser (or a window picked) that gives no sound track does
  await presenter.addInitScript(() => {
    const original = navigator.mediaDevices.getDisplayMedia.bind(navigator.mediaDevices);
    navigator.mediaDevices.getDisplayMedia = async (options) => {
      const stream = await original(options);
      for (const track of stream.getAudioTracks()) {
        stream.removeTrack(track);
        track.stop();
      }
      return stream;
    };
  });
  await presenter.reload();
  await waitFor('the display in the list', async () => (await presenter.locator('.display[aria-pressed="true"]').count()) === 1, 10_000);
  try {
    await pressShare(presenter, r);
    assert.match(await soundLine(presenter), /No sound: only the picture is shown/);
    assert.equal(await presenter.locator('#mute').isVisible(), false);
  } finally {
    await stopSharing(r, presenter);
  }
});
