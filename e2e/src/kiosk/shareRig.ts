// "Share my screen" driven from outside, for the scene tests and the
// glass-to-glass benchmark: the real gateway with one display, the display
// page in its own headless Chromium (its draws counted, `lanterna:render`),
// and presenter pages in a second Chromium that press Share the way a person
// does. The second Chromium shares either a tab of its own profile (headless,
// the picker answered by --auto-select-tab-capture-source-by-title) or, when
// it runs headful on an X display, that whole screen
// (--auto-select-desktop-capture-source=Entire). Never
// --use-fake-ui-for-media-stream: with it every getDisplayMedia failed here
// (NOTES.md).
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { chromium, type Browser, type Page } from 'playwright-core';
import { baseFlags, chromiumPath, launchChromium, openWatchedPage, publicDir, startTestGateway, waitFor, type TestGateway, type WatchedPage } from '@lanterna/testkit';
import { waitForWords } from './pageText.js';
import { outcome } from './presenterPage.js';

export const shareDisplayName = 'Scene room';

export interface ShareRig {
  readonly gateway: TestGateway;
  readonly displayId: string;
  /** The display's name, as the presenter page's words say it. */
  readonly displayName: string;
  readonly displayBrowser: Browser;
  /** The display page, width×height, on its idle screen until a presenter shares. */
  readonly display: WatchedPage;
  close(): Promise<void>;
}

export interface ShareRigOptions {
  readonly width: number;
  readonly height: number;
  readonly displayId?: string;
  readonly displayName?: string;
  /** The display page's query, without `?` (e.g. `audiotap=4`). */
  readonly displayQuery?: string;
  /** The gateway's relay settings (e.g. presenterBytesPerSecond). */
  readonly relay?: Record<string, unknown>;
}

/** The gateway and the display page (headless Chromium, SwiftShader WebGL2) at width×height, on its idle screen. */
export async function startShareRig(options: ShareRigOptions): Promise<ShareRig> {
  const displayId = options.displayId ?? 'room-scenes';
  const displayName = options.displayName ?? shareDisplayName;
  const token = randomBytes(18).toString('base64url');
  const gateway = await startTestGateway({ webRoot: publicDir, displays: [{ id: displayId, name: displayName, token }], ...(options.relay ? { relay: options.relay } : {}) });
  let displayBrowser: Browser | undefined;
  try {
    displayBrowser = await launchChromium();
    const display = await openWatchedPage(displayBrowser, { width: options.width, height: options.height });
    await display.page.addInitScript(() => {
      const seen = { renders: [] as number[] };
      (window as unknown as { lanternaSeen: typeof seen }).lanternaSeen = seen;
      window.addEventListener('lanterna:render', () => seen.renders.push(Date.now()));
    });
    await display.page.goto(`${gateway.httpUrl}/display/${displayId}${options.displayQuery ? `?${options.displayQuery}` : ''}#token=${token}`);
    await waitForWords(display.page, /Ready — waiting for a presenter/, 20_000);
    const browser = displayBrowser;
    return {
      gateway, displayId, displayName, displayBrowser: browser, display,
      async close() {
        try {
          await browser.close();
        } finally {
          await gateway.close();
        }
      },
    };
  } catch (error) {
    await displayBrowser?.close();
    await gateway.close();
    throw error;
  }
}

/** Chromium's background throttling would slow a presenter page whose window is minimised or covered. */
const NO_BACKGROUND_THROTTLING = ['--disable-background-timer-throttling', '--disable-renderer-backgrounding', '--disable-backgrounding-occluded-windows'];

/** A headless presenter Chromium whose picker picks the tab titled `title`. */
export function launchTabPresenter(title: string): Promise<Browser> {
  return launchChromium([`--auto-select-tab-capture-source-by-title=${title}`, ...NO_BACKGROUND_THROTTLING]);
}

/**
 * A headful presenter Chromium on the X display `env.DISPLAY` whose picker
 * picks the entire screen (headless Chromium cannot capture a screen).
 */
export function launchScreenPresenter(env: Readonly<Record<string, string>>, windowAt: { x: number; y: number } = { x: 0, y: 0 }): Promise<Browser> {
  return chromium.launch({
    executablePath: chromiumPath,
    headless: false,
    args: [...baseFlags, '--auto-select-desktop-capture-source=Entire', ...NO_BACKGROUND_THROTTLING, '--window-size=800,600', `--window-position=${windowAt.x},${windowAt.y}`],
    env: { ...process.env, ...env },
    timeout: 30_000,
  });
}

/** Minimises the page's browser window (CDP), so that a shared screen shows what lies under it. */
export async function minimiseWindow(page: Page): Promise<void> {
  const cdp = await page.context().newCDPSession(page);
  const { windowId } = await cdp.send('Browser.getWindowForTarget') as { windowId: number };
  await cdp.send('Browser.setWindowBounds', { windowId, bounds: { windowState: 'minimized' } });
  await cdp.detach();
}

export interface ShareReport { type: string; at: number; [key: string]: unknown }

/** A presenter page on /present with the rig's display chosen, keeping the page's `lanterna:share` reports. */
export async function openPresenterPage(browser: Browser, rig: ShareRig, viewport: { width: number; height: number }): Promise<WatchedPage> {
  const presenter = await openWatchedPage(browser, viewport);
  await presenter.page.addInitScript(() => {
    const shared: { reports: unknown[] } = { reports: [] };
    (window as unknown as { lanternaShared: typeof shared }).lanternaShared = shared;
    window.addEventListener('lanterna:share', (event) => shared.reports.push({ ...(event as CustomEvent<object>).detail, at: Date.now() }));
  });
  // generous: at load averages past 20 on the 2 cores a page load alone took over 10 s
  presenter.page.setDefaultTimeout(30_000);
  await presenter.page.goto(`${rig.gateway.httpUrl}/present?display=${rig.displayId}`);
  await waitFor('the display in the list', async () => (await presenter.page.locator('.display[aria-pressed="true"]').count()) === 1, 30_000);
  return presenter;
}

/** What the presenter's page reported about the share. */
export async function shareReports(presenter: Page): Promise<ShareReport[]> {
  return presenter.evaluate(() => (window as unknown as { lanternaShared: { reports: ShareReport[] } }).lanternaShared.reports);
}

/** How many pictures the display page has drawn so far. */
export async function displayRenders(display: Page): Promise<number> {
  return display.evaluate(() => (window as unknown as { lanternaSeen: { renders: number[] } }).lanternaSeen.renders.length);
}

/** Types the display's PIN, presses Share, and resolves once the display drew a picture and the page says it is showing. */
export async function pressShare(presenter: Page, rig: ShareRig, firstPictureWithinMs = 30_000): Promise<{ sessionId: string; firstPictureMs: number; sharedAt: number; answeredAt: number }> {
  const pin = await rig.gateway.roomPin(rig.displayId);
  assert.ok(pin, 'the display has a PIN');
  await presenter.fill('#pin', pin);
  // a person takes a few seconds to type the PIN, and the page loads its RDP server meanwhile
  await new Promise((resolve) => setTimeout(resolve, 2000));
  const rendersBefore = await displayRenders(rig.display.page);
  const sharedAt = Date.now();
  const [response] = await Promise.all([
    presenter.waitForResponse((candidate) => candidate.url().endsWith(`/v1/displays/${rig.displayId}/projection`) && candidate.request().method() === 'POST'),
    presenter.click('#share'),
  ]);
  const answeredAt = Date.now();
  assert.equal(response.status(), 202, await response.text());
  const { sessionId } = await response.json() as { sessionId: string };
  const firstRender = await rig.display.page.waitForFunction(
    (before) => (window as unknown as { lanternaSeen: { renders: number[] } }).lanternaSeen.renders[before] ?? false,
    rendersBefore, { timeout: firstPictureWithinMs, polling: 20 },
  );
  const firstPictureMs = (await firstRender.jsonValue() as number) - sharedAt;
  // the display already drew the share: the page's own line follows its worker's `active`, which a
  // loaded machine delays (still "Waiting for … to connect" 10 s after the display's first picture, once)
  await outcome(presenter, new RegExp(`${rig.displayName} is showing your screen`), 30_000);
  return { sessionId, firstPictureMs, sharedAt, answeredAt };
}

/**
 * Resolves once the display has drawn nothing new for `quietMs` (a still
 * source has arrived whole), or throws after `deadlineMs`. 3 s: the page's
 * last refinements of a still picture wait for the display's acknowledgement
 * of the one before, and one that never comes frees its place only after 2 s
 * (pictureSender.ts ACK_TIMEOUT_MS). With 1.5 s of quiet a clean-clone run
 * once judged the terminal at 32.9 dB (47–58 in other runs), most likely
 * before its refinements had come; not reproduced since.
 */
export async function displaySettled(display: Page, quietMs = 3000, deadlineMs = 30_000): Promise<void> {
  await waitFor(`the display still for ${quietMs} ms`, async () => {
    const last = await display.evaluate(() => (window as unknown as { lanternaSeen: { renders: number[] } }).lanternaSeen.renders.at(-1) ?? 0);
    return Date.now() - last >= quietMs;
  }, deadlineMs, 100);
}

/** The page's Stop; resolves once the display is on its idle screen again. */
export async function stopSharing(presenter: Page, rig: ShareRig): Promise<void> {
  await presenter.evaluate(() => document.getElementById('stop')?.click());
  await rig.display.page.waitForFunction(() => document.getElementById('idle')?.hidden === false, undefined, { timeout: 10_000, polling: 50 });
  await outcome(presenter, new RegExp(`Stopped\\. ${rig.displayName} is free again`), 5000);
}
