// A signage display (autoProject, like the README's demo display) keeps its
// room PIN readable: the kiosk page shows a corner badge (name, PIN, the
// presenter page's address) over its own signage, whose picture hides the idle
// screen. The badge goes while a presenter projects and comes back with the
// signage after they stop (the presenter page lists the signage display as
// free and takes it with the badge's PIN). Real gateway, real FreeRDP shadow server (NLA),
// the display page in Debian's Chromium; the badge's PIN is the broker's and
// opens a projection. With LANTERNA_E2E_SCREENSHOTS=<dir> it keeps
// `signage-badge-*` and `signage-presenter-*` PNGs at 1920×1080 and 1280×720.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import type { Page } from 'playwright-core';
import { launchChromium, openWatchedPage, publicDir, startTestGateway, waitFor } from '@lanterna/testkit';
import { KIOSK_SCREEN_SIZES } from './kioskBrowser.js';
import { whilePaused } from './kioskRig.js';
import { pageScreenshot } from './pageScreenshot.js';
import { keepImage } from './keepScreenshot.js';
import { fillAddress, outcome } from './presenterPage.js';
import { labScene } from './labScene.js';

const displayId = 'lobby-e2e';
const displayName = 'Lobby screen';

interface Badge {
  visible: boolean;
  pin: string;
  name: string;
  url: string;
  box: { left: number; top: number; right: number; bottom: number; width: number; height: number };
  pinFont: number;
  nameFont: number;
  urlFont: number;
  viewport: { width: number; height: number };
}

async function badge(page: Page): Promise<Badge> {
  return page.evaluate(() => {
    const element = (id: string): HTMLElement => {
      const found = document.getElementById(id);
      if (!found) throw new Error(`no #${id}`);
      return found;
    };
    const root = element('signage-room');
    const rect = root.getBoundingClientRect();
    const font = (id: string): number => parseFloat(getComputedStyle(element(id)).fontSize);
    return {
      visible: !root.hidden && rect.width > 0 && getComputedStyle(root).visibility === 'visible',
      pin: element('signage-pin').textContent,
      name: element('signage-name').textContent,
      url: element('signage-url').textContent,
      box: { left: rect.left, top: rect.top, right: rect.right, bottom: rect.bottom, width: rect.width, height: rect.height },
      pinFont: font('signage-pin'), nameFont: font('signage-name'), urlFont: font('signage-url'),
      viewport: { width: innerWidth, height: innerHeight },
    };
  });
}

/** The presenter's picture (or the signage's) is up: neither the idle nor the session screen covers it. */
async function pictureShown(page: Page): Promise<boolean> {
  return (await page.locator('#idle').isHidden()) && (await page.locator('#session').isHidden());
}

test('signage display: a corner badge with the broker\'s room PIN over the signage, gone while a presenter projects, back after', { timeout: 240_000 }, async (t) => {
  const { lab, display: labDisplay } = await labScene(t, 'e2e-signage-pin', { width: 1280, height: 720 }, 'slide');
  const shadow = await lab.shadowServer({ display: labDisplay, auth: 'nla' });
  const token = randomBytes(18).toString('base64url');
  const credentials = { username: shadow.username, password: shadow.password };
  const gateway = await startTestGateway({
    webRoot: publicDir,
    certificates: { mode: 'first-use' },
    displays: [{ id: displayId, name: displayName, token, autoProject: { host: shadow.host, port: shadow.port, name: 'Lobby loop', credentials } }],
  });
  t.after(() => gateway.close());
  const browser = await launchChromium();
  t.after(() => browser.close());
  const kiosk = await openWatchedPage(browser, KIOSK_SCREEN_SIZES[0]);
  const page = kiosk.page;
  await page.goto(`${gateway.httpUrl}/display/${displayId}#token=${token}`);

  // The signage is up, and over it the badge with the PIN the broker holds now.
  await waitFor('the signage on the kiosk', () => pictureShown(page), 90_000, 200);
  await waitFor('the badge over the signage', async () => (await badge(page)).visible, 10_000, 100);
  const brokerPin = await gateway.roomPin(displayId);
  assert.match(brokerPin ?? '', /^\d{6}$/);
  let shown = await badge(page);
  assert.equal(shown.pin, brokerPin, 'the badge shows the broker\'s current PIN');
  assert.equal(shown.name, displayName);
  assert.equal(shown.url, `Present here: ${gateway.httpUrl}/present`);

  for (const size of KIOSK_SCREEN_SIZES) {
    await page.setViewportSize(size);
    await waitFor(`the page laid out at ${size.width}×${size.height}`, async () => (await badge(page)).viewport.width === size.width, 5000, 50);
    shown = await badge(page);
    const { width, height } = size;
    const { box } = shown;
    assert.ok(box.left >= 0 && box.top >= 0 && box.right <= width && box.bottom <= height, `${width}×${height}: the badge is on the screen`);
    assert.ok(box.right >= width * 0.95 && box.bottom >= height * 0.95, `${width}×${height}: in the bottom right corner`);
    // Readable across a room, yet a corner: the PIN at least 6 % of the height, the words 2 %; at most a sixth of the screen.
    assert.ok(shown.pinFont >= 0.06 * height, `${width}×${height}: PIN ${shown.pinFont}px`);
    assert.ok(shown.nameFont >= 0.02 * height && shown.urlFont >= 0.02 * height, `${width}×${height}: name ${shown.nameFont}px, address ${shown.urlFont}px`);
    assert.ok(box.width * box.height <= (width * height) / 6, `${width}×${height}: the badge covers ${Math.round((100 * box.width * box.height) / (width * height))} % of the screen`);
    const picture = await whilePaused(shadow.child, gateway, () => pageScreenshot(page));
    await keepImage(picture, `signage-badge-${width}x${height}`);
  }
  await page.setViewportSize(KIOSK_SCREEN_SIZES[0]);

  // A presenter on the presenter page sees the display free (signage gives way) and takes it with that PIN: no badge over their screen.
  const presenter = await openWatchedPage(browser, KIOSK_SCREEN_SIZES[1]);
  await presenter.page.goto(`${gateway.httpUrl}/present?display=${displayId}`);
  const entry = presenter.page.locator(`button.display[data-id="${displayId}"]`);
  await waitFor('the signage display listed as free', async () => ((await entry.textContent()) ?? '').includes('Free'), 15_000, 100);
  await fillAddress(presenter.page, `${shadow.host}:${shadow.port}`, credentials.username, credentials.password, shown.pin);
  await presenter.page.click('#start');
  await waitFor('the badge gone as the presenter\'s session starts', async () => !(await badge(page)).visible, 30_000, 50);
  await outcome(presenter.page, new RegExp(`${displayName} is showing your screen\\.`), 90_000);
  await waitFor('the presenter\'s picture on the kiosk', () => pictureShown(page), 90_000, 200);
  assert.equal((await badge(page)).visible, false, 'never over a presenter\'s projection');
  const presenting = await whilePaused(shadow.child, gateway, () => pageScreenshot(page));
  await keepImage(presenting, `signage-presenter-${presenting.width}x${presenting.height}`);
  assert.equal((await badge(page)).visible, false);

  // They stop: the signage comes back, and the badge with it, showing the PIN that replaced the used one.
  await presenter.page.click('#stop');
  await outcome(presenter.page, new RegExp(`Stopped\\. ${displayName} is free again\\.`));
  await waitFor('the badge back over the signage', async () => (await badge(page)).visible, 60_000, 100);
  const after = await badge(page);
  const rotated = await gateway.roomPin(displayId);
  assert.notEqual(rotated, brokerPin, 'the used PIN was replaced');
  assert.equal(after.pin, rotated, 'the badge shows the new PIN');
  assert.deepEqual(presenter.problems, []);
  assert.deepEqual(kiosk.problems, []);
});
