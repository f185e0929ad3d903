// One Chromium for the kiosk: Debian's binary driven by puppeteer-core over
// a pipe (no DevTools port that another local user could reach), a fresh
// profile each launch (no crash-restore prompt, no stale state), full screen
// with no browser UI.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { chromiumFlags } from './chromiumFlags.js';
import { killFamily } from './processFamily.js';

export interface KioskChromiumOptions {
  readonly chromium: string;
  /** The window's first page. */
  readonly appUrl: string;
  readonly webgl: 'gpu' | 'swiftshader';
  readonly spkiPins: readonly string[];
  readonly extraFlags: readonly string[];
  readonly env: NodeJS.ProcessEnv;
  readonly launchTimeoutMs: number;
  /** Upper bound for any DevTools call (puppeteer's protocolTimeout). */
  readonly protocolTimeoutMs: number;
}

export interface KioskChromium {
  readonly browser: Browser;
  /** The kiosk window's page. */
  readonly page: Page;
  readonly pid: number;
  /** Closes the browser (gracefully first when asked), kills every process it left, deletes the profile. */
  close(graceful: boolean): Promise<void>;
}

const GRACEFUL_CLOSE_MS = 5000;

export async function launchKioskChromium(options: KioskChromiumOptions): Promise<KioskChromium> {
  const profile = mkdtempSync(join(tmpdir(), 'lanterna-kiosk-profile-'));
  let browser: Browser | undefined;
  try {
    browser = await puppeteer.launch({
      executablePath: options.chromium,
      headless: false,
      pipe: true,
      defaultViewport: null,
      // no "controlled by automated software" bar
      ignoreDefaultArgs: ['--enable-automation'],
      userDataDir: profile,
      args: chromiumFlags({
        appUrl: options.appUrl,
        webgl: options.webgl,
        spkiPins: options.spkiPins,
        runningAsRoot: process.getuid?.() === 0,
        extra: options.extraFlags,
      }),
      env: options.env,
      timeout: options.launchTimeoutMs,
      protocolTimeout: options.protocolTimeoutMs,
      // the launcher owns its signals: it closes the browser itself on SIGTERM
      handleSIGINT: false,
      handleSIGTERM: false,
      handleSIGHUP: false,
    });
    const pid = browser.process()?.pid;
    if (pid === undefined) throw new Error('chromium started without a process id');
    const pages = await browser.pages();
    const page = pages.find((candidate) => candidate.url().startsWith('data:')) ?? pages[0];
    if (page === undefined) throw new Error('chromium opened no window');
    const launched = browser;
    let closing: Promise<void> | undefined;
    return {
      browser: launched,
      page,
      pid,
      close(graceful: boolean): Promise<void> {
        closing ??= (async () => {
          if (graceful && launched.connected) {
            await Promise.race([launched.close().catch(() => undefined), new Promise((resolve) => setTimeout(resolve, GRACEFUL_CLOSE_MS))]);
          }
          await killFamily(pid);
          rmSync(profile, { recursive: true, force: true });
        })();
        return closing;
      },
    };
  } catch (error) {
    const pid = browser?.process()?.pid;
    if (pid !== undefined) await killFamily(pid);
    rmSync(profile, { recursive: true, force: true });
    throw error;
  }
}
