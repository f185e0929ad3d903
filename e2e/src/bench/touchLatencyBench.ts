// Benchmark (not a test): how long a touch on the display page takes to move
// the presenter's pointer (issue 30). A FreeRDP shadow server on an Xvfb
// screen the panel's size, projected through the real gateway (the engine
// LANTERNA_RELAY_ENGINE picks) with touch allowed by the presenter API; the
// display page in Chromium gets CDP touch taps at random points, and the X
// pointer is read with xdotool until it is at the tapped pixel. Printed:
// tap → pointer moved, median / p95 / max over the taps, and what one
// xdotool read costs (the resolution of the measurement: a read is a process).
// The changed picture coming back: xeyes on the presenter's screen looks at
// the pointer, so each tap changes its pixels; the page times its own touch
// (pointerdown) to the first picture it decodes after it (the screen is
// otherwise still, and planar pictures are never refined), on its own clock.
//
//   node e2e/dist/bench/touchLatencyBench.js [--taps 30] [--panel 1280x720]
//
// after `bash wasm/build.sh && npm run build -w web && npx tsc -b e2e`.
import { execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { loadavg } from 'node:os';
import { promisify } from 'node:util';
import { Lab } from '@lanterna/lab';
import { launchChromium, publicDir, startTestGateway, waitFor } from '@lanterna/testkit';
import { PRESENTER_REQUEST_HEADER, PRESENTER_STOP_TOKEN_HEADER } from '@lanterna/protocol';
import { openTouchPage } from '../kiosk/inkTouch.js';
import { medianP95, quantile } from './benchFigures.js';
import { benchFlags } from './benchFlags.js';

const run = promisify(execFile);
const values = benchFlags({ taps: '30', panel: '1280x720' });
const taps = Number(values.taps);
const [width = 1280, height = 720] = values.panel.split('x').map(Number);

const lab = await Lab.create({ name: 'bench-touch-latency' });
let eyes: ReturnType<typeof spawn> | undefined;
try {
  const screen = await lab.display({ width, height });
  await screen.showScene('slide');
  const shadow = await lab.shadowServer({ display: screen, auth: 'tls' });
  const env = { ...process.env, ...screen.env };
  // eyes that follow the pointer: every move changes the picture
  eyes = spawn('xeyes', ['-geometry', '300x200+0+0'], { env, stdio: 'ignore' });
  const pointer = async (): Promise<{ x: number; y: number }> => {
    const { stdout } = await run('xdotool', ['getmouselocation', '--shell'], { env, timeout: 10_000 });
    return { x: Number(/^X=(\d+)/m.exec(stdout)?.[1]), y: Number(/^Y=(\d+)/m.exec(stdout)?.[1]) };
  };
  const token = randomBytes(18).toString('base64url');
  const gateway = await startTestGateway({ webRoot: publicDir, displays: [{ id: 'bench', name: 'Bench', token }] });
  const browser = await launchChromium();
  try {
    const { page } = await openTouchPage(browser, { width, height });
    await page.goto(`${gateway.httpUrl}/display/bench?codecs=planar#token=${token}`);
    await waitFor('the display online', async () => ((await page.locator('#status-text').textContent()) ?? '').startsWith('Ready'), 30_000, 100);
    await page.evaluate(() => {
      const seen = window as unknown as { decoded: boolean; touchedAt?: number | undefined; pictureBack: number[] };
      seen.decoded = false;
      seen.pictureBack = [];
      window.addEventListener('pointerdown', () => { seen.touchedAt = performance.now(); }, { capture: true });
      window.addEventListener('lanterna:decode', () => {
        seen.decoded = true;
        if (seen.touchedAt === undefined) return;
        seen.pictureBack.push(performance.now() - seen.touchedAt);
        seen.touchedAt = undefined;
      });
    });
    const headers = { [PRESENTER_REQUEST_HEADER]: '1', 'content-type': 'application/json' };
    const started = await (await fetch(`${gateway.httpUrl}/v1/displays/bench/projection`, {
      method: 'POST', headers,
      body: JSON.stringify({ pin: await gateway.roomPin('bench'), target: { host: shadow.host, port: shadow.port }, credentials: { username: shadow.username, password: shadow.password } }),
    })).json() as { stopToken: string };
    await waitFor('the picture decoded', () => page.evaluate(() => (window as unknown as { decoded: boolean }).decoded), 120_000, 200);
    await fetch(`${gateway.httpUrl}/v1/displays/bench/projection`, { method: 'PATCH', headers: { ...headers, [PRESENTER_STOP_TOKEN_HEADER]: started.stopToken }, body: JSON.stringify({ touch: true }) });
    await waitFor('the touch mark', async () => (await page.locator('.touch-mark').count()) === 1, 30_000, 100);
    const cdp = await page.context().newCDPSession(page);
    const reads: number[] = [];
    const latencies: number[] = [];
    for (let i = 0; i < taps; i++) {
      // whole CSS pixels away from the edges; panel = desktop, so the pixel is the point
      const at = { x: 20 + Math.floor(Math.random() * (width - 40)), y: 20 + Math.floor(Math.random() * (height - 40)) };
      const begun = performance.now();
      await cdp.send('Input.dispatchTouchEvent', { type: 'touchStart', touchPoints: [{ x: at.x + 0.5, y: at.y + 0.5, id: 0, radiusX: 1, radiusY: 1 }] });
      for (;;) {
        const read = performance.now();
        const now = await pointer();
        reads.push(performance.now() - read);
        if (now.x === at.x && now.y === at.y) break;
        if (performance.now() - begun > 10_000) throw new Error(`tap ${i}: the pointer stayed at ${JSON.stringify(now)}, not ${JSON.stringify(at)}`);
      }
      latencies.push(performance.now() - begun);
      await cdp.send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [] });
      // the eyes' last pictures of this tap in before the next one
      await new Promise((resolve) => setTimeout(resolve, 700));
    }
    const pictureBack = await page.evaluate(() => (window as unknown as { pictureBack: number[] }).pictureBack);
    console.log(`touch → the server's pointer at the tapped pixel, ${taps} taps on ${width}×${height} (${process.env.LANTERNA_TEST_RELAY_ENGINE ?? 'default'} relay engine), load ${loadavg().map((l) => l.toFixed(1)).join(' ')}:`);
    console.log(`  median / p95 ms: ${medianP95(latencies)}, max ${quantile(latencies, 1).toFixed(1)}`);
    console.log(`  one xdotool read (the resolution): median / p95 ms ${medianP95(reads)}`);
    console.log(`touch → the changed picture decoded on the display (${pictureBack.length} of ${taps} taps brought one back within the next tap):`);
    console.log(`  median / p95 ms: ${pictureBack.length > 0 ? medianP95(pictureBack) : 'none'}${pictureBack.length > 0 ? `, max ${quantile(pictureBack, 1).toFixed(1)}` : ''}`);
  } finally {
    await browser.close();
    await gateway.close();
  }
} finally {
  eyes?.kill();
  await lab.close();
}
