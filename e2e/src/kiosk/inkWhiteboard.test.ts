// The idle screen's ink layer is a whiteboard (issue 30): strokes drawn with
// real touch events on the display page (Chromium, CDP touch), saved as a
// PNG the room fetches with the PIN — a wrong PIN is refused and counted
// under the wrong-PIN limits (locked after five from one address, the right
// PIN too), a wrong display token cannot save, and an administrator's
// `ink.saving: false` hides Save and refuses saves. Real gateway, real page.
// With LANTERNA_E2E_SCREENSHOTS=<dir> it keeps `ink-whiteboard-*` PNGs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { PNG } from 'pngjs';
import { launchChromium, publicDir, startTestGateway, waitFor } from '@lanterna/testkit';
import { keepScreenshot } from './keepScreenshot.js';
import { openTouchPage } from './inkTouch.js';

const displayId = 'ink-e2e';
const SIZE = { width: 1280, height: 720 };

interface Rgba { r: number; g: number; b: number; a: number }

function pixel(png: PNG, x: number, y: number): Rgba {
  const at = (png.width * y + x) * 4;
  return { r: png.data[at] ?? 0, g: png.data[at + 1] ?? 0, b: png.data[at + 2] ?? 0, a: png.data[at + 3] ?? 0 };
}

const isWhite = (p: Rgba): boolean => p.r > 245 && p.g > 245 && p.b > 245;
const isRed = (p: Rgba): boolean => p.r > 200 && p.g < 80 && p.b < 80;
const isBlack = (p: Rgba): boolean => p.r < 40 && p.g < 40 && p.b < 40;

test('idle whiteboard: touch strokes, undo, save; the room fetches the PNG with the PIN; wrong PINs refused and locked; saving can be turned off', { timeout: 180_000 }, async (t) => {
  const token = randomBytes(18).toString('base64url');
  const gateway = await startTestGateway({ webRoot: publicDir, displays: [{ id: displayId, name: 'Ink room', token }] });
  t.after(() => gateway.close());
  const browser = await launchChromium();
  t.after(() => browser.close());
  const kiosk = await openTouchPage(browser, SIZE);
  const { page, touch } = kiosk;
  await page.goto(`${gateway.httpUrl}/display/${displayId}#token=${token}`);
  await waitFor('the idle screen online', async () => ((await page.locator('#status-text').textContent()) ?? '').startsWith('Ready'), 20_000, 100);

  // The pen button: a finger-sized target, opened by a tap.
  const pen = await page.locator('#ink-open').boundingBox();
  assert.ok(pen && pen.width >= 44 && pen.height >= 44, `pen button ${JSON.stringify(pen)}`);
  await touch.tap('#ink-open');
  await waitFor('the whiteboard open', () => page.locator('#ink').isVisible(), 5000, 50);
  assert.equal(await page.locator('#ink').getAttribute('data-surface'), 'whiteboard');
  await waitFor('Save offered (the gateway keeps ink)', () => page.locator('#ink .ink-save').isVisible(), 5000, 50);
  for (const control of await page.locator('#ink .ink-button').all()) {
    if (!(await control.isVisible())) continue;
    const box = await control.boundingBox();
    assert.ok(box && box.width >= 44 && box.height >= 44, `every ink control is at least 44 px: ${JSON.stringify(box)}`);
  }

  // Black pen: a horizontal stroke; red pen: a vertical one, undone; a long press opens no menu.
  await touch.tap('#ink [data-tool="pen-black"]');
  await touch.stroke([{ x: 200, y: 200 }, { x: 600, y: 200 }]);
  await touch.tap('#ink [data-tool="pen-red"]');
  await touch.stroke([{ x: 900, y: 100 }, { x: 900, y: 400 }]);
  await touch.tap('#ink .ink-undo');
  await touch.tap('#ink [data-tool="pen-red"]');
  await touch.stroke([{ x: 300, y: 450 }, { x: 700, y: 450 }]);
  const menus = await page.evaluate(() => {
    const event = new MouseEvent('contextmenu', { bubbles: true, cancelable: true });
    return document.querySelector('.ink-canvas')?.dispatchEvent(event) === false ? 'suppressed' : 'shown';
  });
  assert.equal(menus, 'suppressed', 'a long press (contextmenu) opens no browser menu');
  await keepScreenshot(page, 'ink-whiteboard-drawn');
  const saved = page.evaluate(() => new Promise<number>((resolve) => window.addEventListener('lanterna:ink-saved', (event) => resolve((event as CustomEvent<{ bytes: number }>).detail.bytes), { once: true })));
  await touch.tap('#ink .ink-save');
  await waitFor('the display done saving', async () => /^(?!Saving)./.test((await page.locator('#ink .ink-note').textContent()) ?? ''), 20_000, 50)
    .catch(async (error: unknown) => { throw new Error(`${String(error)}; the note says "${await page.locator('#ink .ink-note').textContent()}"; ${kiosk.problems.join(' | ')}`); });
  assert.match((await page.locator('#ink .ink-note').textContent()) ?? '', /^Saved\./);
  assert.ok((await saved) > 0);
  await waitFor('the display says it saved', async () => ((await page.locator('#ink .ink-note').textContent()) ?? '').startsWith('Saved.'), 5000, 50);
  await keepScreenshot(page, 'ink-whiteboard-saved');

  // The room fetches it with the PIN.
  const url = `${gateway.httpUrl}/v1/displays/${displayId}/whiteboard`;
  const pin = await gateway.roomPin(displayId);
  assert.match(pin ?? '', /^\d{6}$/);
  const noPin = await fetch(url);
  assert.equal(noPin.status, 401);
  const right = await fetch(url, { headers: { 'x-lanterna-pin': pin ?? '' } });
  assert.equal(right.status, 200);
  assert.equal(right.headers.get('content-type'), 'image/png');
  const png = PNG.sync.read(Buffer.from(await right.arrayBuffer()));
  assert.equal(png.width, SIZE.width);
  assert.equal(png.height, SIZE.height);
  for (const x of [250, 400, 550]) assert.ok(isBlack(pixel(png, x, 200)), `black stroke at ${x},200: ${JSON.stringify(pixel(png, x, 200))}`);
  for (const x of [350, 500, 650]) assert.ok(isRed(pixel(png, x, 450)), `red stroke at ${x},450: ${JSON.stringify(pixel(png, x, 450))}`);
  for (const y of [150, 250, 350]) assert.ok(isWhite(pixel(png, 900, y)), `the undone stroke is gone at 900,${y}: ${JSON.stringify(pixel(png, 900, y))}`);
  for (const [x, y] of [[10, 10], [640, 320], [1270, 710], [200, 230]] as const) assert.ok(isWhite(pixel(png, x, y)), `white board at ${x},${y}`);
  // The PIN is not used up by reading the whiteboard.
  assert.equal(await gateway.roomPin(displayId), pin);

  // Wrong PINs: refused, and after five from this address the right one waits too.
  const wrong = String((Number(pin) + 1) % 1_000_000).padStart(6, '0');
  const statuses: number[] = [];
  for (let i = 0; i < 6; i++) statuses.push((await fetch(url, { headers: { 'x-lanterna-pin': wrong } })).status);
  assert.deepEqual(statuses.slice(0, 4), [403, 403, 403, 403]);
  assert.equal(statuses[5], 429, `locked after five wrong PINs: ${statuses.join(',')}`);
  const locked = await fetch(url, { headers: { 'x-lanterna-pin': pin ?? '' } });
  assert.equal(locked.status, 429, 'the right PIN waits out the lock');
  assert.ok(Number(locked.headers.get('retry-after')) > 0);

  // A wrong display token cannot save; a presenter's stop token that is not one cannot read.
  const forged = await fetch(url, { method: 'POST', headers: { authorization: 'Bearer not-the-token', 'content-type': 'image/png' }, body: new Uint8Array(PNG.sync.write(png)) });
  assert.equal(forged.status, 401);
  const stranger = await fetch(`${gateway.httpUrl}/v1/displays/${displayId}/ink`, { headers: { 'x-lanterna-stop-token': 'forged' } });
  assert.equal(stranger.status, 403);
  assert.deepEqual(kiosk.problems, []);

  // The administrator turns saving off: no Save on the page, and a save with the right token is refused.
  const offToken = randomBytes(18).toString('base64url');
  const off = await startTestGateway({ webRoot: publicDir, ink: { saving: false }, displays: [{ id: displayId, name: 'Ink room', token: offToken }] });
  t.after(() => off.close());
  const second = await openTouchPage(browser, SIZE);
  await second.page.goto(`${off.httpUrl}/display/${displayId}#token=${offToken}`);
  await waitFor('the second display online', async () => ((await second.page.locator('#status-text').textContent()) ?? '').startsWith('Ready'), 20_000, 100);
  await second.touch.tap('#ink-open');
  await waitFor('its whiteboard open', () => second.page.locator('#ink').isVisible(), 5000, 50);
  assert.equal(await second.page.locator('#ink .ink-save').isVisible(), false, 'no Save when the administrator turned saving off');
  const refused = await fetch(`${off.httpUrl}/v1/displays/${displayId}/whiteboard`, {
    method: 'POST', headers: { authorization: `Bearer ${offToken}`, 'content-type': 'image/png' }, body: new Uint8Array(PNG.sync.write(png)),
  });
  assert.equal(refused.status, 403);
  assert.equal(((await refused.json()) as { code: string }).code, 'ink-saving-off');
  assert.deepEqual(second.problems, []);
});
