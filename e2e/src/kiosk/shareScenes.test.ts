// Issue 25's scene tests: a second real Chromium presses "Share my screen" on
// /present and really shares, through the real gateway, to the display page
// in another Chromium, (a) a tab showing the lab's slide, (b) a tab with the
// lab's terminal scene as a page (text typed line after line), (c) a tab with
// the lab's animation (a full-screen canvas changing every frame), and (d)
// the whole screen of an Xvfb showing the slide (headful Chromium on that
// display; headless cannot capture a screen). Pictures are H.264
// (WebCodecs VideoEncoder in the presenter, WebCodecs VideoDecoder in the
// display's wasm client).
//
// Each compares real pixels at 1280×720: the source's own picture (the shared
// tab's screenshot; for the screen, an X screenshot of the Xvfb) against the
// display page's decoded, drawn picture (a screenshot of the display page at
// 1:1), PSNR ≥ 35 dB. The moving scenes must move on the display first (the
// display draws new pictures while the source changes), then are held still
// and compared once the display has drawn nothing new for a while. So that a
// pass means something, each test also checks that the same comparison says
// "no" (< 35 dB) to the pictures a broken path would show: a black screen,
// and the source moved by 8 pixels.
//
// With LANTERNA_E2E_SCREENSHOTS=<dir> the pictures compared are kept
// (share-scene-<scene>-source.png / -display.png) with the presenter page
// while sharing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Browser, Page } from 'playwright-core';
import { PNG } from 'pngjs';
import { ANIMATION_PAGE_HTML, TERMINAL_PAGE_HTML, writeScenePng, type RgbImage } from '@lanterna/lab';
import { pageScreenshot } from './pageScreenshot.js';
import { psnr } from './psnr.js';
import { keepImage, keepScreenshot } from './keepScreenshot.js';
import {
  displayRenders, displaySettled, launchScreenPresenter, launchTabPresenter, minimiseWindow, openPresenterPage,
  pressShare, shareReports, startShareRig, stopSharing, type ShareRig,
} from './shareRig.js';
import { sharedRig } from './sharedRig.js';
import { onSlideScreen } from './slideScreen.js';

const WIDTH = 1280;
const HEIGHT = 720;
const MIN_PSNR_DB = 35;
/** The shared tab's title: the presenter Chromium's picker picks the tab with it. */
const SCENE_TITLE = 'Lanterna shared scene';

interface Rig {
  share: ShareRig;
  tabPresenter: Browser;
  workDir: string;
}

const rig = sharedRig(async (): Promise<Rig> => {
  const workDir = await mkdtemp(join(tmpdir(), 'lanterna-share-scenes-'));
  const [share, tabPresenter] = await Promise.all([startShareRig({ width: WIDTH, height: HEIGHT }), launchTabPresenter(SCENE_TITLE)]);
  return { share, tabPresenter, workDir };
}, async ({ share, tabPresenter, workDir }) => {
  await tabPresenter.close();
  await share.close();
  await rm(workDir, { recursive: true, force: true });
});

/**
 * A page titled SCENE_TITLE whose whole viewport is an iframe showing the
 * scene's own page: the scenes set titles of their own (the animation one
 * every frame), and the picker goes by the tab's title.
 */
function sceneTab(sceneHtml: string): string {
  const srcdoc = sceneHtml.replaceAll('&', '&amp;').replaceAll('"', '&quot;');
  return `<!doctype html><html><head><meta charset="utf-8"><title>${SCENE_TITLE}</title>
<style>html,body{margin:0;padding:0;overflow:hidden;background:#000}iframe{position:fixed;left:0;top:0;width:100%;height:100%;border:0;display:block}</style>
</head><body><iframe id="scene" srcdoc="${srcdoc}"></iframe></body></html>`;
}

async function slideHtml(workDir: string): Promise<string> {
  const png = await readFile(await writeScenePng('slide', WIDTH, HEIGHT, workDir));
  return `<!doctype html><html><head><meta charset="utf-8"><style>html,body{margin:0;padding:0;overflow:hidden;background:#000}img{display:block}</style></head>
<body><img alt="" width="${WIDTH}" height="${HEIGHT}" src="data:image/png;base64,${png.toString('base64')}"></body></html>`;
}

function decodePng(bytes: Buffer): RgbImage {
  const png = PNG.sync.read(bytes);
  for (let i = 3; i < png.data.length; i += 4) png.data[i] = 255;
  return { width: png.width, height: png.height, data: png.data };
}

function black(width: number, height: number): RgbImage {
  const data = Buffer.alloc(width * height * 4);
  for (let i = 3; i < data.length; i += 4) data[i] = 255;
  return { width, height, data };
}

/** The picture moved right by `dx` pixels (the left edge repeated): what a misplaced picture would look like. */
function shifted(image: RgbImage, dx: number): RgbImage {
  const data = Buffer.alloc(image.data.length);
  for (let y = 0; y < image.height; y++) {
    for (let x = 0; x < image.width; x++) {
      const from = (y * image.width + Math.max(0, x - dx)) * 4;
      data.set(image.data.subarray(from, from + 4), (y * image.width + x) * 4);
    }
  }
  return { width: image.width, height: image.height, data };
}

/**
 * The display against the source: ≥ 35 dB, and the same measure < 35 dB
 * against a black screen and against the source moved by 8 px.
 */
async function compareWithSource(scene: string, source: RgbImage, display: Page): Promise<number> {
  const shown = await pageScreenshot(display);
  await keepImage(source, `share-scene-${scene}-source`);
  await keepImage(shown, `share-scene-${scene}-display`);
  assert.deepEqual([shown.width, shown.height], [source.width, source.height], 'the display page and the source are the same size');
  const db = psnr(shown, source);
  const againstBlack = psnr(shown, black(source.width, source.height));
  const againstShifted = psnr(shown, shifted(source, 8));
  console.log(`# ${scene}: display vs source PSNR ${db.toFixed(2)} dB (controls: vs black ${againstBlack.toFixed(2)} dB, vs the source moved 8 px ${againstShifted.toFixed(2)} dB)`);
  assert.ok(againstBlack < MIN_PSNR_DB, `the comparison cannot tell ${scene} from a black screen (${againstBlack.toFixed(2)} dB)`);
  assert.ok(againstShifted < MIN_PSNR_DB, `the comparison cannot tell ${scene} from itself moved by 8 px (${againstShifted.toFixed(2)} dB)`);
  assert.ok(db >= MIN_PSNR_DB, `${scene}: the display is ${db.toFixed(2)} dB from the source, under ${MIN_PSNR_DB} dB`);
  return db;
}

/**
 * Opens the scene in a tab of the presenter's profile and a presenter page
 * beside it, shares the tab, runs `check`, and stops from the page; a failed
 * check still ends the share (the presenter's pages closed), so the next test
 * finds the display free.
 */
async function shareTab(sceneHtml: string, check: (scene: Page, presenter: Page, share: ShareRig) => Promise<void>): Promise<void> {
  const { share, tabPresenter } = await rig();
  const presenter = await openPresenterPage(tabPresenter, share, { width: WIDTH, height: HEIGHT });
  try {
    // same context, same size: headless Chromium captures a tab at its window's size, which follows the context's viewport
    const scene = await presenter.page.context().newPage();
    await scene.setContent(sceneTab(sceneHtml));
    const { firstPictureMs } = await pressShare(presenter.page, share);
    const active = (await shareReports(presenter.page)).find((report) => report.type === 'active');
    assert.equal(active?.codec, 'h264', JSON.stringify(active));
    assert.deepEqual([active.width, active.height], [WIDTH, HEIGHT], 'the session is the tab\'s size');
    console.log(`# share → first picture on the display: ${firstPictureMs} ms`);
    await check(scene, presenter.page, share);
    await stopSharing(presenter.page, share);
    assert.deepEqual(presenter.problems, []);
    assert.deepEqual(share.display.problems, []);
  } finally {
    await presenter.page.context().close();
    await displayIdle(share);
  }
}

/** The display back on its idle screen (after a test that failed half-way too). */
async function displayIdle(share: ShareRig): Promise<void> {
  await share.display.page.waitForFunction(() => document.getElementById('idle')?.hidden === false, undefined, { timeout: 10_000, polling: 50 });
}

/** The scene's tab as it is now (a screenshot of the tab, 1:1). */
async function tabPicture(scene: Page): Promise<RgbImage> {
  return decodePng(await scene.screenshot({ type: 'png', animations: 'allow', caret: 'initial' }));
}

/** The display draws new pictures while the source moves: at least `least` in `ms`. */
async function assertMoving(display: Page, scene: string, ms: number, least: number): Promise<void> {
  const before = await displayRenders(display);
  await new Promise((resolve) => setTimeout(resolve, ms));
  const drawn = (await displayRenders(display)) - before;
  console.log(`# ${scene}: the display drew ${(drawn / (ms / 1000)).toFixed(1)} pictures/s while it moved`);
  assert.ok(drawn >= least, `the display drew ${drawn} pictures in ${ms} ms of a moving ${scene}`);
}

test('a shared tab showing the lab\'s slide arrives on the display at PSNR ≥ 35 dB', async () => {
  const { workDir } = await rig();
  await shareTab(await slideHtml(workDir), async (scene, presenter, share) => {
    await displaySettled(share.display.page);
    await compareWithSource('slide', await tabPicture(scene), share.display.page);
    await keepScreenshot(presenter, 'share-scene-presenter-sharing');
  });
});

test('a shared tab with the terminal scene (text typed line after line) moves on the display, and held still arrives at PSNR ≥ 35 dB', async () => {
  await shareTab(TERMINAL_PAGE_HTML, async (scene, _presenter, share) => {
    await assertMoving(share.display.page, 'terminal', 3000, 3);
    await scene.frameLocator('#scene').locator('body').evaluate(() => (window as unknown as { stopTyping: () => void }).stopTyping());
    await displaySettled(share.display.page);
    await compareWithSource('terminal', await tabPicture(scene), share.display.page);
  });
});

test('a shared tab with the lab\'s animation moves on the display, and held still arrives at PSNR ≥ 35 dB', async () => {
  await shareTab(ANIMATION_PAGE_HTML, async (scene, _presenter, share) => {
    await assertMoving(share.display.page, 'animation', 3000, 3);
    // the animation draws from requestAnimationFrame: taking it away holds the canvas on its last frame
    await scene.frameLocator('#scene').locator('body').evaluate(() => {
      window.requestAnimationFrame = () => 0;
    });
    await displaySettled(share.display.page);
    await compareWithSource('animation', await tabPicture(scene), share.display.page);
  });
});

test('the whole screen of an Xvfb showing the slide, shared from a headful Chromium, arrives at PSNR ≥ 35 dB', async () => {
  const { share } = await rig();
  try {
    await onSlideScreen('share-scenes-screen', { width: WIDTH, height: HEIGHT }, launchScreenPresenter, async (screen, screenPresenter) => {
      const presenter = await openPresenterPage(screenPresenter, share, { width: 800, height: 600 });
      await keepScreenshot(presenter.page, 'share-scene-screen-presenter');
      // the pointer out of the way: the capture draws it, an X screenshot does not
      await promisify(execFile)('xdotool', ['mousemove', String(WIDTH - 1), String(HEIGHT - 1)], { env: { ...process.env, ...screen.env }, timeout: 10_000 });
      const { firstPictureMs } = await pressShare(presenter.page, share);
      console.log(`# screen share → first picture on the display: ${firstPictureMs} ms`);
      const active = (await shareReports(presenter.page)).find((report) => report.type === 'active');
      assert.equal(active?.codec, 'h264', JSON.stringify(active));
      assert.deepEqual([active.width, active.height], [WIDTH, HEIGHT], 'the session is the screen\'s size');
      // the presenter's own window lies over the slide: out of the way, as a person would
      await minimiseWindow(presenter.page);
      // a screen's capture brings frames even while nothing moves on it (Chromium's X capturer, 30 a second), so the
      // display never falls still: the picture is taken once the new frames have had time to arrive
      const before = await displayRenders(share.display.page);
      await new Promise((resolve) => setTimeout(resolve, 4000));
      console.log(`# screen: the display drew ${(((await displayRenders(share.display.page)) - before) / 4).toFixed(1)} pictures/s of the still screen`);
      await compareWithSource('screen', await screen.screenshot(), share.display.page);
      await stopSharing(presenter.page, share);
      assert.deepEqual(presenter.problems, []);
      assert.deepEqual(share.display.problems, []);
    });
  } finally {
    await displayIdle(share);
  }
});
