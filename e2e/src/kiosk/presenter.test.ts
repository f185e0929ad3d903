// The presenter page and the kiosk's idle screen against a real gateway and a
// real FreeRDP shadow server (NLA, so the sign-in typed on the presenter page
// is what gets the session in), in Debian's Chromium. One lab, one shadow
// server, one gateway and one browser for the whole file; the cases run in
// order and the lockout case comes last (it locks this source address out).
// With LANTERNA_E2E_SCREENSHOTS=<dir> the idle screen and the presenter page
// are kept at 1920×1080 and 1280×720.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { PNG } from 'pngjs';
import jsqr from 'jsqr';
import { Lab, type LabDisplay } from '@lanterna/lab';
import { launchChromium, openWatchedPage, publicDir, startTestGateway, waitFor, type TestGateway, type WatchedPage } from '@lanterna/testkit';
import { KIOSK_SCREEN_SIZES } from './kioskBrowser.js';
import { whilePaused } from './kioskRig.js';
import { pageScreenshot } from './pageScreenshot.js';
import { keepImage, keepScreenshot } from './keepScreenshot.js';
import { waitForWords } from './pageText.js';
import { fillAddress, outcome } from './presenterPage.js';
import { sharedRig } from './sharedRig.js';

const displayId = 'room-e2e';
const displayName = 'Meeting room 2.14';
const location = 'Building 2 · floor 1 · by the lifts';

interface Rig {
  lab: Lab;
  labDisplay: LabDisplay;
  shadow: Awaited<ReturnType<Lab['shadowServer']>>;
  gateway: TestGateway;
  browser: Browser;
  kiosk: WatchedPage;
  presenter: WatchedPage;
}

const rig = sharedRig(async (): Promise<Rig> => {
  const lab = await Lab.create({ name: 'e2e-presenter' });
  const labDisplay = await lab.display({ width: 1280, height: 720 });
  await labDisplay.showScene('reference');
  const shadow = await lab.shadowServer({ display: labDisplay, auth: 'nla' });
  const token = randomBytes(18).toString('base64url');
  const gateway = await startTestGateway({
    webRoot: publicDir,
    certificates: { mode: 'first-use' },
    displays: [{ id: displayId, name: displayName, location, token }],
    roomPin: { perSource: { max: 4, windowMs: 120_000 } },
  });
  const browser = await launchChromium();
  const kiosk = await openWatchedPage(browser, KIOSK_SCREEN_SIZES[0]);
  await kiosk.page.goto(`${gateway.httpUrl}/display/${displayId}#token=${token}`);
  const presenter = await openWatchedPage(browser, KIOSK_SCREEN_SIZES[1]);
  await presenter.page.goto(`${gateway.httpUrl}/present?display=${displayId}`);
  return { lab, labDisplay, shadow, gateway, browser, kiosk, presenter };
}, async ({ lab, gateway, browser }) => {
  await browser.close();
  await gateway.close();
  await lab.close();
});

/** The PIN in the kiosk page's DOM (also while a picture covers the idle screen). */
async function kioskPin(page: Page): Promise<string> {
  return page.evaluate(() => document.getElementById('room-pin')?.textContent ?? '');
}

/**
 * Chromium logs every refused fetch (4xx) as a console error; those are the
 * answers the tests ask for. Anything else is a page problem.
 */
function pageProblems(page: WatchedPage): string[] {
  return page.problems.filter((problem) => !/^console error: Failed to load resource: the server responded with a status of 4(00|01|03|04|09|29) /.test(problem));
}

/** Clicks Start and returns the gateway's answer to the projection request it sends. */
async function start(page: Page): Promise<{ status: number; code: string | undefined }> {
  const [response] = await Promise.all([
    page.waitForResponse((candidate) => candidate.url().endsWith(`/v1/displays/${displayId}/projection`) && candidate.request().method() === 'POST'),
    page.click('#start'),
  ]);
  const body = await response.json() as { code?: string };
  return { status: response.status(), code: body.code };
}

const otherPin = (pin: string): string => (pin === '000000' ? '000001' : '000000');

/** The idle screen's layout, measured in the page: what must be readable across a room. */
async function idleLayout(page: Page) {
  return page.evaluate(() => {
    const box = (id: string) => {
      const element = document.getElementById(id);
      if (!element) throw new Error(`no #${id}`);
      const rect = element.getBoundingClientRect();
      return { left: rect.left, top: rect.top, right: rect.right, bottom: rect.bottom, height: rect.height, width: rect.width, font: parseFloat(getComputedStyle(element).fontSize) };
    };
    return {
      viewport: { width: innerWidth, height: innerHeight },
      scrolls: document.documentElement.scrollWidth > innerWidth || document.documentElement.scrollHeight > innerHeight,
      name: box('display-name'), location: box('display-location'), pin: box('room-pin'), url: box('room-url'), qr: box('room-qr-code'), status: box('status'),
      // Every block of the idle screen, to check that none covers another.
      blocks: Object.fromEntries(['brand', 'display-name', 'display-location', 'room-pin', 'room-how', 'how', 'room-qr', 'status'].map((id) => [id, box(id)])),
    };
  });
}

test('idle screen: name, location, PIN, the presenter page\'s address and its QR code, readable at 1920×1080 and 1280×720', async () => {
  const { kiosk, gateway } = await rig();
  const page = kiosk.page;
  await waitForWords(page, /Ready — waiting for a presenter/, 20_000);
  await waitFor('a PIN on the idle screen', async () => /^\d{6}$/.test(await kioskPin(page)), 10_000);
  assert.equal(await page.locator('#display-name').textContent(), displayName);
  assert.equal(await page.locator('#display-location').textContent(), location);
  assert.equal(await page.locator('#room-url').textContent(), `${gateway.httpUrl}/present`);
  for (const size of KIOSK_SCREEN_SIZES) {
    await page.setViewportSize(size);
    const layout = await idleLayout(page);
    const { height, width } = layout.viewport;
    assert.equal(layout.scrolls, false, `${width}×${height}: no scrollbars`);
    // Across a meeting room: the PIN at least 15 % of the screen's height, the name 9 %, the address 3.5 %.
    assert.ok(layout.pin.font >= 0.15 * height, `${width}×${height}: PIN ${layout.pin.font}px`);
    assert.ok(layout.name.font >= 0.09 * height, `${width}×${height}: name ${layout.name.font}px`);
    assert.ok(layout.url.font >= 0.035 * height, `${width}×${height}: address ${layout.url.font}px`);
    assert.ok(layout.qr.height >= 0.4 * height, `${width}×${height}: QR code ${layout.qr.height}px`);
    for (const [name, element] of Object.entries({ name: layout.name, pin: layout.pin, url: layout.url, qr: layout.qr, status: layout.status })) {
      assert.ok(element.left >= 0 && element.top >= 0 && element.right <= width && element.bottom <= height, `${width}×${height}: ${name} inside the screen`);
    }
    assert.ok(layout.pin.right <= layout.qr.left && layout.url.right <= layout.qr.left, `${width}×${height}: text and QR code side by side`);
    const blocks = Object.entries(layout.blocks);
    for (const [i, [a, first]] of blocks.entries()) {
      assert.ok(first.left >= 0 && first.top >= 0 && first.right <= width && first.bottom <= height, `${width}×${height}: #${a} inside the screen`);
      for (const [b, second] of blocks.slice(i + 1)) {
        const apart = first.right <= second.left || second.right <= first.left || first.bottom <= second.top || second.bottom <= first.top;
        assert.ok(apart, `${width}×${height}: #${a} and #${b} do not overlap`);
      }
    }
    // The QR code, read back from the screen's pixels, is the presenter page of this display.
    const png = PNG.sync.read(await page.locator('#room-qr-code').screenshot());
    // jsqr is CommonJS: its default export is the module, whose `default` is the decoder.
    const decoded = jsqr.default(new Uint8ClampedArray(png.data.buffer, png.data.byteOffset, png.data.length), png.width, png.height);
    assert.equal(decoded?.data, `${gateway.httpUrl}/present?display=${displayId}`, `${width}×${height}: QR code`);
    await keepScreenshot(page, `idle-${width}x${height}`);
  }
  assert.deepEqual(kiosk.problems, []);
});

test('presenter page: the display is listed and chosen; a wrong PIN and a forbidden target are refused in words, and the PIN stays', async () => {
  const { presenter, kiosk, shadow } = await rig();
  const page = presenter.page;
  const entry = page.locator(`button.display[data-id="${displayId}"]`);
  await waitFor('the display listed as free', async () => ((await entry.textContent()) ?? '').includes('Free'), 15_000);
  assert.match((await entry.textContent()) ?? '', new RegExp(`${displayName}Free${location}`));
  assert.equal(await entry.getAttribute('aria-pressed'), 'true', 'chosen by ?display= (the QR code\'s address)');

  const pin = await kioskPin(kiosk.page);
  await fillAddress(page, `${shadow.host}:${shadow.port}`, shadow.username, shadow.password, otherPin(pin));
  assert.deepEqual(await start(page), { status: 403, code: 'pin-wrong' });
  assert.match(await outcome(page, /not the PIN/), /That is not the PIN on the display\. Check the display and try again\. 3 more tries before a pause\./);
  await keepScreenshot(page, 'presenter-wrong-pin-1280x720');

  await fillAddress(page, '10.20.30.40:3389', shadow.username, shadow.password, pin);
  await page.click('#start');
  await outcome(page, /The gateway may not connect to that computer/);

  // A Remote Assistance invitation (type 1, addresses in plain text) that names only a forbidden address.
  await page.check('input[name="kind"][value="invitation"]');
  const invitation = '<?xml version="1.0"?><UPLOADINFO TYPE="Escalated"><UPLOADDATA USERNAME="me" RCTICKET="65538,1,10.20.30.40:3389,*,c2Vzc2lvbg==,*,*,x" PassStub="x" L="0"/></UPLOADINFO>';
  await page.setInputFiles('#invitation', { name: 'invitation.msrcIncident', mimeType: 'application/xml', buffer: Buffer.from(invitation) });
  await page.fill('#invitation-password', 'unused');
  await page.fill('#pin', pin);
  assert.deepEqual(await start(page), { status: 403, code: 'target-forbidden' });
  await outcome(page, /The gateway may not connect to that computer/);
  assert.equal(await kioskPin(kiosk.page), pin, 'refused requests leave the PIN on the screen');
  assert.deepEqual(pageProblems(presenter), []);
});

test('projecting: the kiosk shows the presenter\'s screen, the PIN rotates, a second presenter joins beside it and stops alone, stopping frees it', async () => {
  const { presenter, kiosk, shadow, browser, gateway } = await rig();
  const page = presenter.page;
  const pin = await kioskPin(kiosk.page);
  await fillAddress(page, `${shadow.host}:${shadow.port}`, shadow.username, shadow.password, pin);
  await page.click('#start');
  await outcome(page, new RegExp(`${displayName} is showing your screen\\.`), 90_000);
  assert.equal(await page.locator('#stop').isVisible(), true);

  // The kiosk shows the shadow server's screen (the lab's reference scene: far from the idle screen's dark background).
  await waitFor('the picture without any overlay on the kiosk', async () => (await kiosk.page.locator('#idle').isHidden()) && (await kiosk.page.locator('#session').isHidden()), 60_000);
  const drawn = await whilePaused(shadow.child, gateway, () => pageScreenshot(kiosk.page));
  const bright = drawn.data.filter((value, i) => i % 4 !== 3 && value > 200).length;
  assert.ok(bright > drawn.width * drawn.height * 0.05, `the presenter's screen is drawn (${bright} bright channels)`);
  await keepImage(drawn, `kiosk-projecting-${drawn.width}x${drawn.height}`);
  const rotated = await kioskPin(kiosk.page);
  assert.match(rotated, /^\d{6}$/);
  assert.notEqual(rotated, pin, 'the used PIN was replaced');
  for (const size of KIOSK_SCREEN_SIZES) {
    await page.setViewportSize(size);
    await keepScreenshot(page, `presenter-projecting-${size.width}x${size.height}`);
  }

  // A second presenter, with the new PIN: the display page takes up to four sources (issue 29), so it joins
  // beside the first (place 2) and uses the PIN; its Stop ends its source alone. (Every slot taken refuses in
  // words: gateway/test/api/roomSlots.test.ts.)
  const second = await openWatchedPage(browser, KIOSK_SCREEN_SIZES[1]);
  try {
    await second.page.goto(`${gateway.httpUrl}/present?display=${displayId}`);
    await waitFor('the display listed as in use', async () => ((await second.page.locator(`button.display[data-id="${displayId}"]`).textContent()) ?? '').includes('In use'), 10_000);
    await fillAddress(second.page, `${shadow.host}:${shadow.port}`, shadow.username, shadow.password, rotated);
    await second.page.click('#start');
    await outcome(second.page, /is showing your screen \(place 2\)/, 30_000);
    await keepScreenshot(second.page, 'presenter-second-source-1280x720');
    await second.page.click('#stop');
    await outcome(second.page, /Stopped\./);
  } finally {
    await second.page.context().close();
  }
  await waitFor('the second presenter\'s PIN replaced', async () => await kioskPin(kiosk.page) !== rotated, 10_000);

  await page.click('#stop');
  await outcome(page, new RegExp(`Stopped\\. ${displayName} is free again\\.`));
  await waitForWords(kiosk.page, /Ready — waiting for a presenter/, 30_000);
  assert.equal(await kiosk.page.locator('#room').isVisible(), true, 'the idle screen with its PIN is back');
  assert.deepEqual(kiosk.problems, []);
  assert.deepEqual(pageProblems(presenter), []);
});

test('wrong PINs past the limit: the presenter is told to wait and for how long, even with the right PIN', async () => {
  const { presenter, kiosk, shadow } = await rig();
  const page = presenter.page;
  await page.setViewportSize(KIOSK_SCREEN_SIZES[1]);
  const pin = await kioskPin(kiosk.page);
  await fillAddress(page, `${shadow.host}:${shadow.port}`, shadow.username, shadow.password, otherPin(pin));
  const answers: number[] = [];
  while (answers.at(-1) !== 429 && answers.length < 4) answers.push((await start(page)).status);
  assert.deepEqual(answers, [403, 403, 429], 'two more wrong PINs allowed after the first test\'s, the third locks');
  const said = await outcome(page, /Too many wrong PINs/);
  assert.match(said, /^Too many wrong PINs\. Wait before you try again\. Try again in (\d+ seconds|2 minutes)\.$/);
  await keepScreenshot(page, 'presenter-locked-1280x720');
  await page.fill('#pin', pin);
  assert.deepEqual(await start(page), { status: 429, code: 'pin-locked' });
  assert.equal(await kioskPin(kiosk.page), pin, 'a locked-out request does not use the PIN');
  assert.deepEqual(pageProblems(presenter), []);
});
