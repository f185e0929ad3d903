// The display page's multi-touch (issue 30, docs/ink-and-touch.md "Multi-touch")
// in Chromium with real touch input (CDP Input.dispatchTouchEvent), against an
// in-test stand-in of the gateway's sockets and a stand-in engine module that
// says its server offers RDPEI (or not) and paints one 640×480 picture: the
// page must send each finger on an allowed source as its own contact (down,
// move, up, at the letterboxed desktop pixel, pressure where the panel gives
// one) where RDPEI is offered, and mouse input where it is not. What the wasm
// client does with the contacts is wasm/test/presenterTouch.test.mjs's.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { GatewayStandIn, openWatchedPage, publicDir, servePagesInChromium, waitFor } from '@lanterna/testkit';

const display = { id: 'room-1', name: 'Room 1', token: 'display-token-1', location: 'Floor 3' };

const pages = servePagesInChromium(publicDir);

/** An engine module (rdpClientEngine.ts's RdpEngineModule) that connects at once, paints a 640×480 picture and says whether RDPEI is offered. */
function stubEngine(offered: boolean): string {
  return `export async function createEngine() {
  return {
    async connect(settings, transport, sink) {
      sink.onEvent({ type: 'connected' });
      // said before the picture: once the page knows the desktop it knows the offer
      sink.onEvent({ type: 'touch-offered', offered: ${String(offered)} });
      const pixels = new Uint8Array(new SharedArrayBuffer(640 * 480 * 4)).fill(200);
      sink.onFrame([{ x: 0, y: 0, width: 640, height: 480 }], pixels, 640, 480, 640 * 4, 'bgra', () => {});
    },
    disconnect() {},
    sendMouse() { return true; },
    sendTouch() { return true; },
  };
}
`;
}

interface Sent { kind?: string; id?: number; x: number; y: number; pressure?: number; flags?: number }

async function openWithEngine(t: { after: (fn: () => Promise<void>) => void }, offered: boolean): Promise<{ page: Page; touch: (type: string, points: { x: number; y: number; id: number; force: number }[]) => Promise<void> }> {
  const standIn = new GatewayStandIn(pages.server.server, { display });
  const { page } = await openWatchedPage(pages.browser, { width: 1280, height: 720 }, { hasTouch: true });
  t.after(async () => {
    await page.context().close();
    standIn.close();
  });
  await page.route('**/engine.json', (route) => route.fulfill({ json: { available: true, module: 'stub-engine.js' } }));
  await page.route('**/stub-engine.js', (route) => route.fulfill({
    body: stubEngine(offered),
    headers: { 'content-type': 'text/javascript', 'cross-origin-resource-policy': 'same-origin' },
  }));
  await page.goto(`${pages.server.origin}/display/${display.id}#token=${display.token}`);
  await waitFor('the page online', () => standIn.onlineControls === 1, 10_000);
  await page.evaluate(() => {
    const w = window as unknown as { sent: { multi: unknown[]; mouse: unknown[] } };
    w.sent = { multi: [], mouse: [] };
    window.addEventListener('lanterna:multitouch-sent', (event) => w.sent.multi.push((event as CustomEvent).detail));
    window.addEventListener('lanterna:touch-sent', (event) => w.sent.mouse.push((event as CustomEvent).detail));
  });
  // one source, its presenter allowing control (the gateway's layout says so), the whole panel
  standIn.sendControl({ type: 'layout', layout: 'full', large: 0, mode: 'open', slots: [{ slot: 0, sessionId: 's-1', label: 'Alice', x: 0, y: 0, width: 1, height: 1, touch: true }] });
  standIn.project({ sessionId: 's-1', sessionToken: 'k-1', target: { name: 'Alice PC', host: '127.0.0.1', port: 3389 } });
  await page.getByText(/Touch controls/).first().waitFor({ state: 'visible', timeout: 10_000 });
  const cdp = await page.context().newCDPSession(page);
  const touch = async (type: string, points: { x: number; y: number; id: number; force: number }[]): Promise<void> => {
    await cdp.send('Input.dispatchTouchEvent', { type: type as 'touchStart', touchPoints: points.map((p) => ({ ...p, radiusX: 4, radiusY: 4 })) });
    await new Promise((resolve) => setTimeout(resolve, 30));
  };
  return { page, touch };
}

async function sent(page: Page): Promise<{ multi: Sent[]; mouse: Sent[] }> {
  return page.evaluate(() => (window as unknown as { sent: { multi: Sent[]; mouse: Sent[] } }).sent);
}

// 640×480 letterboxed on 1280×720: scale 1.5, the picture from x = 160. Desktop (dx, dy) is client (160 + 1.5 dx, 1.5 dy).
const at = (dx: number, dy: number): { x: number; y: number } => ({ x: 160 + 1.5 * dx + 0.5, y: 1.5 * dy + 0.5 });

void test('RDPEI offered: each finger is its own contact — two at once, a move, the ups — at the desktop pixel, with pressure where given; no mouse input', async (t) => {
  const { page, touch } = await openWithEngine(t, true);
  // the source's desktop is known once its picture came; a first finger before then sends nothing
  await waitFor('a first contact sent', async () => {
    await touch('touchStart', [{ ...at(100, 100), id: 0, force: 0.75 }]);
    const { multi } = await sent(page);
    if (multi.length === 0) await touch('touchEnd', []);
    return multi.length > 0;
  }, 10_000);
  await touch('touchStart', [{ ...at(100, 100), id: 0, force: 0.75 }, { ...at(400, 300), id: 1, force: 0.5 }]);
  await touch('touchMove', [{ ...at(120, 110), id: 0, force: 0.25 }, { ...at(400, 300), id: 1, force: 0.5 }]);
  // a point left out of the next event has lifted (CDP compares each event with the last)
  await touch('touchMove', [{ ...at(400, 300), id: 1, force: 0.5 }]);
  await touch('touchEnd', []);
  const { multi, mouse } = await sent(page);
  assert.deepEqual(mouse, [], 'no mouse input while RDPEI is offered');
  const [a, b] = [multi[0]?.id, multi[1]?.id];
  assert.notEqual(a, b, 'two contacts');
  const strip = (s: Sent): Sent => ({ kind: s.kind, id: s.id, x: s.x, y: s.y, ...(s.pressure === undefined ? {} : { pressure: s.pressure }) });
  assert.deepEqual(multi.map(strip), [
    { kind: 'down', id: a, x: 100, y: 100, pressure: 768 },
    // Chromium reports 0.5 for a finger whose panel measures no pressure: none is sent
    { kind: 'down', id: b, x: 400, y: 300 },
    { kind: 'move', id: a, x: 120, y: 110, pressure: 256 },
    { kind: 'up', id: a, x: 120, y: 110 },
    { kind: 'up', id: b, x: 400, y: 300 },
  ]);
});

void test('RDPEI not offered: a tap is mouse input, as before', async (t) => {
  const { page, touch } = await openWithEngine(t, false);
  await waitFor('mouse input sent', async () => {
    await touch('touchStart', [{ ...at(50, 60), id: 0, force: 0.5 }]);
    await touch('touchEnd', []);
    return (await sent(page)).mouse.length > 0;
  }, 10_000);
  await new Promise((resolve) => setTimeout(resolve, 300));
  const { multi, mouse } = await sent(page);
  assert.deepEqual(multi, []);
  assert.ok(mouse.some((s) => s.x === 50 && s.y === 60), JSON.stringify(mouse));
});
