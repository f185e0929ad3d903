// What the kiosk page shows, as an RgbImage: a screenshot of the composited
// page (the picture canvas lives in a worker, so the page cannot read it back
// itself). PNG is lossless, so at 1:1 this is the canvas's pixels exactly.
import type { Page } from 'playwright-core';
import { PNG } from 'pngjs';
import type { RgbImage } from '@lanterna/lab';

/** A 1920×1080 capture while SwiftShader draws a busy stream can take seconds on 2 cores. */
const SCREENSHOT_TIMEOUT_MS = 30_000;

export async function pageScreenshot(page: Page): Promise<RgbImage> {
  const png = PNG.sync.read(await page.screenshot({ type: 'png', animations: 'allow', caret: 'initial', timeout: SCREENSHOT_TIMEOUT_MS }));
  const data = png.data;
  for (let i = 3; i < data.length; i += 4) data[i] = 255;
  return { width: png.width, height: png.height, data };
}
