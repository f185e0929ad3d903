// With LANTERNA_E2E_SCREENSHOTS=<dir>, keeps a PNG of the page for people to look at.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { PNG } from 'pngjs';
import type { RgbImage } from '@lanterna/lab';

/** The folder for kept pictures, created; undefined when none was asked for. */
async function keptDir(): Promise<string | undefined> {
  const dir = process.env.LANTERNA_E2E_SCREENSHOTS;
  if (dir === undefined || dir === '') return undefined;
  await mkdir(dir, { recursive: true });
  return dir;
}

/** `fullPage`: the whole scrolling page (the admin page is taller than a screen), else what the viewport shows. */
export async function keepScreenshot(page: Page, name: string, options: { fullPage?: boolean } = {}): Promise<void> {
  const dir = await keptDir();
  if (dir === undefined) return;
  await page.screenshot({ path: join(dir, `${name}.png`), fullPage: options.fullPage ?? false });
}

/** Keeps a picture the test already took (a second capture of a busy page can be slow). */
export async function keepImage(image: RgbImage, name: string): Promise<void> {
  const dir = await keptDir();
  if (dir === undefined) return;
  const png = new PNG({ width: image.width, height: image.height });
  png.data.set(image.data);
  await writeFile(join(dir, `${name}.png`), PNG.sync.write(png));
}
