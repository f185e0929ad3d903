// Pixel tests of the renderer in real Chromium (WebGL2 through SwiftShader):
// what the canvas shows is read back and compared exactly with pixels
// computed here in Node from the same pattern.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { firstPixelDifference, labDir, launchChromium, openWatchedPage, publicDir, servePagesInChromium } from '@lanterna/testkit';
import { expectedRgba, fillPattern } from '../../lab/testPattern.js';
import type { PixelFormat } from './frame.js';
import type { RenderStats } from './renderStats.js';

const W = 64;
const H = 48;
const STRIDE = W * 4 + 32; // padded rows exercise UNPACK_ROW_LENGTH
const dirtyRects = [
  { x: 3, y: 5, width: 10, height: 7 },
  { x: 40, y: 0, width: 24, height: 4 },
  { x: 0, y: 40, width: 64, height: 8 },
  { x: 20, y: 20, width: 1, height: 1 },
];

const pages = servePagesInChromium(publicDir, labDir);

async function labPage(t: { after: (fn: () => Promise<void>) => void }, target = pages.browser): Promise<Page> {
  const { page, problems } = await openWatchedPage(target);
  t.after(async () => {
    await page.context().close();
  });
  await page.goto(`${pages.server.origin}/lab/lab.html`);
  await page.waitForSelector('body[data-ready="true"]');
  t.after(() => {
    assert.deepEqual(problems, [], 'no console error or uncaught exception in the page');
    return Promise.resolve();
  });
  return page;
}

interface DirtyRectRun {
  kind: string;
  warning: string | null;
  isolated: boolean;
  shared: boolean;
  full: string;
  dirty: string;
  stats: RenderStats[];
}

function runDirtyRects(page: Page, format: PixelFormat, preferCanvas2D: boolean): Promise<DirtyRectRun> {
  return page.evaluate(
    ({ W, H, STRIDE, rects, format, preferCanvas2D }) => {
      const lab = window.lanternaLab;
      if (!lab) throw new Error('lab api missing');
      const pixels = new Uint8Array(new SharedArrayBuffer(STRIDE * H));
      lab.fillPattern(pixels, W, H, STRIDE, 1);
      const canvas = lab.makeCanvas(W, H);
      const renderer = lab.createRenderer(canvas, { preferCanvas2D });
      const stats: RenderStats[] = [];
      renderer.onstatistics = (s) => stats.push(s);
      renderer.setCanvasSize(W, H);
      renderer.setDesktopSize(W, H);
      renderer.update({ pixels, stride: STRIDE, format, rects: [{ x: 0, y: 0, width: W, height: H }] });
      renderer.present();
      const full = lab.toBase64(lab.readCanvasRgba(canvas));
      // New content everywhere, but only the dirty rectangles may reach the screen.
      lab.fillPattern(pixels, W, H, STRIDE, 2);
      renderer.update({ pixels, stride: STRIDE, format, rects });
      renderer.present();
      const dirty = lab.toBase64(lab.readCanvasRgba(canvas));
      lab.showRendererWarning(document.body, renderer.warning);
      return { kind: renderer.kind, warning: renderer.warning, isolated: crossOriginIsolated, shared: pixels.buffer instanceof SharedArrayBuffer, full, dirty, stats };
    },
    { W, H, STRIDE, rects: dirtyRects, format, preferCanvas2D },
  );
}

function expectedFrames(format: PixelFormat): { full: Uint8Array; dirty: Uint8Array } {
  const first = new Uint8Array(STRIDE * H);
  fillPattern(first, W, H, STRIDE, 1);
  const second = new Uint8Array(STRIDE * H);
  fillPattern(second, W, H, STRIDE, 2);
  const full = expectedRgba(first, W, H, STRIDE, format);
  const next = expectedRgba(second, W, H, STRIDE, format);
  const dirty = full.slice();
  for (const r of dirtyRects) {
    for (let y = r.y; y < r.y + r.height; y++) {
      const at = (y * W + r.x) * 4;
      dirty.set(next.subarray(at, at + r.width * 4), at);
    }
  }
  return { full, dirty };
}

function assertSamePixels(actualBase64: string, expected: Uint8Array, what: string): void {
  const actual = new Uint8Array(Buffer.from(actualBase64, 'base64'));
  const difference = firstPixelDifference(actual, expected, W);
  assert.equal(difference, null, `${what}: ${difference ?? ''}`);
}

const dirtyPixels = dirtyRects.reduce((sum, r) => sum + r.width * r.height, 0);

for (const format of ['rgba', 'bgra'] as const) {
  void test(`webgl2: full frame then only dirty rects from a SharedArrayBuffer, exact at 1:1 (${format})`, async (t) => {
    const page = await labPage(t);
    const run = await runDirtyRects(page, format, false);
    assert.equal(run.isolated, true, 'page is cross-origin isolated');
    assert.equal(run.shared, true);
    assert.equal(run.kind, 'webgl2');
    assert.equal(run.warning, null);
    const expected = expectedFrames(format);
    assertSamePixels(run.full, expected.full, 'full frame');
    assertSamePixels(run.dirty, expected.dirty, 'after dirty rects');
    assert.equal(run.stats.length, 2);
    assert.deepEqual(run.stats.map((s) => [s.rects, s.pixels, s.copies]), [[1, W * H, 0], [dirtyRects.length, dirtyPixels, 0]]);
    assert.equal(await page.locator('.renderer-warning').count(), 0);
  });
}

void test('webgl2: a lost context comes back with the latest frame drawn, without the server repainting', async (t) => {
  const page = await labPage(t);
  const run = await page.evaluate(async ({ W, H, STRIDE, rects }) => {
    const lab = window.lanternaLab;
    if (!lab) throw new Error('lab api missing');
    const pixels = new Uint8Array(new SharedArrayBuffer(STRIDE * H));
    const canvas = lab.makeCanvas(W, H);
    const renderer = lab.createRenderer(canvas, {});
    const changes: string[] = [];
    (renderer as { oncontextchange?: (state: string) => void }).oncontextchange = (state) => changes.push(state);
    renderer.setCanvasSize(W, H);
    renderer.setDesktopSize(W, H);
    lab.fillPattern(pixels, W, H, STRIDE, 1);
    renderer.update({ pixels, stride: STRIDE, format: 'bgra', rects: [{ x: 0, y: 0, width: W, height: H }] });
    renderer.present();
    const loseContext = canvas.getContext('webgl2')?.getExtension('WEBGL_lose_context');
    if (!loseContext) throw new Error('WEBGL_lose_context missing');
    const event = (name: string) => new Promise((resolve, reject) => {
      canvas.addEventListener(name, resolve, { once: true });
      setTimeout(() => reject(new Error(`no ${name} within 10 s`)), 10_000);
    });
    const lost = event('webglcontextlost');
    loseContext.loseContext();
    await lost;
    // Chromium reads the event's defaultPrevented only after every listener ran: restore from a later task.
    await new Promise((resolve) => setTimeout(resolve, 0));
    // The decoder goes on while the context is gone: new pixels everywhere, only some rectangles announced.
    lab.fillPattern(pixels, W, H, STRIDE, 2);
    renderer.update({ pixels, stride: STRIDE, format: 'bgra', rects });
    renderer.present();
    const restored = event('webglcontextrestored');
    loseContext.restoreContext();
    await restored;
    renderer.present();
    return { changes, picture: lab.toBase64(lab.readCanvasRgba(canvas)) };
  }, { W, H, STRIDE, rects: dirtyRects });
  assert.deepEqual(run.changes, ['lost', 'restored']);
  const second = new Uint8Array(STRIDE * H);
  fillPattern(second, W, H, STRIDE, 2);
  // The whole remembered framebuffer is uploaded again, so all of it shows, not just the announced rectangles.
  assertSamePixels(run.picture, expectedRgba(second, W, H, STRIDE, 'bgra'), 'after the context came back');
});

void test('canvas2d fallback: same pixels, copies counted, visible warning', async (t) => {
  const page = await labPage(t);
  for (const format of ['rgba', 'bgra'] as const) {
    const run = await runDirtyRects(page, format, true);
    assert.equal(run.kind, 'canvas2d');
    const expected = expectedFrames(format);
    assertSamePixels(run.full, expected.full, `full frame (${format})`);
    assertSamePixels(run.dirty, expected.dirty, `after dirty rects (${format})`);
    assert.deepEqual(run.stats.map((s) => [s.rects, s.copies, s.copiedBytes]), [[1, 1, W * H * 4], [dirtyRects.length, dirtyRects.length, dirtyPixels * 4]]);
  }
  const banner = page.locator('.renderer-warning');
  assert.equal(await banner.isVisible(), true);
  assert.match((await banner.textContent()) ?? '', /WebGL2 is not available/);
});

void test('a browser without WebGL2 gets the canvas2d renderer', async (t) => {
  const noWebgl2 = await launchChromium(['--disable-webgl2']);
  t.after(() => noWebgl2.close());
  const page = await labPage(t, noWebgl2);
  const run = await runDirtyRects(page, 'bgra', false);
  assert.equal(run.kind, 'canvas2d');
  assertSamePixels(run.dirty, expectedFrames('bgra').dirty, 'after dirty rects');
});

interface Sample { x: number; y: number; rgba: number[] }

void test('letterboxing keeps the aspect ratio, centred, black bars', async (t) => {
  const page = await labPage(t);
  for (const kind of ['webgl2', 'canvas2d'] as const) {
    // Four flat quadrants so that scaled sampling is unambiguous.
    const shots = await page.evaluate(
      ({ W, H, preferCanvas2D }) => {
        const lab = window.lanternaLab;
        if (!lab) throw new Error('lab api missing');
        const pixels = new Uint8Array(W * H * 4);
        const colours = [[255, 0, 0], [0, 255, 0], [0, 0, 255], [255, 255, 0]] as const;
        for (let y = 0; y < H; y++) {
          for (let x = 0; x < W; x++) {
            const c = colours[(y < H / 2 ? 0 : 2) + (x < W / 2 ? 0 : 1)] ?? [0, 0, 0];
            pixels.set([c[0], c[1], c[2], 255], (y * W + x) * 4);
          }
        }
        return [[200, 100], [100, 200]].map(([cw = 0, ch = 0]) => {
          const canvas = lab.makeCanvas(cw, ch);
          const renderer = lab.createRenderer(canvas, { preferCanvas2D });
          renderer.setCanvasSize(cw, ch);
          renderer.setDesktopSize(W, H);
          renderer.update({ pixels, stride: W * 4, format: 'rgba', rects: [{ x: 0, y: 0, width: W, height: H }] });
          renderer.present();
          const rgba = lab.readCanvasRgba(canvas);
          canvas.remove();
          return { width: cw, height: ch, rgba: lab.toBase64(rgba) };
        });
      },
      { W, H, preferCanvas2D: kind === 'canvas2d' },
    );
    for (const shot of shots) {
      const rgba = Buffer.from(shot.rgba, 'base64');
      const at = (x: number, y: number): Sample => ({ x, y, rgba: Array.from(rgba.subarray((y * shot.width + x) * 4, (y * shot.width + x) * 4 + 4)) });
      // 64×48 into 200×100: scale 100/48, picture 133×100 at x=33; into 100×200: scale 100/64, picture 100×75 at y=62.
      const box = shot.width === 200 ? { x: 33, y: 0, width: 133, height: 100 } : { x: 0, y: 62, width: 100, height: 75 };
      const black = [0, 0, 0, 255];
      const outside = shot.width === 200
        ? [at(0, 50), at(box.x - 1, 10), at(box.x + box.width, 90), at(199, 50)]
        : [at(50, 0), at(10, box.y - 1), at(90, box.y + box.height), at(50, 199)];
      for (const s of outside) assert.deepEqual(s.rgba, black, `${kind} ${shot.width}×${shot.height}: (${s.x},${s.y}) is a bar`);
      const qx = [box.x + Math.floor(box.width / 4), box.x + Math.floor((box.width * 3) / 4)];
      const qy = [box.y + Math.floor(box.height / 4), box.y + Math.floor((box.height * 3) / 4)];
      const want = [[255, 0, 0, 255], [0, 255, 0, 255], [0, 0, 255, 255], [255, 255, 0, 255]];
      [at(qx[0] ?? 0, qy[0] ?? 0), at(qx[1] ?? 0, qy[0] ?? 0), at(qx[0] ?? 0, qy[1] ?? 0), at(qx[1] ?? 0, qy[1] ?? 0)].forEach((s, i) =>
        assert.deepEqual(s.rgba, want[i], `${kind} ${shot.width}×${shot.height}: quadrant ${i} at (${s.x},${s.y})`),
      );
      // The picture reaches the edges of its box and no further.
      const firstInside = shot.width === 200 ? at(box.x, 10) : at(10, box.y);
      const lastInside = shot.width === 200 ? at(box.x + box.width - 1, 90) : at(90, box.y + box.height - 1);
      assert.notDeepEqual(firstInside.rgba, black, `${kind}: first picture pixel at (${firstInside.x},${firstInside.y})`);
      assert.notDeepEqual(lastInside.rgba, black, `${kind}: last picture pixel at (${lastInside.x},${lastInside.y})`);
    }
  }
});

void test('pointer is drawn with its hotspot on the pointer position, transparent parts show the desktop', async (t) => {
  const page = await labPage(t);
  const hot = { x: 2, y: 3 };
  const at = { x: 20, y: 10 };
  const expectedDesktop = (() => {
    const p = new Uint8Array(W * 4 * H);
    fillPattern(p, W, H, W * 4, 1);
    return expectedRgba(p, W, H, W * 4, 'bgra');
  })();
  const expected = expectedDesktop.slice();
  for (let y = 0; y < 8; y++) {
    for (let x = 0; x < 4; x++) expected.set([255, 0, 255, 255], ((at.y - hot.y + y) * W + (at.x - hot.x + x)) * 4);
  }
  for (const kind of ['webgl2', 'canvas2d'] as const) {
    const shot = await page.evaluate(
      ({ W, H, hot, at, preferCanvas2D }) => {
        const lab = window.lanternaLab;
        if (!lab) throw new Error('lab api missing');
        const pixels = new Uint8Array(new SharedArrayBuffer(W * H * 4));
        lab.fillPattern(pixels, W, H, W * 4, 1);
        // 8×8 pointer in BGRA: left half opaque magenta, right half fully transparent.
        const shape = new Uint8Array(8 * 8 * 4);
        for (let i = 0; i < 64; i++) shape.set(i % 8 < 4 ? [255, 0, 255, 255] : [0, 255, 0, 0], i * 4);
        const canvas = lab.makeCanvas(W, H);
        const renderer = lab.createRenderer(canvas, { preferCanvas2D });
        renderer.setCanvasSize(W, H);
        renderer.setDesktopSize(W, H);
        renderer.update({ pixels, stride: W * 4, format: 'bgra', rects: [{ x: 0, y: 0, width: W, height: H }] });
        renderer.setPointer({ pixels: shape, width: 8, height: 8, hotspotX: hot.x, hotspotY: hot.y, format: 'bgra' });
        renderer.movePointer(at.x, at.y);
        renderer.present();
        return lab.toBase64(lab.readCanvasRgba(canvas));
      },
      { W, H, hot, at, preferCanvas2D: kind === 'canvas2d' },
    );
    assertSamePixels(shot, expected, `${kind} pointer`);
  }
});

void test('render worker (OffscreenCanvas): frames and dirty rects reach the screen exactly', async (t) => {
  const page = await labPage(t);
  const expected = expectedFrames('bgra');
  const run = await page.evaluate(
    async ({ W, H, STRIDE, rects, expectedFull, expectedDirty }) => {
      const lab = window.lanternaLab;
      if (!lab) throw new Error('lab api missing');
      const pixels = new Uint8Array(new SharedArrayBuffer(STRIDE * H));
      lab.fillPattern(pixels, W, H, STRIDE, 1);
      const canvas = lab.makeCanvas(W, H);
      const stats: RenderStats[] = [];
      let onStats: () => void = () => undefined;
      let kind = '';
      let started: () => void = () => undefined;
      let failed: (error: Error) => void = () => undefined;
      const ready = new Promise<void>((resolve, reject) => {
        started = resolve;
        failed = reject;
      });
      const worker = new lab.RenderWorkerClient(canvas, '/render.worker.js', {}, {
        onready: (k) => {
          kind = k;
          started();
        },
        onstatistics: (s) => {
          stats.push(s);
          onStats();
        },
        onerror: (message) => failed(new Error(message)),
      });
      await ready;
      // The page shows what the worker committed some frames later: how many
      // depends on the machine's load (two were not always enough while the
      // suite ran), so read each frame until the expected picture is there,
      // for 3 s at most; what is read last is what the test judges.
      const shown = async (expected: string): Promise<string> => {
        await new Promise<void>((resolve) => { onStats = resolve; });
        const deadline = performance.now() + 3000;
        for (;;) {
          await new Promise((resolve) => requestAnimationFrame(resolve));
          const now = lab.toBase64(lab.readCanvasRgba(canvas));
          if (now === expected || performance.now() > deadline) return now;
        }
      };
      worker.setDesktopSize(W, H);
      let next = shown(expectedFull);
      worker.sendFrame({ type: 'frame', id: 1, pixels, stride: STRIDE, format: 'bgra', rects: [{ x: 0, y: 0, width: W, height: H }] });
      const full = await next;
      lab.fillPattern(pixels, W, H, STRIDE, 2);
      next = shown(expectedDirty);
      worker.sendFrame({ type: 'frame', id: 2, pixels, stride: STRIDE, format: 'bgra', rects });
      const dirty = await next;
      worker.terminate();
      return { kind, full, dirty, copies: stats.reduce((sum, s) => sum + s.copies, 0) };
    },
    { W, H, STRIDE, rects: dirtyRects, expectedFull: Buffer.from(expected.full).toString('base64'), expectedDirty: Buffer.from(expected.dirty).toString('base64') },
  );
  assert.equal(run.kind, 'webgl2');
  assertSamePixels(run.full, expected.full, 'full frame through the worker');
  assertSamePixels(run.dirty, expected.dirty, 'dirty rects through the worker');
  assert.equal(run.copies, 0);
});

// A room (issue 29): several renderers share one canvas, each drawing into its
// own viewport; the composition clears once, then each draws inside its part only.
for (const preferCanvas2D of [false, true]) {
  void test(`${preferCanvas2D ? 'canvas2d' : 'webgl2'}: two renderers on one canvas, side by side, each exact in its viewport`, async (t) => {
    const page = await labPage(t);
    const run = await page.evaluate(({ W, H, STRIDE, preferCanvas2D }) => {
      const lab = window.lanternaLab;
      if (!lab) throw new Error('lab api missing');
      const canvas = lab.makeCanvas(W * 2, H);
      const renderers = [1, 2].map((seed, index) => {
        const pixels = new Uint8Array(new SharedArrayBuffer(STRIDE * H));
        lab.fillPattern(pixels, W, H, STRIDE, seed);
        const renderer = lab.createRenderer(canvas, { preferCanvas2D });
        renderer.setCanvasSize(W * 2, H);
        renderer.setDesktopSize(W, H);
        renderer.setViewport({ x: index * W, y: 0, width: W, height: H });
        renderer.update({ pixels, stride: STRIDE, format: 'bgra', rects: [{ x: 0, y: 0, width: W, height: H }] });
        return renderer;
      });
      renderers[0]?.clear();
      for (const renderer of renderers) renderer.present();
      return lab.toBase64(lab.readCanvasRgba(canvas));
    }, { W, H, STRIDE, preferCanvas2D });
    const both = new Uint8Array(Buffer.from(run, 'base64'));
    for (const [index, seed] of [1, 2].entries()) {
      const source = new Uint8Array(STRIDE * H);
      fillPattern(source, W, H, STRIDE, seed);
      const expected = expectedRgba(source, W, H, STRIDE, 'bgra');
      const half = new Uint8Array(W * H * 4);
      for (let y = 0; y < H; y++) half.set(both.subarray((y * W * 2 + index * W) * 4, (y * W * 2 + index * W + W) * 4), y * W * 4);
      assertSamePixels(Buffer.from(half).toString('base64'), expected, `viewport ${index}`);
    }
  });
}

// A room's slot whose source ended (issue 29): the page removes its surface,
// but a frame its session worker had already posted may still be on its way
// through the session's port. It must not make the surface again — unsized
// and unplaced, its update failed ("update before setDesktopSize") and its
// black filled the canvas over the source that remained.
void test('render worker: a frame arriving through a removed surface\'s port is dropped; the remaining surface keeps its picture', async (t) => {
  const page = await labPage(t);
  const run = await page.evaluate(async ({ W, H, STRIDE }) => {
    const lab = window.lanternaLab;
    if (!lab) throw new Error('lab api missing');
    const canvas = lab.makeCanvas(W * 2, H);
    const errors: string[] = [];
    let started: () => void = () => undefined;
    const ready = new Promise<void>((resolve) => { started = resolve; });
    const worker = new lab.RenderWorkerClient(canvas, '/render.worker.js', {}, { onready: () => started(), onerror: (message) => errors.push(message) });
    await ready;
    const frameOf = (seed: number, id: number): { type: 'frame'; id: number; pixels: Uint8Array; stride: number; format: 'bgra'; rects: { x: number; y: number; width: number; height: number }[] } => {
      const pixels = new Uint8Array(new SharedArrayBuffer(STRIDE * H));
      lab.fillPattern(pixels, W, H, STRIDE, seed);
      return { type: 'frame', id, pixels, stride: STRIDE, format: 'bgra', rects: [{ x: 0, y: 0, width: W, height: H }] };
    };
    const ports = [0, 1].map((surface) => {
      const channel = new MessageChannel();
      worker.setSurfaceRect(surface, { x: surface * 0.5, y: 0, width: 0.5, height: 1 }, 0);
      worker.attachPort(channel.port1, surface);
      channel.port2.postMessage({ type: 'desktop-size', width: W, height: H });
      channel.port2.postMessage(frameOf(surface + 1, 1));
      return channel.port2;
    });
    const settle = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
    await settle(300);
    worker.removeSurface(1);
    await settle(300);
    // the removed source's last frame, still on its way
    ports[1]?.postMessage(frameOf(3, 2));
    await settle(500);
    await new Promise((resolve) => requestAnimationFrame(resolve));
    const shown = lab.readCanvasRgba(canvas);
    const left = new Uint8Array(W * H * 4);
    for (let y = 0; y < H; y++) left.set(shown.subarray(y * W * 2 * 4, (y * W * 2 + W) * 4), y * W * 4);
    worker.terminate();
    return { errors, left: lab.toBase64(left) };
  }, { W, H, STRIDE });
  assert.deepEqual(run.errors, [], 'the late frame is not drawn onto a surface made anew');
  const source = new Uint8Array(STRIDE * H);
  fillPattern(source, W, H, STRIDE, 1);
  assertSamePixels(run.left, expectedRgba(source, W, H, STRIDE, 'bgra'), 'the remaining surface');
});
