// Debian's Chromium driven by playwright-core, with the flags measured to
// work here (NOTES.md): WebGL2 through ANGLE/SwiftShader, no background traffic.
import { chromium, type Browser, type Page } from 'playwright-core';

export const chromiumPath = process.env.LANTERNA_CHROMIUM ?? '/usr/bin/chromium';

export const baseFlags = [
  '--no-sandbox',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
  '--no-default-browser-check',
  '--use-angle=swiftshader',
  '--enable-unsafe-swiftshader',
];

export async function launchChromium(extraFlags: readonly string[] = []): Promise<Browser> {
  return chromium.launch({ executablePath: chromiumPath, headless: true, args: [...baseFlags, ...extraFlags], timeout: 30_000 });
}

export interface WatchedPage {
  readonly page: Page;
  /** Console errors and uncaught exceptions seen so far; a test fails when any appear. */
  readonly problems: string[];
}

/** A new page that records every console error and uncaught exception. */
export async function openWatchedPage(browser: Browser, viewport = { width: 1280, height: 720 }): Promise<WatchedPage> {
  const context = await browser.newContext({ viewport });
  const page = await context.newPage();
  page.setDefaultTimeout(10_000);
  const problems: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console error: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`uncaught: ${error.message}`));
  return { page, problems };
}
