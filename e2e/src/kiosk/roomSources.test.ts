// Several sources on one display (issue 29), end to end: the real gateway,
// the display page in Chromium, and one FreeRDP shadow server per source, each
// on its own X screen with its own picture. Each X screen is exactly its
// slot's size on the 1280×720 page (GFX planar only, lossless), so each
// slot's part of the page must equal its own server's screen pixel for pixel.
// A source that leaves re-lays the room out; one whose server dies ends with
// its error, frees its slot, and the others go on.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { Lab, compareImages, describeDifference, type RgbImage } from '@lanterna/lab';
import { slotPixels } from '@lanterna/protocol';
import { waitFor, withDeadline } from '@lanterna/testkit';
import { whileAllPaused } from './kioskRig.js';
import { keepScreenshot } from './keepScreenshot.js';
import { admin, paint, startRoomRig, ROOM_DISPLAY_ID as DISPLAY_ID, type RoomPicture, type RoomRig, type RoomSource } from './roomRig.js';
import { keepImage } from './keepScreenshot.js';
import { pageScreenshot } from './pageScreenshot.js';
import { sharedRig } from './sharedRig.js';

const PAGE = { width: 1280, height: 720 };

const sharedLab = sharedRig(() => Lab.create({ name: 'e2e-room-sources' }), (rig) => rig.close());

/** Two lab scenes, then solid colours: each source's picture is its own, and exact through the lossless codec. */
const pictures: readonly RoomPicture[] = ['reference', 'slide', { colour: '#3c9a4a' }, { colour: '#8a3cb0' }];

async function startRoom(t: TestContext, count: number): Promise<RoomRig> {
  const room = await startRoomRig(await sharedLab(), { count, panel: PAGE, pictures, query: 'codecs=planar' });
  t.after(() => room.close());
  return room;
}

type Room = RoomRig;
type Source = RoomSource;

interface LayoutSeen { slots: { slot: number; sessionId: string; label: string; x: number; y: number; width: number; height: number }[] }

async function roomLayout(room: Room): Promise<LayoutSeen> {
  const response = await admin(room.gateway, 'GET', `/v1/admin/displays/${DISPLAY_ID}/room`);
  const slots = (response.body.slots as { slot: number; sessionId: string; label: string; rect: { x: number; y: number; width: number; height: number } }[]);
  return { slots: slots.map((slot) => ({ slot: slot.slot, sessionId: slot.sessionId, label: slot.label, ...slot.rect })) };
}

function crop(image: RgbImage, x: number, y: number, width: number, height: number): RgbImage {
  const data = Buffer.alloc(width * height * 4);
  for (let row = 0; row < height; row++) image.data.copy(data, row * width * 4, ((y + row) * image.width + x) * 4, ((y + row) * image.width + x + width) * 4);
  return { width, height, data };
}

/** The shadow servers resend their screens without end: all are paused while the page is captured (kioskRig.ts says why); labels hidden. */
async function capture(room: Room, alive: readonly Source[]): Promise<RgbImage> {
  return whileAllPaused(alive.map((source) => source.server.child), room.gateway, async () => {
    // Playwright's evaluate has no deadline of its own: a page whose main thread is stuck fails here, named.
    await withDeadline(room.page.evaluate(() => { const layer = document.getElementById('slot-labels'); if (layer) layer.style.visibility = 'hidden'; }), 'hiding the labels', 30_000);
    try {
      return await pageScreenshot(room.page);
    } finally {
      await withDeadline(room.page.evaluate(() => { const layer = document.getElementById('slot-labels'); if (layer) layer.style.visibility = ''; }), 'showing the labels', 30_000);
    }
  });
}

/**
 * Until each source's part of the page (its slot, the picture centred in it
 * at 1:1) equals its own server's screen; fails with the differences at the deadline.
 */
async function eachInItsSlot(room: Room, alive: readonly Source[], name: string, deadlineMs = 180_000): Promise<RgbImage> {
  const screens = await Promise.all(alive.map((source) => source.display.screenshot()));
  const end = Date.now() + deadlineMs;
  for (;;) {
    const layout = await roomLayout(room);
    // Under load a capture of the busy page can miss its 30 s: the next round tries again, within the deadline.
    const picture = await capture(room, alive).catch((error: unknown) => {
      if (Date.now() > end) throw error;
      return null;
    });
    if (picture === null) continue;
    const verdicts = alive.map((source, index) => {
      const entry = layout.slots.find((slot) => slot.sessionId === source.sessionId);
      const screen = screens[index];
      if (!entry || !screen) return `${source.name}: not in the layout`;
      const box = slotPixels(entry, PAGE);
      const x = box.x + Math.floor((box.width - screen.width) / 2);
      const y = box.y + Math.floor((box.height - screen.height) / 2);
      return `${source.name} in slot ${entry.slot} at ${box.x},${box.y}: ${describeDifference(compareImages(screen, crop(picture, x, y, screen.width, screen.height)))}`;
    });
    if (verdicts.every((verdict) => verdict.endsWith('images are equal')) || Date.now() > end) {
      await keepImage(picture, name);
      const presents = await room.page.evaluate(() => JSON.stringify((globalThis as unknown as { roomSeen: { presents: unknown } }).roomSeen.presents));
      // what else the page shows over the picture, should something cover it (a CI failure has only these words)
      const overlays = await room.page.evaluate(() => [...document.querySelectorAll('body *')]
        .filter((element) => element.id !== '' && element.id !== 'desktop' && !(element as HTMLElement).hidden && element.getBoundingClientRect().width > 0 && getComputedStyle(element).visibility !== 'hidden' && getComputedStyle(element).position === 'fixed')
        .map((element) => `#${element.id} ${JSON.stringify(element.getBoundingClientRect())}`).join(', '));
      assert.ok(verdicts.every((verdict) => verdict.endsWith('images are equal')), `${verdicts.join('; ')} (presents per slot: ${presents}; shown over the canvas: ${overlays || 'nothing'}; page problems: ${room.kiosk.problems.join(' | ')})`);
      return picture;
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

/** A picture with the labels, for people (LANTERNA_E2E_SCREENSHOTS); a capture that misses its time under load is only a picture lost. */
async function keepLabelled(room: Room, name: string): Promise<void> {
  await whileAllPaused(room.sources.map((source) => source.server.child), room.gateway, () => keepScreenshot(room.page, name)).catch((error: unknown) => {
    console.log(`# ${name} not kept: ${error instanceof Error ? error.message.split('\n')[0] ?? '' : String(error)}`);
  });
}

async function labelsOnPage(page: Page): Promise<string[]> {
  return page.$$eval('#slot-labels .slot-name', (names) => names.map((name) => name.textContent));
}

async function waitForLayoutOf(page: Page, count: number): Promise<void> {
  await page.waitForFunction((n) => document.querySelectorAll('#slot-labels .slot-label').length === n, count, { timeout: 60_000 });
}

test('two sources side by side on one display page: each slot shows its own server exactly, with its label; when one leaves, the other fills the panel', { timeout: 280_000 }, async (t) => {
  const room = await startRoom(t, 2);
  const [a, b] = room.sources;
  assert.ok(a && b);
  await eachInItsSlot(room, room.sources, 'room-2-sources');
  assert.deepEqual((await labelsOnPage(room.page)).sort(), ['Source A', 'Source B']);
  await keepLabelled(room, 'room-2-sources-labelled');
  // Each session asked for its slot (640×720), at connect or over Display Control when the second joined.
  const seen = await room.page.evaluate(() => (globalThis as unknown as { roomSeen: { desktops: { width: number; height: number; slot: number }[]; resizes: { width: number; height: number; slot: number }[] } }).roomSeen);
  for (const slot of [0, 1]) {
    const asks = [...seen.desktops, ...seen.resizes].filter((ask) => ask.slot === slot);
    const last = asks.at(-1);
    assert.deepEqual(last && [last.width, last.height], [640, 720], `slot ${slot} asks for its slot's size (asked: ${JSON.stringify(asks)})`);
  }

  // A leaves: B glides to fill the panel; its 640×720 picture (no Display Control on the shadow server) is centred at 1:1.
  // read from the page's record (roomRig.ts), not a listener added now: an evaluate not yet run when the resize came would miss it
  const resizesSeen = (): Promise<{ width: number; height: number; sent: boolean; slot: number }[]> => room.page.evaluate(() => (globalThis as unknown as { roomSeen: { resizes: { width: number; height: number; sent: boolean; slot: number }[] } }).roomSeen.resizes);
  const before = (await resizesSeen()).length;
  assert.equal((await admin(room.gateway, 'DELETE', `/v1/admin/sessions/${a.sessionId}`)).status, 202);
  let asked: { width: number; height: number; sent: boolean; slot: number } | undefined;
  await waitFor("B's resize after A left", async () => {
    asked = (await resizesSeen()).slice(before).find((ask) => ask.slot === 1);
    return asked !== undefined;
  }, 60_000, 200);
  assert.deepEqual(asked, { width: 1280, height: 720, sent: false, slot: 1 }, 'B asks for the whole panel; the shadow server cannot follow');
  await waitForLayoutOf(room.page, 0);
  await eachInItsSlot(room, [b], 'room-2-sources-one-left');
  assert.deepEqual(room.kiosk.problems, []);
});

test('four sources in a 2×2 grid: each slot its own server; one whose server dies ends with its error, the room re-lays out and the other three go on', { timeout: 280_000 }, async (t) => {
  const room = await startRoom(t, 4);
  const [a, b, c, d] = room.sources;
  assert.ok(a && b && c && d);
  await eachInItsSlot(room, room.sources, 'room-4-sources');
  assert.deepEqual((await labelsOnPage(room.page)).sort(), ['Source A', 'Source B', 'Source C', 'Source D']);
  await keepLabelled(room, 'room-4-sources-labelled');

  // B's server dies: its session ends with an error, its slot is freed, C and D move up (grid of three).
  process.kill(b.server.child.pid, 'SIGKILL');
  await waitForLayoutOf(room.page, 3);
  assert.deepEqual((await labelsOnPage(room.page)).sort(), ['Source A', 'Source C', 'Source D']);
  const layout = await roomLayout(room);
  assert.deepEqual(layout.slots.map((slot) => [slot.slot, slot.x, slot.y]), [[0, 0, 0], [2, 0.5, 0], [3, 0, 0.5]], 'C and D take the places after A');
  const survivors = [a, c, d];
  // The others go on: D's screen changes after B's end, and the page shows the change in D's new place.
  await paint(d.display, '#d0b020');
  await eachInItsSlot(room, survivors, 'room-4-sources-one-failed');
  const sessions = await admin(room.gateway, 'GET', '/v1/admin/sessions');
  const states = new Map((sessions.body.sessions as { sessionId: string; state: string; endReason?: string }[]).map((session) => [session.sessionId, session]));
  assert.equal(states.get(b.sessionId)?.state, 'ended', 'the dead server\'s session ended');
  for (const source of survivors) assert.notEqual(states.get(source.sessionId)?.state, 'ended', `${source.name} still runs`);
  assert.deepEqual(room.kiosk.problems.filter((problem) => !/WebSocket|ERR_CONNECTION/i.test(problem)), []);
});
