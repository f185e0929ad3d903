// Debian's Chromium driven by playwright-core, with the flags measured to
// work here (NOTES.md): WebGL2 through ANGLE/SwiftShader, no background traffic.
import { chromium, type Browser, type Page } from 'playwright-core';
import { quietChromiumFlags } from '@lanterna/kiosk/chromiumFlags';

export const chromiumPath = process.env.LANTERNA_CHROMIUM ?? '/usr/bin/chromium';

const commonFlags = [
  '--no-sandbox',
  ...quietChromiumFlags,
  // as the kiosk launcher starts it (kiosk/src/chromiumFlags.ts): the display page's
  // sound starts without a gesture, so no muted icon lies over the pictures tests read
  // (a later --autoplay-policy in extraFlags wins: e2e/src/kiosk/sound.test.ts)
  '--autoplay-policy=no-user-gesture-required',
];

/**
 * Where WebGL2 runs: 'swiftshader' (ANGLE's CPU rasteriser, the only GL on a
 * machine without a GPU) or 'gpu' (ANGLE's default backend on the machine's
 * GPU, the blocklist ignored so a headless server GPU is used at all).
 */
export type WebGlBackend = 'swiftshader' | 'gpu';

export const webGlFlags: Readonly<Record<WebGlBackend, readonly string[]>> = {
  swiftshader: ['--use-angle=swiftshader', '--enable-unsafe-swiftshader'],
  gpu: ['--ignore-gpu-blocklist', '--enable-gpu-rasterization'],
};

export const baseFlags = [...commonFlags, ...webGlFlags.swiftshader];

/**
 * `audible`: without Playwright's default `--mute-audio`, which mutes every
 * tab, so a captured tab's sound (getDisplayMedia) is silence — measured here:
 * RMS 0 muted, a 1 kHz tone at RMS 0.354 (0.5 / √2) unmuted, no sound server needed.
 */
export async function launchChromium(extraFlags: readonly string[] = [], options: { webgl?: WebGlBackend; audible?: boolean } = {}): Promise<Browser> {
  const args = [...commonFlags, ...webGlFlags[options.webgl ?? 'swiftshader'], ...extraFlags];
  return chromium.launch({ executablePath: chromiumPath, headless: true, args, timeout: 30_000, ...(options.audible === true ? { ignoreDefaultArgs: ['--mute-audio'] } : {}) });
}

export interface WatchedPage {
  readonly page: Page;
  /** Console errors and uncaught exceptions seen so far; a test fails when any appear. */
  readonly problems: string[];
}

/** A new page that records every console error and uncaught exception. */
/** `hasTouch`: the context takes touch input (a touch panel's page). */
export async function openWatchedPage(browser: Browser, viewport = { width: 1280, height: 720 }, options: { hasTouch?: boolean } = {}): Promise<WatchedPage> {
  const context = await browser.newContext({ viewport, ...(options.hasTouch === true ? { hasTouch: true } : {}) });
  const page = await context.newPage();
  page.setDefaultTimeout(10_000);
  const problems: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console error: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`uncaught: ${error.message}`));
  return { page, problems };
}
