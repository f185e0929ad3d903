// Ink over a presenter's picture (issue 30): a presenter projects a real
// FreeRDP shadow server from the presenter page; on the display page (Chromium,
// real touch events through CDP) someone opens the ink layer, draws, undoes,
// clears and saves. The PNG the presenter page receives (with its stop token)
// is the picture the display showed — compared with a screenshot of the page
// taken before the ink — with the ink exactly where it was drawn: the undone
// stroke is absent, a cleared drawing is absent, and undoing the clear brings
// it back. With LANTERNA_E2E_SCREENSHOTS=<dir> it keeps `ink-picture-*` PNGs
// (the display with its ink, the presenter page with the saved picture).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import type { Page } from 'playwright-core';
import type { RgbImage } from '@lanterna/lab';
import { launchChromium, openWatchedPage, publicDir, startTestGateway, waitFor } from '@lanterna/testkit';
import { pageScreenshot } from './pageScreenshot.js';
import { keepImage, keepScreenshot } from './keepScreenshot.js';
import { fillAddress, outcome } from './presenterPage.js';
import { openTouchPage } from './inkTouch.js';
import { labScene } from './labScene.js';

const displayId = 'ink-picture-e2e';
const displayName = 'Ink screen';
const SIZE = { width: 1280, height: 720 };
/** The stroke that stays: red, along y = 300 from x = 300 to 700 (CSS px = device px here). */
const KEPT = { y: 300, from: 300, to: 700 };
/** The stroke that is undone: blue, along x = 1000 from y = 150 to 450. */
const UNDONE = { x: 1000, from: 150, to: 450 };

interface Rgb { r: number; g: number; b: number }

function pixelOf(image: { width: number; data: Uint8Array }, x: number, y: number): Rgb {
  const at = (image.width * y + x) * 4;
  return { r: image.data[at] ?? 0, g: image.data[at + 1] ?? 0, b: image.data[at + 2] ?? 0 };
}

const isInkRed = (p: Rgb): boolean => p.r > 200 && p.g < 80 && p.b < 80;

function near(a: Rgb, b: Rgb, tolerance: number): boolean {
  return Math.abs(a.r - b.r) <= tolerance && Math.abs(a.g - b.g) <= tolerance && Math.abs(a.b - b.b) <= tolerance;
}

/**
 * How many pixels of the saved PNG differ from the picture outside the
 * places allowed to (the kept stroke's band when `withInk`, the pen button
 * the screenshot shows and the PNG does not).
 */
function differencesOutsideInk(png: { width: number; height: number; data: Uint8Array }, before: RgbImage, withInk: boolean): string {
  let differing = 0;
  const box = { left: Infinity, top: Infinity, right: -1, bottom: -1 };
  for (let y = 0; y < png.height; y++) {
    for (let x = 0; x < png.width; x++) {
      if (withInk && Math.abs(y - KEPT.y) <= 12 && x >= KEPT.from - 12 && x <= KEPT.to + 12) continue;
      if (x >= SIZE.width - 120 && y <= 120) continue;
      if (near(pixelOf(png, x, y), pixelOf(before, x, y), 6)) continue;
      differing++;
      box.left = Math.min(box.left, x);
      box.top = Math.min(box.top, y);
      box.right = Math.max(box.right, x);
      box.bottom = Math.max(box.bottom, y);
    }
  }
  return differing <= 50 ? 'ok' : `${differing} pixels differ, within ${JSON.stringify(box)}`;
}

/** The picture the presenter page shows now, read back from its <img> (the page's CSP lets no script fetch a blob: URL). */
async function presenterPicture(page: Page): Promise<{ width: number; height: number; data: Uint8Array }> {
  const read = await page.evaluate(async () => {
    const image = document.getElementById('ink-picture') as HTMLImageElement;
    await image.decode();
    const canvas = document.createElement('canvas');
    canvas.width = image.naturalWidth;
    canvas.height = image.naturalHeight;
    const context = canvas.getContext('2d');
    if (!context) throw new Error('no 2d context');
    context.drawImage(image, 0, 0);
    const bytes = context.getImageData(0, 0, canvas.width, canvas.height).data;
    let text = '';
    for (let i = 0; i < bytes.length; i += 0x8000) text += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
    return { width: canvas.width, height: canvas.height, base64: btoa(text) };
  });
  return { width: read.width, height: read.height, data: new Uint8Array(Buffer.from(read.base64, 'base64')) };
}

test('ink over a presenter\'s picture: touch strokes, undo, clear; the presenter page gets picture + ink as a PNG', { timeout: 300_000 }, async (t) => {
  const { lab, display: labDisplay } = await labScene(t, 'e2e-ink-picture', SIZE, 'slide');
  const shadow = await lab.shadowServer({ display: labDisplay, auth: 'nla' });
  const token = randomBytes(18).toString('base64url');
  const gateway = await startTestGateway({ webRoot: publicDir, certificates: { mode: 'first-use' }, displays: [{ id: displayId, name: displayName, token }] });
  t.after(() => gateway.close());
  const browser = await launchChromium();
  t.after(() => browser.close());
  const kiosk = await openTouchPage(browser, SIZE);
  const { page, touch } = kiosk;
  // planar: lossless, so the picture is the server's screen and stays put once drawn
  await page.goto(`${gateway.httpUrl}/display/${displayId}?codecs=planar#token=${token}`);
  await waitFor('the display online', async () => ((await page.locator('#status-text').textContent()) ?? '').startsWith('Ready'), 30_000, 100);

  const presenter = await openWatchedPage(browser, SIZE);
  // What the presenter page heard from /ink, said when a picture does not arrive.
  const inkAnswers: string[] = [];
  presenter.page.on('response', (response) => {
    if (response.url().endsWith('/ink')) inkAnswers.push(`${Math.round(performance.now())} ${response.status()} ${response.headers().etag ?? ''}`);
  });
  await presenter.page.goto(`${gateway.httpUrl}/present?display=${displayId}`);
  const pin = await gateway.roomPin(displayId);
  await fillAddress(presenter.page, `${shadow.host}:${shadow.port}`, shadow.username, shadow.password, pin ?? '');
  await presenter.page.click('#start');
  await outcome(presenter.page, new RegExp(`${displayName} is showing your screen\\.`), 120_000);
  await waitFor('the picture on the display', async () => (await page.locator('#idle').isHidden()) && (await page.locator('#session').isHidden()), 120_000, 200);

  // The picture, once two looks a second apart agree (the first frames may still be arriving).
  let before = await pageScreenshot(page);
  await waitFor('a still picture', async () => {
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const next = await pageScreenshot(page);
    const same = Buffer.compare(Buffer.from(next.data), Buffer.from(before.data)) === 0;
    before = next;
    return same;
  }, 60_000, 0);
  await keepImage(before, 'ink-picture-before');

  await page.evaluate(() => {
    const saves: unknown[] = [];
    (window as unknown as { inkSaves: unknown[] }).inkSaves = saves;
    window.addEventListener('lanterna:ink-saved', (event) => saves.push((event as CustomEvent).detail));
  });
  // over a presenter's picture the pen button sleeps (nothing of the display's drawn over the picture) until a touch wakes it
  assert.equal(await page.locator('#ink-open').evaluate((button) => getComputedStyle(button).opacity), '0', 'the pen button sleeps over the picture');
  await touch.tap('#desktop');
  await waitFor('the pen button awake', async () => (await page.locator('#ink-open').evaluate((button) => getComputedStyle(button).opacity)) === '1', 5000, 50);
  await touch.tap('#ink-open');
  await waitFor('the ink layer open', () => page.locator('#ink').isVisible(), 5000, 50);
  assert.equal(await page.locator('#ink').getAttribute('data-surface'), 'session');
  await touch.tap('#ink [data-tool="pen-red"]');
  await touch.stroke([{ x: KEPT.from, y: KEPT.y }, { x: KEPT.to, y: KEPT.y }]);
  await touch.tap('#ink [data-tool="pen-blue"]');
  await touch.stroke([{ x: UNDONE.x, y: UNDONE.from }, { x: UNDONE.x, y: UNDONE.to }]);
  await touch.tap('#ink .ink-undo');
  await keepScreenshot(page, 'ink-picture-display');

  async function saveAndReceive(step: string): Promise<{ width: number; height: number; data: Uint8Array }> {
    const shown = async (): Promise<string> => (await presenter.page.locator('#ink-picture').getAttribute('src')) ?? '';
    const previous = await shown();
    await touch.tap('#ink .ink-save');
    await waitFor(`${step}: saved`, async () => /^(?!Saving)./.test((await page.locator('#ink .ink-note').textContent()) ?? ''), 30_000, 50);
    assert.match((await page.locator('#ink .ink-note').textContent()) ?? '', /^Saved\./, step);
    try {
      await waitFor(`${step}: the presenter page has the new picture`, async () => (await shown()) !== previous, 60_000, 200);
    } catch (error) {
      await keepScreenshot(page, `ink-picture-failed-${step}`);
      const inkState = await page.evaluate(() => {
        const canvas = document.querySelector<HTMLCanvasElement>('.ink-canvas');
        const pixel = canvas?.getContext('2d')?.getImageData(500, 300, 1, 1).data;
        document.getElementById('ink')?.setAttribute('hidden', '');
        return pixel ? Array.from(pixel).join(',') : 'none';
      });
      await keepScreenshot(page, `ink-picture-failed-${step}-without-ink`);
      inkAnswers.push(`ink canvas at 500,300: ${inkState}`);
      throw new Error(`${String(error)}; presenter page: ${await presenter.page.locator('#outcome').textContent()}; problems: ${presenter.problems.join(' | ')}; saves: ${JSON.stringify(await page.evaluate(() => (window as unknown as { inkSaves: unknown[] }).inkSaves))}; note: ${await page.locator('#ink .ink-note').textContent()}; ink answers: ${inkAnswers.filter((line) => line.includes("save") || !line.includes(" 304 ")).join(', ')}`);
    }
    return presenterPicture(presenter.page);
  }

  // 1. The kept stroke over the picture; the undone one nowhere.
  let png = await saveAndReceive('ink');
  assert.equal(png.width, SIZE.width);
  assert.equal(png.height, SIZE.height);
  for (const x of [KEPT.from + 20, 450, 500, KEPT.to - 20]) assert.ok(isInkRed(pixelOf(png, x, KEPT.y)), `red ink at ${x},${KEPT.y}: ${JSON.stringify(pixelOf(png, x, KEPT.y))}`);
  await keepImage({ ...png, data: Buffer.from(png.data) }, 'ink-picture-saved');
  assert.equal(differencesOutsideInk(png, before, true), 'ok', 'the saved picture away from the kept stroke (the undone one included)');
  await keepScreenshot(presenter.page, 'ink-picture-presenter', { fullPage: true });

  // 2. Clear: the picture alone.
  await touch.tap('#ink .ink-clear');
  await waitFor('the drawing cleared (nothing left to clear)', () => page.locator('#ink .ink-clear').isDisabled(), 5000, 50);
  png = await saveAndReceive('cleared');
  assert.equal(differencesOutsideInk(png, before, false), 'ok', 'the saved picture after clear');
  assert.ok(!isInkRed(pixelOf(png, 500, KEPT.y)));

  // 3. Undo the clear: the stroke is back.
  await touch.tap('#ink .ink-undo');
  await waitFor('the drawing back', () => page.locator('#ink .ink-clear').isEnabled(), 5000, 50);
  png = await saveAndReceive('clear undone');
  assert.ok(isInkRed(pixelOf(png, 500, KEPT.y)), 'undo brought the cleared stroke back');
  assert.equal(differencesOutsideInk(png, before, true), 'ok', 'the saved picture after undoing the clear');

  await presenter.page.click('#stop');
  await outcome(presenter.page, new RegExp(`Stopped\\. ${displayName} is free again\\.`));
  // The presentation gone, the ink went with its picture: the layer is closed, the next one opens a whiteboard.
  await waitFor('the ink layer closed with the session', async () => !(await page.locator('#ink').isVisible()), 30_000, 100);
  assert.equal(await page.locator('#ink').getAttribute('data-surface'), 'whiteboard');
  assert.deepEqual(kiosk.problems, []);
  assert.deepEqual(presenter.problems, []);
});
