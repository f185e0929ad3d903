// "Share my screen" end to end (issue 25): two real Chromiums and the real
// gateway. The presenter's Chromium opens /present, types the PIN and shares
// a tab that shows a test pattern of big coloured blocks (the browser's own
// picker, answered by --auto-select-tab-capture-source-by-title; never
// --use-fake-ui-for-media-stream, NOTES.md); the display's Chromium runs the
// real display page, whose wasm client gets the presenter page's wasm RDP
// server through the gateway. The display's picture (a screenshot at 1:1,
// pageScreenshot.ts) is compared with the pattern: within a tolerance for
// H.264, exactly for the lossless planar fallback (against the same capture
// read back in the presenter's browser: tab capture is I420, so the pattern's
// own colours arrive ±1). Each stop path that runs headless — the page's Stop,
// the capture ending (track.stop(), as the browser's "Stop sharing" bar does),
// the presenter's page closing, an administrator's stop — must return the
// display to its idle screen within 1 s, and the presenter page must say what
// happened. Printed: Share → first picture on the display, and the pictures a
// second the display shows of a moving pattern.
//
// Engines: both (scripts/run-tests.mjs runs this file in its Node-engine pass
// too); one in-process gateway.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import type { RgbImage } from '@lanterna/lab';
import { openWatchedPage, waitFor, withDeadline, type TestGateway, type WatchedPage } from '@lanterna/testkit';
import { pageScreenshot } from './pageScreenshot.js';
import { psnr } from './psnr.js';
import { keepImage, keepScreenshot } from './keepScreenshot.js';
import { outcome } from './presenterPage.js';
import { launchTabPresenter, pressShare, startShareRig, type ShareRig } from './shareRig.js';
import { sharedRig } from './sharedRig.js';

const displayId = 'room-share';
const displayName = 'Share room';
const WIDTH = 640;
const HEIGHT = 360;
const PATTERN_TITLE = 'Lanterna share pattern';
/** The display must be back on its idle screen this soon after any stop. */
const IDLE_WITHIN_MS = 1000;

/** 4×2 blocks of 160×180, saturated colours: H.264 keeps their insides, so its loss is measurable. */
const BLOCKS: readonly (readonly [number, number, number])[] = [
  [255, 0, 0], [0, 255, 0], [0, 0, 255], [255, 255, 255],
  [0, 0, 0], [255, 255, 0], [0, 255, 255], [255, 0, 255],
];
const BLOCK_W = WIDTH / 4;
const BLOCK_H = HEIGHT / 2;
/** Pixels left out at each block's edges: H.264's chroma is subsampled and rings there. */
const EDGE = 12;

const patternHtml = `<!doctype html><html><head><title>${PATTERN_TITLE}</title><style>
html, body { margin: 0; overflow: hidden; background: #000; }
.block { position: absolute; width: ${BLOCK_W}px; height: ${BLOCK_H}px; }
#mover { position: absolute; left: 0; top: ${BLOCK_H - 40}px; width: 80px; height: 80px; background: #888; display: none; }
</style></head><body>
${BLOCKS.map(([r, g, b], i) => `<div class="block" style="left:${(i % 4) * BLOCK_W}px;top:${Math.floor(i / 4) * BLOCK_H}px;background:rgb(${r},${g},${b})"></div>`).join('\n')}
<div id="mover"></div>
<script>
  // the moving pattern: a grey square crossing the screen, one step per animation frame
  window.startMoving = () => {
    const mover = document.getElementById('mover');
    mover.style.display = 'block';
    let x = 0;
    const step = () => { x = (x + 8) % ${WIDTH - 80}; mover.style.left = x + 'px'; requestAnimationFrame(step); };
    requestAnimationFrame(step);
  };
</script></body></html>`;

interface Rig extends ShareRig {
  presenterBrowser: Browser;
}

const rig = sharedRig(async (): Promise<Rig> => {
  const [share, presenterBrowser] = await Promise.all([
    startShareRig({ width: WIDTH, height: HEIGHT, displayId, displayName }),
    launchTabPresenter(PATTERN_TITLE),
  ]);
  return { ...share, presenterBrowser };
}, async (r) => {
  await r.presenterBrowser.close();
  await r.close();
});

/**
 * A presenter page that keeps what it shared (window.lanternaShared) and the
 * page's `lanterna:share` reports, and beside it (the picker lists the tabs of
 * its own profile) the tab it shares, the pattern, at the capture's size.
 */
async function openPresenter(presenterBrowser: Browser, gateway: TestGateway, query = ''): Promise<WatchedPage & { pattern: Page }> {
  // one size for both: headless Chromium captures a tab at its window's size, which follows
  // the context's viewport and not reliably a page's own (measured: 1280×800 for a 640×360 page, 1 in 2)
  const presenter = await openWatchedPage(presenterBrowser, { width: WIDTH, height: HEIGHT });
  const pattern = await presenter.page.context().newPage();
  await pattern.setContent(patternHtml);
  await presenter.page.addInitScript(() => {
    const shared: { streams: MediaStream[]; reports: unknown[]; pickedAt: number[] } = { streams: [], reports: [], pickedAt: [] };
    (window as unknown as { lanternaShared: typeof shared }).lanternaShared = shared;
    const original = navigator.mediaDevices.getDisplayMedia.bind(navigator.mediaDevices);
    navigator.mediaDevices.getDisplayMedia = async (options) => {
      const stream = await original(options);
      shared.streams.push(stream);
      shared.pickedAt.push(Date.now());
      return stream;
    };
    window.addEventListener('lanterna:share', (event) => shared.reports.push({ ...(event as CustomEvent<object>).detail, at: Date.now() }));
  });
  await presenter.page.goto(`${gateway.httpUrl}/present?display=${displayId}${query}`);
  await waitFor('the display in the list', async () => (await presenter.page.locator('.display[aria-pressed="true"]').count()) === 1, 10_000);
  return { ...presenter, pattern };
}

interface Shared { sharedAt: number; sessionId: string }

/** Types the display's PIN and presses Share (shareRig.ts); resolves once the display shows a picture, and says where the time went. */
async function share(presenter: Page, r: Rig): Promise<Shared & { firstPictureMs: number }> {
  const { sessionId, firstPictureMs, sharedAt, answeredAt } = await pressShare(presenter, r);
  // where the time went: the gateway's answer, the wasm server loaded and its socket open, the display's client up
  const stages = await reports(presenter);
  const at = (type: string): string => {
    const report = stages.find((candidate) => candidate.type === type);
    return typeof report?.at === 'number' ? `${report.at - sharedAt} ms` : '-';
  };
  const pickedAt = await presenter.evaluate(() => (window as unknown as { lanternaShared: { pickedAt: number[] } }).lanternaShared.pickedAt.at(-1) ?? 0);
  console.log(`# share stages after the click: the browser's picker answered ${pickedAt - sharedAt} ms, the gateway ${answeredAt - sharedAt} ms, socket open and server loaded ${at('waiting')}, display's client active ${at('active')}, first picture acknowledged ${at('first-picture')}, drawn on the display ${firstPictureMs} ms`);
  return { sharedAt, sessionId, firstPictureMs };
}

/** How long after `since` the display page shows its idle screen again. */
async function idleAfter(display: Page, since: number): Promise<number> {
  await display.waitForFunction(() => document.getElementById('idle')?.hidden === false, undefined, { timeout: 10_000, polling: 10 });
  return Date.now() - since;
}

/** The pattern's colour at each block's inside, and how far the display is from it. */
function compareBlocks(shown: RgbImage, truth: (index: number) => readonly [number, number, number]): { worst: number; meanError: number[] } {
  let worst = 0;
  const meanError: number[] = [];
  BLOCKS.forEach((_, index) => {
    const [r, g, b] = truth(index);
    const left = (index % 4) * BLOCK_W;
    const top = Math.floor(index / 4) * BLOCK_H;
    let sum = 0;
    let count = 0;
    for (let y = top + EDGE; y < top + BLOCK_H - EDGE; y++) {
      for (let x = left + EDGE; x < left + BLOCK_W - EDGE; x++) {
        const at = (y * shown.width + x) * 4;
        for (const [channel, want] of [[0, r], [1, g], [2, b]] as const) {
          const error = Math.abs((shown.data[at + channel] ?? 0) - want);
          worst = Math.max(worst, error);
          sum += error;
          count += 1;
        }
      }
    }
    meanError.push(Math.round((sum / count) * 100) / 100);
  });
  return { worst, meanError };
}

function patternImage(): RgbImage {
  const data = Buffer.alloc(WIDTH * HEIGHT * 4);
  for (let y = 0; y < HEIGHT; y++) {
    for (let x = 0; x < WIDTH; x++) {
      const [r, g, b] = BLOCKS[Math.floor(y / BLOCK_H) * 4 + Math.floor(x / BLOCK_W)] ?? [0, 0, 0];
      data.set([r, g, b, 255], (y * WIDTH + x) * 4);
    }
  }
  return { width: WIDTH, height: HEIGHT, data };
}

/** What the presenter's page reported about the share (`lanterna:share`). */
async function reports(presenter: Page): Promise<{ type: string; [key: string]: unknown }[]> {
  return presenter.evaluate(() => (window as unknown as { lanternaShared: { reports: { type: string }[] } }).lanternaShared.reports);
}

test('Share my screen: the display shows the shared tab in H.264 within the tolerance; the page\'s Stop returns it to idle within 1 s', async () => {
  const r = await rig();
  const { gateway, presenterBrowser, display } = r;
  const presenter = await openPresenter(presenterBrowser, gateway);
  const shared = await share(presenter.page, r);
  console.log(`# share → first picture on the display (H.264): ${shared.firstPictureMs} ms`);
  const active = (await reports(presenter.page)).find((report) => report.type === 'active');
  assert.equal(active?.codec, 'h264', JSON.stringify(active));
  assert.deepEqual([active.width, active.height], [WIDTH, HEIGHT]);
  assert.match(await presenter.page.locator('#share-figures').textContent() ?? '', new RegExp(`${WIDTH}×${HEIGHT} · H\\.264`));

  // H.264 from an I420 capture: the blocks' insides within a tolerance, and the whole picture by PSNR
  await new Promise((resolve) => setTimeout(resolve, 1000));
  const shown = await pageScreenshot(display.page);
  await keepImage(shown, 'share-h264-display');
  const blocks = compareBlocks(shown, (index) => BLOCKS[index] ?? [0, 0, 0]);
  const whole = psnr(shown, patternImage());
  console.log(`# H.264 share: PSNR ${whole.toFixed(2)} dB against the pattern; block insides worst ${blocks.worst}/255, mean ${blocks.meanError.join(' ')}`);
  assert.ok(blocks.worst <= 24, `a block's inside is ${blocks.worst} away from the pattern (mean per block ${blocks.meanError.join(', ')})`);
  assert.ok(whole >= 30, `PSNR ${whole.toFixed(2)} dB against the pattern`);

  // a moving pattern: what the display shows a second
  await presenter.pattern.evaluate(() => (window as unknown as { startMoving: () => void }).startMoving());
  await new Promise((resolve) => setTimeout(resolve, 1000));
  const before = await display.page.evaluate(() => (window as unknown as { lanternaSeen: { renders: number[] } }).lanternaSeen.renders.length);
  await new Promise((resolve) => setTimeout(resolve, 4000));
  const after = await display.page.evaluate(() => (window as unknown as { lanternaSeen: { renders: number[] } }).lanternaSeen.renders.length);
  const figures = (await reports(presenter.page)).filter((report) => report.type === 'figures').slice(-3);
  console.log(`# moving pattern: the display drew ${((after - before) / 4).toFixed(1)} pictures/s; the presenter's last figures ${JSON.stringify(figures.map((report) => report.figures))}`);
  // the picture must keep moving; the rate is printed, not held: on this machine's 2 cores under the
  // other suites' load (average 12–28) the display's SwiftShader drew 1.5–5 a second, the presenter
  // captured 13–29 and encoded each in 2–6 ms (the display's acknowledgements pace it)
  assert.ok(after - before >= 4, `the display drew only ${after - before} pictures in 4 s of a moving pattern`);
  // the page as a person sees it while sharing (a laptop's window; the capture may grow with it: scaled into the session)
  await presenter.page.setViewportSize({ width: 1280, height: 800 });
  // the capture is 1280×800 now, the session still 640×360: pictures are scaled in (drawn, converted)
  await waitFor('a scaled picture', async () => (await reports(presenter.page)).some((report) => report.type === 'figures' && (report.figures as { readPath: string }).readPath === 'canvas'), 10_000, 200);
  await keepScreenshot(presenter.page, 'share-presenter-sharing');

  // timed from the click reaching the page: Playwright's own click first waits for the button to be
  // stable over two animation frames, which on a page drawing a moving capture under load took ~1 s
  const stoppedAt = await presenter.page.evaluate(() => {
    const at = Date.now();
    document.getElementById('stop')?.click();
    return at;
  });
  const idleMs = await idleAfter(display.page, stoppedAt);
  console.log(`# stop (the page's button) → display idle: ${idleMs} ms`);
  assert.ok(idleMs <= IDLE_WITHIN_MS, `the display took ${idleMs} ms to return to idle`);
  await outcome(presenter.page, new RegExp(`Stopped\\. ${displayName} is free again`), 5000);
  await keepScreenshot(presenter.page, 'share-presenter-stopped');
  assert.deepEqual(presenter.problems, []);
  await presenter.page.context().close();
});

test('the lossless fallback (?codec=planar): the display shows exactly what the presenter\'s browser captured; the capture ending (the browser\'s "Stop sharing") returns it to idle within 1 s', async () => {
  const r = await rig();
  const { gateway, presenterBrowser, display } = r;
  const presenter = await openPresenter(presenterBrowser, gateway, '&codec=planar');
  // the truth: the same tab captured in the presenter's browser and read back at the block centres
  const truth = await withDeadline(presenter.page.evaluate(async ({ width, height, blockW, blockH }) => {
    const stream = await navigator.mediaDevices.getDisplayMedia({ video: true });
    const track = stream.getVideoTracks()[0];
    if (!track) throw new Error('no track');
    // the presenter's page is a background tab (the shared one is in front): a <video> would not play there
    const processor = new (globalThis as unknown as { MediaStreamTrackProcessor: new (init: { track: MediaStreamTrack }) => { readable: ReadableStream<VideoFrame> } }).MediaStreamTrackProcessor({ track });
    const { value: frame } = await processor.readable.getReader().read();
    if (!frame) throw new Error('no frame');
    const canvas = new OffscreenCanvas(width, height);
    const context = canvas.getContext('2d', { willReadFrequently: true });
    if (!context) throw new Error('no canvas');
    context.drawImage(frame, 0, 0);
    frame.close();
    track.stop();
    const colours: number[][] = [];
    for (let i = 0; i < 8; i++) colours.push(Array.from(context.getImageData((i % 4) * blockW + blockW / 2, Math.floor(i / 4) * blockH + blockH / 2, 1, 1).data.slice(0, 3)));
    return colours;
  }, { width: WIDTH, height: HEIGHT, blockW: BLOCK_W, blockH: BLOCK_H }), 'the capture read back in the presenter\'s browser', 20_000);
  const shared = await share(presenter.page, r);
  console.log(`# share → first picture on the display (planar): ${shared.firstPictureMs} ms`);
  const active = (await reports(presenter.page)).find((report) => report.type === 'active');
  assert.equal(active?.codec, 'planar', JSON.stringify(active));
  assert.match(await presenter.page.locator('#share-figures').textContent() ?? '', /lossless.*codec=planar/);

  const shown = await pageScreenshot(display.page);
  await keepImage(shown, 'share-planar-display');
  const blocks = compareBlocks(shown, (index) => (truth[index] ?? [0, 0, 0]) as unknown as readonly [number, number, number]);
  console.log(`# planar share: block insides worst ${blocks.worst}/255 from the capture (pattern ± capture's I420: ${JSON.stringify(truth)})`);
  assert.equal(blocks.worst, 0, `planar is lossless, yet a block's inside differs by ${blocks.worst} (mean ${blocks.meanError.join(', ')})`);

  // what the browser's "Stop sharing" does to the page: the capture's track ends
  const stoppedAt = Date.now();
  await presenter.page.evaluate(() => {
    for (const stream of (window as unknown as { lanternaShared: { streams: MediaStream[] } }).lanternaShared.streams) for (const track of stream.getTracks()) track.stop();
  });
  const idleMs = await idleAfter(display.page, stoppedAt);
  console.log(`# stop (the capture ended, as by the browser's bar) → display idle: ${idleMs} ms`);
  assert.ok(idleMs <= IDLE_WITHIN_MS, `the display took ${idleMs} ms to return to idle`);
  await outcome(presenter.page, /You stopped sharing from the browser/, 5000);
  assert.deepEqual(presenter.problems, []);
  await presenter.page.context().close();
});

/** The capture a refused share opened was given back (every track of every stream the page got ended). */
async function capturesEnded(presenter: Page): Promise<boolean> {
  return presenter.evaluate(() => (window as unknown as { lanternaShared: { streams: MediaStream[] } }).lanternaShared.streams
    .every((stream) => stream.getTracks().every((track) => track.readyState === 'ended')));
}

test('a wrong PIN is refused in words and gives the capture back; a second presenter joins beside the first and leaves without ending it; closing the presenter\'s page, and an administrator\'s stop, each return the display to idle within 1 s; the page says who stopped it', async () => {
  const r = await rig();
  const { gateway, presenterBrowser, display } = r;
  const closing = await openPresenter(presenterBrowser, gateway);
  const pin = await gateway.roomPin(displayId);
  await closing.page.fill('#pin', pin === '000000' ? '000001' : '000000');
  await closing.page.click('#share');
  await outcome(closing.page, /That is not the PIN on the display/, 10_000);
  assert.ok(await capturesEnded(closing.page), 'the refused share stopped its capture');
  await share(closing.page, r);

  // a second presenter, with the display's new PIN, while the first shares: the display page takes up to four
  // sources (issue 29), so it joins a free slot beside the first; its page closing gives the slot back and the first goes on
  // (a display with every slot taken refuses in words: gateway/test/api/roomSlots.test.ts)
  const second = await openPresenter(presenterBrowser, gateway);
  const rotated = await gateway.roomPin(displayId);
  assert.ok(rotated);
  await second.page.fill('#pin', rotated);
  await second.page.click('#share');
  await outcome(second.page, new RegExp(`${displayName} is showing your screen`), 30_000);
  await second.page.context().close();
  await new Promise((resolve) => setTimeout(resolve, 1000));
  assert.equal(await display.page.evaluate(() => document.getElementById('idle')?.hidden), true, 'the display still shows the first presenter');

  const closedAt = Date.now();
  await closing.page.close();
  const idleOnClose = await idleAfter(display.page, closedAt);
  console.log(`# stop (the presenter's page closed) → display idle: ${idleOnClose} ms`);
  assert.ok(idleOnClose <= IDLE_WITHIN_MS, `the display took ${idleOnClose} ms to return to idle`);
  await closing.page.context().close();
  await waitFor('the display free again', async () => {
    const listing = await (await fetch(`${gateway.httpUrl}/v1/displays`)).json() as { displays: { id: string; state: string }[] };
    return listing.displays.find((listed) => listed.id === displayId)?.state === 'idle';
  }, 10_000, 50);

  const presenter = await openPresenter(presenterBrowser, gateway);
  const { sessionId } = await share(presenter.page, r);
  const stoppedAt = Date.now();
  const response = await fetch(`${gateway.httpUrl}/v1/admin/displays/${displayId}/sessions/${sessionId}`, { method: 'DELETE', headers: { authorization: `Bearer ${gateway.adminToken}` } });
  assert.ok(response.ok, `the admin stop answered ${response.status}`);
  const idleOnAdmin = await idleAfter(display.page, stoppedAt);
  console.log(`# stop (an administrator) → display idle: ${idleOnAdmin} ms`);
  assert.ok(idleOnAdmin <= IDLE_WITHIN_MS, `the display took ${idleOnAdmin} ms to return to idle`);
  await outcome(presenter.page, new RegExp(`An administrator stopped your presentation on ${displayName}`), 5000);
  assert.equal(await presenter.page.locator('#share').isDisabled(), false, 'Share is offered again');
  // Chromium logs each refused fetch (the 403 and 409 above are the answers asked for); nothing else
  assert.deepEqual(presenter.problems.filter((problem) => !/status of 4\d\d/.test(problem)), []);
  await presenter.page.context().close();
});
