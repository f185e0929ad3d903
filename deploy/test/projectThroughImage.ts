// The last step of `deploy/build-image.sh --project`: opens the display page
// that the gateway running from the image serves, in Debian's Chromium, and
// waits until it shows the presenter's picture: the presenter's background
// colour at points its terminal window does not cover. Saves the last
// screenshot either way. Exit 0 when the picture arrived, 1 when not.
// Usage: node deploy/test/dist/projectThroughImage.js URL RRGGBB SCREENSHOT.png [TIMEOUT_S]
import { writeFileSync } from 'node:fs';
import { PNG } from 'pngjs';
import { launchChromium, openWatchedPage } from '@lanterna/testkit';

const [url, colour, screenshotPath, timeoutText = '120'] = process.argv.slice(2);
if (url === undefined || colour === undefined || !/^[0-9a-f]{6}$/i.test(colour) || screenshotPath === undefined) {
  process.stderr.write('usage: projectThroughImage.js URL RRGGBB SCREENSHOT.png [TIMEOUT_S]\n');
  process.exit(2);
}
const expected = [0, 2, 4].map((offset) => parseInt(colour.slice(offset, offset + 2), 16));
const deadline = Date.now() + Number(timeoutText) * 1000;
const TOLERANCE = 6; // RemoteFX is lossy on flat areas only by a step or two
// fractions of the page: right, below, bottom-left and top-right of the presenter's terminal
// window, clear of the room PIN the signage display keeps in its bottom-right corner
const SAMPLES = [[0.95, 0.5], [0.5, 0.95], [0.02, 0.95], [0.98, 0.05]] as const;

const browser = await launchChromium(['--ignore-certificate-errors']);
let result: { projected: boolean; seconds: number; samples: number[][]; problems: string[] } | undefined;
try {
  const { page, problems } = await openWatchedPage(browser, { width: 1280, height: 720 });
  const started = Date.now();
  await page.goto(url);
  let png: Buffer = Buffer.alloc(0);
  let samples: number[][] = [];
  let projected = false;
  // the page connects, is told to project, runs the wasm client and draws: poll what it shows
  while (!projected && Date.now() < deadline) {
    png = await page.screenshot({ type: 'png', timeout: 30_000 });
    const image = PNG.sync.read(png);
    samples = SAMPLES.map(([x, y]) => {
      const offset = (Math.floor(y * (image.height - 1)) * image.width + Math.floor(x * (image.width - 1))) * 4;
      return [image.data[offset] ?? 0, image.data[offset + 1] ?? 0, image.data[offset + 2] ?? 0];
    });
    projected = samples.every((rgb) => rgb.every((value, channel) => Math.abs(value - (expected[channel] ?? 0)) <= TOLERANCE));
    if (!projected) await page.waitForTimeout(1000);
  }
  writeFileSync(screenshotPath, png);
  result = { projected, seconds: Math.round((Date.now() - started) / 100) / 10, samples, problems };
} finally {
  await browser.close();
}
process.stdout.write(`${JSON.stringify(result)}\n`);
process.exit(result.projected ? 0 : 1);
