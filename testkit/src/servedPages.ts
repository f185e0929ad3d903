// The set-up a file of page tests shares: the built pages on a static server
// and one Chromium, started before the file's tests and closed after them
// (node:test's before and after, registered on the calling file). Each test
// opens its own browser context (openWatchedPage) and closes it itself.
import { after, before } from 'node:test';
import type { Browser } from 'playwright-core';
import { launchChromium } from './chromium.js';
import { startStaticServer, type StaticServer } from './staticServer.js';

export interface ServedPages {
  /** The static server: its origin, and its http.Server for a stand-in's upgrades. */
  readonly server: StaticServer;
  readonly browser: Browser;
}

/** Call at a test file's top level; the fields are there inside its tests and hooks. */
export function servePagesInChromium(publicDir: string, labDir?: string): ServedPages {
  let server: StaticServer | undefined;
  let browser: Browser | undefined;
  before(async () => {
    server = await startStaticServer(publicDir, labDir);
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await server?.close();
  });
  const started = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new Error(`served pages: the ${what} is there only inside the file's tests and hooks`);
    return value;
  };
  return {
    get server() { return started(server, 'static server'); },
    get browser() { return started(browser, 'browser'); },
  };
}
