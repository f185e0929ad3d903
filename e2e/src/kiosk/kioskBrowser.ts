// The kiosk page in Debian's Chromium (headless, SwiftShader WebGL2, a fresh
// temporary profile per launch), watched for console errors, uncaught
// exceptions and main-thread long tasks.
import type { Browser, Page } from 'playwright-core';
import { launchChromium, openWatchedPage, type WebGlBackend } from '@lanterna/testkit';

/** The screens the display page's layout is checked on (a 1080p and a 720p panel), largest first. */
export const KIOSK_SCREEN_SIZES = [{ width: 1920, height: 1080 }, { width: 1280, height: 720 }] as const;

export interface KioskBrowser {
  readonly browser: Browser;
  readonly page: Page;
  /** Console errors and uncaught exceptions; a test fails when any appear. */
  readonly problems: string[];
  close(): Promise<void>;
}

/** Opens `url` at exactly `width`×`height` CSS pixels with device pixel ratio 1. */
export async function openKiosk(url: string, width: number, height: number, webgl: WebGlBackend = 'swiftshader'): Promise<KioskBrowser> {
  const browser = await launchChromium([], { webgl });
  try {
    const { page, problems } = await openWatchedPage(browser, { width, height });
    // Long tasks are recorded from the first script on, before the page's own code runs.
    await page.addInitScript(() => {
      const store: number[] = [];
      (globalThis as unknown as { lanternaLongTasks: number[] }).lanternaLongTasks = store;
      new PerformanceObserver((list) => {
        for (const entry of list.getEntries()) store.push(entry.duration);
      }).observe({ type: 'longtask', buffered: true });
    });
    await page.goto(url);
    return { browser, page, problems, close: () => browser.close() };
  } catch (error) {
    await browser.close();
    throw error;
  }
}

/** Durations (ms) of the main-thread long tasks seen so far. */
export async function longTasks(page: Page): Promise<number[]> {
  return page.evaluate(() => [...(globalThis as unknown as { lanternaLongTasks: number[] }).lanternaLongTasks]);
}
