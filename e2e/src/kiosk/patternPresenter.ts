// A presenter page on /present beside a tab of big coloured blocks that its
// Chromium's picker shares (--auto-select-tab-capture-source-by-title), for
// the room tests (issue 29): each presenter's picture is its own pattern, so
// the display's slot says whose it shows. The page's getDisplayMedia is
// wrapped to count how often the browser's picker was asked, and to keep the
// streams (a refused or declined share must give its capture back).
import type { Browser, Page } from 'playwright-core';
import type { RgbImage } from '@lanterna/lab';
import { launchChromium, openWatchedPage, waitFor, type WatchedPage } from '@lanterna/testkit';

export type Rgb = readonly [number, number, number];

/** 4×2 saturated blocks, and the same inverted: two presenters' pictures told apart at a glance. */
export const PATTERN_A: readonly Rgb[] = [[255, 0, 0], [0, 255, 0], [0, 0, 255], [255, 255, 255], [0, 0, 0], [255, 255, 0], [0, 255, 255], [255, 0, 255]];
export const PATTERN_B: readonly Rgb[] = PATTERN_A.map(([r, g, b]) => [255 - r, 255 - g, 255 - b] as const);

function patternHtml(title: string, blocks: readonly Rgb[]): string {
  return `<!doctype html><html><head><title>${title}</title><style>
html, body { margin: 0; overflow: hidden; background: #000; }
.block { position: absolute; width: 25vw; height: 50vh; }
</style></head><body>
${blocks.map(([r, g, b], i) => `<div class="block" style="left:${(i % 4) * 25}vw;top:${Math.floor(i / 4) * 50}vh;background:rgb(${r},${g},${b})"></div>`).join('\n')}
</body></html>`;
}

/** A headless presenter Chromium whose picker shares the tab titled `title`. */
export function launchPatternPresenter(title: string): Promise<Browser> {
  return launchChromium([`--auto-select-tab-capture-source-by-title=${title}`, '--disable-background-timer-throttling', '--disable-renderer-backgrounding', '--disable-backgrounding-occluded-windows']);
}

export interface PatternPresenter extends WatchedPage {
  readonly pattern: Page;
}

/** The presenter page with `displayId` chosen, and beside it (same profile: the picker lists its tabs) the pattern titled `title`. */
export async function openPatternPresenter(browser: Browser, gatewayUrl: string, displayId: string, title: string, blocks: readonly Rgb[], viewport: { width: number; height: number }): Promise<PatternPresenter> {
  const presenter = await openWatchedPage(browser, viewport);
  presenter.page.setDefaultTimeout(30_000);
  const pattern = await presenter.page.context().newPage();
  await pattern.setContent(patternHtml(title, blocks));
  await presenter.page.addInitScript(() => {
    const shared: { streams: MediaStream[]; reports: unknown[] } = { streams: [], reports: [] };
    (window as unknown as { lanternaShared: typeof shared }).lanternaShared = shared;
    const original = navigator.mediaDevices.getDisplayMedia.bind(navigator.mediaDevices);
    navigator.mediaDevices.getDisplayMedia = async (options) => {
      const stream = await original(options);
      shared.streams.push(stream);
      return stream;
    };
    window.addEventListener('lanterna:share', (event) => shared.reports.push({ ...(event as CustomEvent<object>).detail, at: Date.now() }));
  });
  await presenter.page.goto(`${gatewayUrl}/present?display=${displayId}`);
  await waitFor('the display in the list', async () => (await presenter.page.locator('.display[aria-pressed="true"]').count()) === 1, 30_000);
  return { ...presenter, pattern };
}

/** How many captures the page asked the browser's picker for. */
export function pickerCalls(presenter: Page): Promise<number> {
  return presenter.evaluate(() => (window as unknown as { lanternaShared: { streams: MediaStream[] } }).lanternaShared.streams.length);
}

/** Whether every track of every capture the page got has ended (given back). */
export function capturesEnded(presenter: Page): Promise<boolean> {
  return presenter.evaluate(() => (window as unknown as { lanternaShared: { streams: MediaStream[] } }).lanternaShared.streams
    .every((stream) => stream.getTracks().every((track) => track.readyState === 'ended')));
}

/** The `lanterna:share` reports' types, in order. */
export function shareReportTypes(presenter: Page): Promise<string[]> {
  return presenter.evaluate(() => (window as unknown as { lanternaShared: { reports: { type: string }[] } }).lanternaShared.reports.map((report) => report.type));
}

/**
 * How far the picture in `region` of the display's screenshot is from a
 * pattern, at each block's centre (a 9×9 mean: H.264 and scaling blur only
 * the edges); the worst channel error over the blocks.
 */
export function patternError(shown: RgbImage, region: { x: number; y: number; width: number; height: number }, blocks: readonly Rgb[]): number {
  let worst = 0;
  blocks.forEach(([r, g, b], index) => {
    const cx = Math.round(region.x + ((index % 4) + 0.5) * region.width / 4);
    const cy = Math.round(region.y + (Math.floor(index / 4) + 0.5) * region.height / 2);
    const sums = [0, 0, 0];
    let count = 0;
    for (let y = cy - 4; y <= cy + 4; y++) {
      for (let x = cx - 4; x <= cx + 4; x++) {
        const at = (y * shown.width + x) * 4;
        for (let channel = 0; channel < 3; channel++) sums[channel] = (sums[channel] ?? 0) + (shown.data[at + channel] ?? 0);
        count += 1;
      }
    }
    [r, g, b].forEach((want, channel) => { worst = Math.max(worst, Math.abs((sums[channel] ?? 0) / count - want)); });
  });
  return Math.round(worst);
}

/**
 * Where a pattern's picture lies within `region` of the display: the
 * bounding box of its first block's colour (±40), grown to the whole 4×2
 * pattern. A source is fitted into its place (letterboxed) at whatever
 * size its session has, so the test finds it rather than assume it.
 */
export function findPattern(shown: RgbImage, region: { x: number; y: number; width: number; height: number }, blocks: readonly Rgb[]): { x: number; y: number; width: number; height: number } | undefined {
  const [r, g, b] = blocks[0] ?? [0, 0, 0];
  let minX = Infinity;
  let minY = Infinity;
  let maxX = -1;
  let maxY = -1;
  for (let y = region.y; y < region.y + region.height; y++) {
    for (let x = region.x; x < region.x + region.width; x++) {
      const at = (y * shown.width + x) * 4;
      if (Math.abs((shown.data[at] ?? 0) - r) > 40 || Math.abs((shown.data[at + 1] ?? 0) - g) > 40 || Math.abs((shown.data[at + 2] ?? 0) - b) > 40) continue;
      minX = Math.min(minX, x);
      minY = Math.min(minY, y);
      maxX = Math.max(maxX, x);
      maxY = Math.max(maxY, y);
    }
  }
  if (maxX < 0) return undefined;
  return { x: minX, y: minY, width: (maxX - minX + 1) * 4, height: (maxY - minY + 1) * 2 };
}
