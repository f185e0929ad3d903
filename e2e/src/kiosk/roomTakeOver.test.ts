// Take-over in an open room (issue 29), end to end: the real gateway, the
// display page in Chromium with every place taken — a presenter sharing from
// the browser (the oldest source) and three FreeRDP shadow servers projected
// by the admin API — and a second presenter whose Share is refused until it
// ticks "replace the source that has been on it longest". Then the source it
// replaces ends with words its presenter's page shows (taken over by whom),
// and the new one shows in that place (its own pattern found there), while
// the three others go on.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Lab } from '@lanterna/lab';
import { launchChromium, openWatchedPage, waitFor, type TestGateway, type WatchedPage } from '@lanterna/testkit';
import { keepImage, keepScreenshot } from './keepScreenshot.js';
import { pageScreenshot } from './pageScreenshot.js';
import { waitForWords } from './pageText.js';
import { outcome } from './presenterPage.js';
import { admin, paint, startRoomGateway } from './roomRig.js';
import { capturesEnded, findPattern, launchPatternPresenter, openPatternPresenter, patternError, PATTERN_A, PATTERN_B } from './patternPresenter.js';

const displayId = 'room-take-over';
const displayName = 'Huddle room';
const PANEL = { width: 640, height: 360 };
const TITLE_A = 'Lanterna take-over pattern A';
const TITLE_B = 'Lanterna take-over pattern B';

async function pressShare(presenter: WatchedPage, gateway: TestGateway, name: string): Promise<void> {
  const pin = await gateway.roomPin(displayId);
  assert.ok(pin, 'the display has a PIN');
  await presenter.page.fill('#pin', pin);
  await presenter.page.fill('#name', name);
  await new Promise((resolve) => setTimeout(resolve, 1500));
  await presenter.page.click('#share');
}

/** The display page's labels: slot → name (shown while two or more sources are on screen). */
async function labels(display: WatchedPage): Promise<Record<string, string>> {
  return display.page.evaluate(() => Object.fromEntries([...document.querySelectorAll<HTMLElement>('.slot-label')].map((box) => [box.dataset.slot ?? '', box.querySelector('.slot-name')?.textContent ?? ''])));
}

test('open room, every place taken: a presenter who ticks "replace" takes the oldest source\'s place; that presenter\'s page says who took it, the new picture shows in the place, the others go on', async (t) => {
  const closers: (() => Promise<unknown>)[] = [];
  t.after(async () => {
    for (const close of closers.reverse()) await close().catch(() => undefined);
  });
  const lab = await Lab.create({ name: 'e2e-room-take-over' });
  closers.push(() => lab.close());
  const colours = ['#3c9a4a', '#8a3cb0', '#c07a20'];
  const servers = [];
  for (const colour of colours) {
    // each X screen is its place's size in the 2×2 grid of the 640×360 page
    const screen = await lab.display({ width: 320, height: 180 });
    await paint(screen, colour);
    const server = await lab.shadowServer({ display: screen, auth: 'tls', gfx: true, extraArgs: ['-gfx-progressive', '-gfx-rfx'] });
    closers.push(() => server.stop());
    servers.push(server);
  }
  // five sources and three Chromiums on two loaded cores: the room's deadlines
  const { gateway, token } = await startRoomGateway({ id: displayId, name: displayName });
  closers.push(() => gateway.close());
  const [displayBrowser, browserA, browserB] = await Promise.all([launchChromium(), launchPatternPresenter(TITLE_A), launchPatternPresenter(TITLE_B)]);
  closers.push(() => Promise.all([displayBrowser.close(), browserA.close(), browserB.close()]));
  const display = await openWatchedPage(displayBrowser, PANEL);
  await display.page.goto(`${gateway.httpUrl}/display/${displayId}?codecs=planar#token=${token}`);
  await waitForWords(display.page, /Ready — waiting for a presenter/, 30_000);

  // Ann shares first: the source on screen longest
  const ann = await openPatternPresenter(browserA, gateway.httpUrl, displayId, TITLE_A, PATTERN_A, PANEL);
  await pressShare(ann, gateway, 'Ann');
  await outcome(ann.page, new RegExp(`${displayName} is showing your screen\\.`), 30_000);
  for (const [index, server] of servers.entries()) {
    const projected = await admin(gateway, 'POST', '/v1/admin/sessions', {
      displayId, target: { host: server.host, port: server.port, name: `Server ${String(index + 1)}` }, credentials: { username: server.username, password: server.password },
    });
    assert.equal(projected.status, 202, JSON.stringify(projected.body));
  }
  await waitFor('four sources labelled', async () => Object.keys(await labels(display)).length === 4, 30_000);

  // Bob: refused while every place is taken, offered the take-over, his capture given back
  const bob = await openPatternPresenter(browserB, gateway.httpUrl, displayId, TITLE_B, PATTERN_B, PANEL);
  await pressShare(bob, gateway, 'Bob');
  await outcome(bob.page, /Every place on that display is taken\. Wait until someone stops, or tick/, 20_000);
  assert.equal(await bob.page.locator('#take-over-box').isVisible(), true, 'the page offers to take a place over');
  await waitFor("the refused share's capture given back", () => capturesEnded(bob.page), 5000);
  await keepScreenshot(bob.page, 'room-take-over-offered');

  await bob.page.check('#take-over');
  const tookAt = Date.now();
  await pressShare(bob, gateway, 'Bob');
  const annWords = await outcome(ann.page, new RegExp(`${displayName}: taken over by "Bob" \\(presenter@`), 30_000);
  console.log(`# the replaced presenter's page: ${annWords} (${Date.now() - tookAt} ms after Bob's Share)`);
  await waitFor("Ann's capture given back", () => capturesEnded(ann.page), 5000);
  await outcome(bob.page, new RegExp(`${displayName} is showing your screen\\.`), 30_000);
  await waitFor('Bob labelled in place 1, the servers in theirs', async () => {
    const now = await labels(display);
    return now['0'] === 'Bob' && now['1'] === 'Server 1' && now['2'] === 'Server 2' && now['3'] === 'Server 3';
  }, 15_000);
  await new Promise((resolve) => setTimeout(resolve, 1500));
  const shown = await pageScreenshot(display.page);
  await keepImage(shown, 'room-take-over-display');
  const bobPicture = findPattern(shown, { x: 0, y: 0, width: 320, height: 180 }, PATTERN_B);
  assert.ok(bobPicture && bobPicture.width >= 150, `Bob's picture in place 1: ${JSON.stringify(bobPicture)}`);
  const error = patternError(shown, bobPicture, PATTERN_B);
  console.log(`# Bob's picture in place 1 at ${JSON.stringify(bobPicture)}: worst block-centre error ${error}/255`);
  assert.ok(error <= 40, `place 1 shows ${error}/255 away from Bob's pattern`);
  // Ann's pattern is Bob's inverted: the place is far from hers
  assert.ok(patternError(shown, bobPicture, PATTERN_A) > 200, "place 1 no longer shows Ann's picture");
  // the HUD ("h") has a line per source: its own frames per second, decode and upload ms, bytes per second
  await display.page.keyboard.press('h');
  let hudLines: { name: string; value: string }[] = [];
  await waitFor('a HUD line per source', async () => {
    hudLines = await display.page.evaluate(() => [...document.querySelectorAll<HTMLElement>('[data-hud-slot]')].map((line) => ({ name: line.querySelector('span')?.textContent ?? '', value: line.querySelector('b')?.textContent ?? '' })));
    return hudLines.length === 4;
  }, 10_000);
  for (let second = 0; second < 3; second++) {
    await new Promise((resolve) => setTimeout(resolve, 1000));
    hudLines = await display.page.evaluate(() => [...document.querySelectorAll<HTMLElement>('[data-hud-slot]')].map((line) => ({ name: line.querySelector('span')?.textContent ?? '', value: line.querySelector('b')?.textContent ?? '' })));
    console.log(`# the HUD's lines per source: ${hudLines.map((line) => `${line.name}: ${line.value}`).join(' | ')}`);
  }
  assert.deepEqual(hudLines.map((line) => line.name), ['place 1 · Bob', 'place 2 · Server 1', 'place 3 · Server 2', 'place 4 · Server 3']);
  for (const line of hudLines) assert.match(line.value, /^\d+ frames\/s · decode (—|\d+\.\d) ms · upload (—|\d+\.\d) ms · [\d.]+ (B|KiB|MiB)\/s$/, line.name);
  await keepScreenshot(display.page, 'room-take-over-hud');
  const room = await admin(gateway, 'GET', `/v1/admin/displays/${displayId}/room`);
  assert.deepEqual((room.body.slots as { slot: number; label: string }[]).map((slot) => [slot.slot, slot.label]), [[0, 'Bob'], [1, 'Server 1'], [2, 'Server 2'], [3, 'Server 3']]);
  const audit = await admin(gateway, 'GET', '/v1/admin/audit?limit=50');
  assert.ok((audit.body.entries as { action: string }[]).some((entry) => entry.action === 'room-slot-taken-over'), 'the take-over is audited');
  // Bob stops while the servers go on: his page says the room has a free place, not that the display is free
  await bob.page.click('#stop');
  const stopWords = await outcome(bob.page, new RegExp(`Stopped\\. ${displayName} has a free place again\\.`), 15_000);
  console.log(`# a presenter's own stop with three sources left: ${stopWords}`);
  await waitFor('three labels left', async () => Object.keys(await labels(display)).length === 3, 10_000);
  for (const presenter of [ann, bob]) assert.deepEqual(presenter.problems.filter((problem) => !/status of 4\d\d/.test(problem)), []);
});
