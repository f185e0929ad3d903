// Issue 25, "bitrate that follows the gateway's backpressure": a presenter
// page shares a tab whose every frame is new noise (the hardest thing to
// encode: the encoder spends all the bits it is given) through a gateway
// that reads presenter pages at 96 KiB/s (relay.presenterBytesPerSecond,
// both engines). At the picture's own bitrate (3.7 Mbit/s at 1280×720) the
// page would send five times what the gateway takes; the page must lower
// its H.264 bitrate to what the link carries, say so, and keep the display
// showing new pictures. Then the same page without the cap keeps its full
// bitrate (the control: the rule reacts to the link, not to the content).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { waitFor } from '@lanterna/testkit';
import { displayRenders, launchTabPresenter, openPresenterPage, pressShare, shareReports, startShareRig, stopSharing, type ShareReport } from './shareRig.js';
import { keepScreenshot } from './keepScreenshot.js';

const WIDTH = 1280;
const HEIGHT = 720;
const TITLE = 'Lanterna noise';
const CAP_BYTES_PER_SECOND = 96 * 1024;

/** A tab whose every frame is new coarse noise over the whole viewport. */
const NOISE_TAB = `<!doctype html><html><head><meta charset="utf-8"><title>${TITLE}</title>
<style>html,body{margin:0;overflow:hidden;background:#000}canvas{display:block}</style></head>
<body><canvas id="c" width="${WIDTH}" height="${HEIGHT}"></canvas><script>
const c = document.getElementById('c').getContext('2d');
function draw() {
  for (let y = 0; y < ${HEIGHT}; y += 16) for (let x = 0; x < ${WIDTH}; x += 16) {
    c.fillStyle = 'rgb(' + (Math.random() * 255 | 0) + ',' + (Math.random() * 255 | 0) + ',' + (Math.random() * 255 | 0) + ')';
    c.fillRect(x, y, 16, 16);
  }
  requestAnimationFrame(draw);
}
draw();
</script></body></html>`;

interface BitrateFigures { target: number; ceiling: number; heldMs: number }

function bitrates(reports: readonly ShareReport[]): BitrateFigures[] {
  return reports.flatMap((report) => {
    const figures = report.figures as { bitrate?: BitrateFigures } | undefined;
    return report.type === 'figures' && figures?.bitrate ? [figures.bitrate] : [];
  });
}

async function shareNoise(relay: Record<string, unknown> | undefined, check: (presenter: Page, display: Page) => Promise<void>): Promise<void> {
  const rig = await startShareRig({ width: WIDTH, height: HEIGHT, ...(relay ? { relay } : {}) });
  let browser: Browser | undefined;
  try {
    browser = await launchTabPresenter(TITLE);
    const presenter = await openPresenterPage(browser, rig, { width: WIDTH, height: HEIGHT });
    const tab = await presenter.page.context().newPage();
    await tab.setContent(NOISE_TAB);
    await pressShare(presenter.page, rig, 60_000);
    await check(presenter.page, rig.display.page);
    await stopSharing(presenter.page, rig);
    assert.deepEqual(presenter.problems, []);
    assert.deepEqual(rig.display.problems, []);
  } finally {
    await browser?.close();
    await rig.close();
  }
}

test('a gateway that reads the presenter at 96 KiB/s: the page lowers its H.264 bitrate under the link, says so, and the display keeps showing new pictures', { timeout: 240_000 }, async () => {
  await shareNoise({ presenterBytesPerSecond: CAP_BYTES_PER_SECOND }, async (presenter, display) => {
    const linkBits = CAP_BYTES_PER_SECOND * 8;
    await waitFor('the bitrate under the link', async () => bitrates(await shareReports(presenter)).some((figures) => figures.target <= linkBits), 60_000, 500);
    const seen = bitrates(await shareReports(presenter));
    console.log(`# bitrate per second (kbit/s, /ms held): ${seen.map((figures) => `${Math.round(figures.target / 1000)}/${figures.heldMs}`).join(' ')}; link ${Math.round(linkBits / 1000)}`);
    assert.ok((seen[0]?.ceiling ?? 0) > linkBits * 3, `the picture's own bitrate is well above the link: ${JSON.stringify(seen[0])}`);
    await waitFor('the presenter page saying why', async () => /quality lowered to \d+\.\d Mbit\/s: the network to the display is slower/.test(await presenter.locator('#share-figures').innerText()), 10_000, 250);
    await keepScreenshot(presenter, 'share-backpressure-presenter');
    // the display goes on: new pictures keep coming at the lowered bitrate (noise stays costly
    // at any bitrate: a picture of it is tens of kB, so at 96 KiB/s about one a second)
    const before = await displayRenders(display);
    await new Promise((resolve) => setTimeout(resolve, 8000));
    const drawn = (await displayRenders(display)) - before;
    console.log(`# display: ${drawn} pictures in 8 s at the lowered bitrate`);
    assert.ok(drawn >= 2, `the display showed ${drawn} new pictures in 8 s`);
    // and it stays under the link (within one tick's step) from then on
    const last = bitrates(await shareReports(presenter)).at(-1);
    assert.ok(last && last.target <= linkBits * 1.15, `the bitrate stays near or under the link: ${JSON.stringify(last)}`);
  });
});

test('the same noise with no cap: the bitrate stays at the picture\'s own (the rule follows the link, not the content)', { timeout: 240_000 }, async () => {
  await shareNoise(undefined, async (presenter) => {
    await waitFor('ten seconds of figures', async () => bitrates(await shareReports(presenter)).length >= 10, 60_000, 500);
    const seen = bitrates(await shareReports(presenter));
    console.log(`# bitrate per second (kbit/s): ${seen.map((figures) => Math.round(figures.target / 1000)).join(' ')}`);
    const lowest = Math.min(...seen.map((figures) => figures.target / figures.ceiling));
    assert.ok(lowest >= 0.85, `with nothing holding the page back the bitrate stays near its ceiling (lowest ${lowest.toFixed(2)} of it)`);
  });
});
