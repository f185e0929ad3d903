// A room with an xrdp source (issue 29): Display Control per slot with
// several sources. xrdp (xorgxrdp) follows a resize; beside it a FreeRDP
// shadow server (which does not) joins, the layout changes, and it leaves.
// At each step the xrdp session asks for its place's pixels over Display
// Control, its X screen takes that size, and its place on the page equals
// that X screen exactly (planar, lossless; outside xrdp's pointer, which
// the X screen does not have: panelSize.test.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { Lab, compareImages, describeDifference, type RgbImage } from '@lanterna/lab';
import { slotPixels } from '@lanterna/protocol';
import { withDeadline } from '@lanterna/testkit';
import { openKiosk } from './kioskBrowser.js';
import { whileAllPaused } from './kioskRig.js';
import { keepImage } from './keepScreenshot.js';
import { pageScreenshot } from './pageScreenshot.js';
import { admin, paint, startRoomGateway } from './roomRig.js';

const displayId = 'room-xrdp';
const PANEL = { width: 1280, height: 720 };

function crop(image: RgbImage, box: { x: number; y: number; width: number; height: number }): RgbImage {
  const data = Buffer.alloc(box.width * box.height * 4);
  for (let row = 0; row < box.height; row++) image.data.copy(data, row * box.width * 4, ((box.y + row) * image.width + box.x) * 4, ((box.y + row) * image.width + box.x + box.width) * 4);
  return { width: box.width, height: box.height, data };
}

/** The X screen with the page's 32×32 pointer box at its top left (xrdp draws a pointer there; its X screen has none). */
function outsidePointer(screen: RgbImage, picture: RgbImage): RgbImage {
  const merged = { width: screen.width, height: screen.height, data: Buffer.from(screen.data) };
  for (let y = 0; y < 32; y++) picture.data.copy(merged.data, y * screen.width * 4, y * picture.width * 4, (y * picture.width + 32) * 4);
  return merged;
}

/** Every `lanterna:resize` the page reported (installed once the page is up). */
async function recordResizes(page: Page): Promise<void> {
  await page.evaluate(() => {
    const seen: unknown[] = [];
    (globalThis as unknown as { resizesSeen: unknown[] }).resizesSeen = seen;
    window.addEventListener('lanterna:resize', (event) => seen.push((event as CustomEvent).detail));
  });
}

/** Until the page has asked `slot`'s server for width×height (after the first `after` asks); what it asked, for the message. */
async function askedFor(page: Page, after: number, want: { width: number; height: number; slot: number }, what: string): Promise<{ width: number; height: number; sent: boolean; slot: number }> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const seen = (await page.evaluate(() => (globalThis as unknown as { resizesSeen: { width: number; height: number; sent: boolean; slot: number }[] }).resizesSeen)).slice(after);
    const match = seen.find((ask) => ask.slot === want.slot && ask.width === want.width && ask.height === want.height);
    if (match) return match;
    if (Date.now() > deadline) assert.fail(`${what}: no ask for ${want.width}×${want.height} in slot ${want.slot} (asked: ${JSON.stringify(seen)})`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

async function resizeCount(page: Page): Promise<number> {
  return page.evaluate(() => (globalThis as unknown as { resizesSeen: unknown[] }).resizesSeen.length);
}

test('xrdp in a room: its session follows its place over Display Control as a second source joins, the layout changes and the other leaves; exact in its place at each size', { timeout: 300_000 }, async (t) => {
  const closers: (() => Promise<unknown>)[] = [];
  t.after(async () => {
    for (const close of closers.reverse()) await close().catch(() => undefined);
  });
  const lab = await Lab.create({ name: 'e2e-room-xrdp' });
  closers.push(() => lab.close());
  const xrdp = await lab.xrdp({ scene: 'reference', width: PANEL.width, height: PANEL.height });
  const screen = await lab.display({ width: 640, height: 720 });
  await paint(screen, '#3c9a4a');
  const shadow = await lab.shadowServer({ display: screen, auth: 'tls', gfx: true, extraArgs: ['-gfx-progressive', '-gfx-rfx'] });
  closers.push(() => shadow.stop());
  const { gateway, token } = await startRoomGateway({ id: displayId, name: 'Project room' });
  closers.push(() => gateway.close());
  const kiosk = await openKiosk(`${gateway.httpUrl}/display/${displayId}?codecs=planar#token=${token}`, PANEL.width, PANEL.height);
  closers.push(() => kiosk.close());
  await kiosk.page.waitForFunction(() => document.getElementById('status')?.dataset.tone === 'ok', undefined, { timeout: 60_000 });
  await recordResizes(kiosk.page);

  /** Until xrdp's place on the page equals its X screen at width×height (the shadow server paused while the page is read). */
  const exactInPlace = async (width: number, height: number, name: string): Promise<void> => {
    const deadline = Date.now() + 90_000;
    for (;;) {
      const room = await admin(gateway, 'GET', `/v1/admin/displays/${displayId}/room`);
      const slot = (room.body.slots as { slot: number; rect: { x: number; y: number; width: number; height: number } }[]).find((entry) => entry.slot === 0);
      const box = slot ? slotPixels({ slot: 0, ...slot.rect }, PANEL) : undefined;
      const session = xrdp.sessionDisplay();
      const truth = session ? await session.screenshot() : null;
      const picture = await whileAllPaused([shadow.child], gateway, async () => {
        await withDeadline(kiosk.page.evaluate(() => { const layer = document.getElementById('slot-labels'); if (layer) layer.style.visibility = 'hidden'; }), 'hiding the labels', 30_000);
        try {
          return await pageScreenshot(kiosk.page);
        } finally {
          await withDeadline(kiosk.page.evaluate(() => { const layer = document.getElementById('slot-labels'); if (layer) layer.style.visibility = ''; }), 'showing the labels', 30_000);
        }
      });
      const verdict = !box || !truth ? `no place or no X screen (${JSON.stringify(box)})`
        : truth.width !== width || truth.height !== height || box.width !== width || box.height !== height ? `X screen ${truth.width}×${truth.height}, place ${box.width}×${box.height}`
        : describeDifference(compareImages(outsidePointer(truth, crop(picture, box)), crop(picture, box)));
      if (verdict.endsWith('images are equal')) return;
      if (Date.now() > deadline) {
        await keepImage(picture, name);
        assert.fail(`xrdp's place at ${width}×${height}: ${verdict}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  };

  // alone: the whole panel at connect
  const projected = await admin(gateway, 'POST', '/v1/admin/sessions', { displayId, target: { host: xrdp.host, port: xrdp.port, name: 'xrdp' }, credentials: { username: xrdp.username, password: xrdp.password } });
  assert.equal(projected.status, 202, JSON.stringify(projected.body));
  await exactInPlace(1280, 720, 'room-xrdp-alone');

  // a second source joins: the two stand side by side, xrdp asks for 640×720 and gets it
  let before = await resizeCount(kiosk.page);
  const second = await admin(gateway, 'POST', '/v1/admin/sessions', { displayId, target: { host: shadow.host, port: shadow.port, name: 'shadow' }, credentials: { username: shadow.username, password: shadow.password } });
  assert.equal(second.status, 202, JSON.stringify(second.body));
  assert.equal((await askedFor(kiosk.page, before, { width: 640, height: 720, slot: 0 }, 'the second source joined')).sent, true, 'asked over Display Control');
  await exactInPlace(640, 720, 'room-xrdp-side-by-side');

  // one large (xrdp): 960×720
  before = await resizeCount(kiosk.page);
  assert.equal((await admin(gateway, 'PATCH', `/v1/admin/displays/${displayId}/room`, { layout: 'one-large', large: 0 })).status, 200);
  assert.equal((await askedFor(kiosk.page, before, { width: 960, height: 720, slot: 0 }, 'the large place')).sent, true, 'asked over Display Control');
  await exactInPlace(960, 720, 'room-xrdp-large');

  // the other leaves: xrdp fills the panel again
  before = await resizeCount(kiosk.page);
  assert.equal((await admin(gateway, 'DELETE', `/v1/admin/sessions/${String(second.body.sessionId)}`)).status, 202);
  assert.equal((await askedFor(kiosk.page, before, { width: 1280, height: 720, slot: 0 }, 'the other left')).sent, true, 'asked over Display Control');
  await exactInPlace(1280, 720, 'room-xrdp-alone-again');
  assert.deepEqual(kiosk.problems, []);
});
