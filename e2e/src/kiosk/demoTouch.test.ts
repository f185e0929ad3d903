// The README's demo on a touch panel (issue 30, "Done when"): `scripts/run.sh
// --touch` lets a finger on the display page control the demo presenter, and
// without it a finger controls nothing. The demo CLI itself (its gateway, its
// FreeRDP shadow server on Xvfb), the real display page in Chromium with CDP
// touch events, and the presenter's X pointer read with xdotool as the truth.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { launchChromium, startDemo, waitFor } from '@lanterna/testkit';
import { openTouchPage } from './inkTouch.js';

const run = promisify(execFile);
/** The demo presenter's screen and the panel are one size: a CSS pixel of the page is a pixel of the presenter's desktop. */
const SIZE = { width: 1280, height: 720 };
/** Long enough for a tap to have crossed page, worker, gateway and server on a loaded machine. */
const SETTLE_MS = 3000;

async function pointerOn(xDisplay: string): Promise<{ x: number; y: number }> {
  const { stdout } = await run('xdotool', ['getmouselocation', '--shell'], { env: { ...process.env, DISPLAY: xDisplay }, timeout: 10_000 });
  return { x: Number(/^X=(\d+)/m.exec(stdout)?.[1]), y: Number(/^Y=(\d+)/m.exec(stdout)?.[1]) };
}

/** Runs the demo as the README does (headless: no kiosk window), with `flags`; its display page URL and its presenter's X display. */
async function startTouchDemo(t: { after: (fn: () => void | Promise<void>) => void }, flags: string[]): Promise<{ url: string; xDisplay: string; spki: string }> {
  const demo = await startDemo(t, ['--no-discovery', '--scene', 'reference', '--display-size', `${SIZE.width}x${SIZE.height}`, ...flags], { startDeadlineMs: 90_000 });
  const said = demo.output.join('\n');
  const xDisplay = /on X display (:\d+)/.exec(said)?.[1];
  assert.ok(xDisplay, `the demo names its presenter's X display: ${said}`);
  assert.match(said, flags.includes('--touch') ? /touch: +a finger or the mouse on the display page controls the presenter/ : /touch: +off/);
  return { url: demo.displayUrl, xDisplay, spki: demo.gatewaySpki() };
}

/** The demo's display page on a touch panel, its picture decoded; a tap at (x, y) CSS px, and where the presenter's pointer is after it. */
async function tapOnDemo(t: { after: (fn: () => void | Promise<void>) => void }, flags: string[], at: { x: number; y: number }): Promise<{ before: { x: number; y: number }; after: { x: number; y: number }; marks: number }> {
  const demo = await startTouchDemo(t, flags);
  const browser = await launchChromium([`--ignore-certificate-errors-spki-list=${demo.spki}`]);
  t.after(() => void browser.close());
  const { page, touch, problems } = await openTouchPage(browser, SIZE);
  await page.goto(demo.url);
  await page.evaluate(() => {
    window.addEventListener('lanterna:decode', () => { (window as unknown as { decoded: boolean }).decoded = true; });
  });
  await waitFor('the demo presenter on the display', async () => (await page.locator('#idle').isHidden()) && (await page.locator('#session').isHidden()), 120_000, 200);
  await waitFor('its picture decoded', () => page.evaluate(() => (window as unknown as { decoded?: boolean }).decoded === true), 60_000, 200);
  // the picture's size is the panel's: the page maps a finger onto the desktop once it knows it
  await run('xdotool', ['mousemove', '5', '5'], { env: { ...process.env, DISPLAY: demo.xDisplay }, timeout: 10_000 });
  const before = await pointerOn(demo.xDisplay);
  await page.evaluate(({ left, top }) => {
    const dot = document.createElement('div');
    dot.id = 'test-tap-target';
    dot.style.cssText = `position:fixed;width:2px;height:2px;pointer-events:none;left:${left - 1}px;top:${top - 1}px`;
    document.body.append(dot);
  }, { left: at.x, top: at.y });
  await touch.tap('#test-tap-target');
  let after = before;
  await waitFor('the pointer to move, if it will', async () => {
    after = await pointerOn(demo.xDisplay);
    return after.x === at.x && after.y === at.y;
  }, SETTLE_MS * 3, 100).catch(() => undefined);
  const marks = await page.locator('.touch-mark').count();
  assert.deepEqual(problems, []);
  return { before, after, marks };
}

test('the README demo with --touch: a tap on the display page moves the demo presenter\'s pointer to the pixel under the finger, and the display says touch controls it', { timeout: 300_000 }, async (t) => {
  const { before, after, marks } = await tapOnDemo(t, ['--touch'], { x: 400, y: 300 });
  assert.deepEqual(before, { x: 5, y: 5 });
  assert.deepEqual(after, { x: 400, y: 300 }, 'the tap moved the presenter\'s pointer');
  assert.equal(marks, 1, 'the display marks the source as touch-controlled');
});

test('the README demo without --touch: a tap on the display page leaves the demo presenter\'s pointer where it was', { timeout: 300_000 }, async (t) => {
  const { before, after, marks } = await tapOnDemo(t, [], { x: 400, y: 300 });
  assert.deepEqual(before, { x: 5, y: 5 });
  assert.deepEqual(after, before, 'nothing reached the presenter');
  assert.equal(marks, 0, 'no touch mark');
});
