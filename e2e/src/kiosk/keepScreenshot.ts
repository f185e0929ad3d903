// With LANTERNA_E2E_SCREENSHOTS=<dir>, keeps a PNG of the page for people to look at.
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Page } from 'playwright-core';

export async function keepScreenshot(page: Page, name: string): Promise<void> {
  const dir = process.env.LANTERNA_E2E_SCREENSHOTS;
  if (dir === undefined || dir === '') return;
  await mkdir(dir, { recursive: true });
  await page.screenshot({ path: join(dir, `${name}.png`) });
}
