// A moderated room end to end (issue 29) with presenters sharing from the
// browser: the real gateway, the display page in Chromium, and presenter
// pages in a second Chromium that press "Share my screen" the way a person
// does (the browser's picker answered by --auto-select-tab-capture-source-by-title,
// patternPresenter.ts). A request waits for the moderator with its capture
// kept (the picker is asked once, on the click); accepted, the share starts
// and the display shows its picture; declined, the page says so and by whom
// and gives the capture back.
//
// Engines: the default one; an accepted request's presenter socket joining
// the display's session in either relay engine is
// gateway/test/relay/presenterInRoom's, run against both.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import type { Browser } from 'playwright-core';
import { launchChromium, openWatchedPage, publicDir, startTestGateway, waitFor, type TestGateway, type WatchedPage } from '@lanterna/testkit';
import { keepImage, keepScreenshot } from './keepScreenshot.js';
import { pageScreenshot } from './pageScreenshot.js';
import { waitForWords } from './pageText.js';
import { outcome } from './presenterPage.js';
import { capturesEnded, findPattern, launchPatternPresenter, openPatternPresenter, patternError, pickerCalls, shareReportTypes, PATTERN_A, PATTERN_B } from './patternPresenter.js';
import { sharedRig } from './sharedRig.js';

const displayId = 'room-moderated';
const displayName = 'Board room';
const PANEL = { width: 640, height: 360 };
const TITLE = 'Lanterna moderated pattern';
/** A second presenter Chromium shares another tab (the picker picks by title): two pictures told apart. */
const TITLE_B = 'Lanterna moderated pattern B';

interface Rig { gateway: TestGateway; displayBrowser: Browser; presenterBrowser: Browser; display: WatchedPage; presenterBrowserB: () => Promise<Browser> }

let browserB: Promise<Browser> | undefined;
const rig = sharedRig(async (): Promise<Rig> => {
  const token = randomBytes(18).toString('base64url');
  const gateway = await startTestGateway({ webRoot: publicDir, displays: [{ id: displayId, name: displayName, token }] });
  const [displayBrowser, presenterBrowser] = await Promise.all([launchChromium(), launchPatternPresenter(TITLE)]);
  const display = await openWatchedPage(displayBrowser, PANEL);
  await display.page.goto(`${gateway.httpUrl}/display/${displayId}#token=${token}`);
  await waitForWords(display.page, /Ready — waiting for a presenter/, 30_000);
  return { gateway, displayBrowser, presenterBrowser, display, presenterBrowserB: () => (browserB ??= launchPatternPresenter(TITLE_B)) };
}, async ({ gateway, displayBrowser, presenterBrowser }) => {
  await Promise.all([displayBrowser.close(), presenterBrowser.close(), browserB?.then((browser) => browser.close())]);
  await gateway.close();
});

async function admin(gateway: TestGateway, method: string, path: string, body?: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${gateway.httpUrl}${path}`, {
    method, signal: AbortSignal.timeout(30_000),
    headers: { authorization: `Bearer ${gateway.adminToken}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, body: text === '' ? {} : JSON.parse(text) as Record<string, unknown> };
}

interface QueueEntry { requestId: string; label: string; position: number; target: string }

async function queue(gateway: TestGateway): Promise<QueueEntry[]> {
  const room = await admin(gateway, 'GET', `/v1/admin/displays/${displayId}/room`);
  return room.body.queue as QueueEntry[];
}

/** Types the display's PIN and presses Share: the page asks the picker, then the gateway. */
async function pressShare(presenter: WatchedPage, gateway: TestGateway, name?: string): Promise<void> {
  const pin = await gateway.roomPin(displayId);
  assert.ok(pin, 'the display has a PIN');
  await presenter.page.fill('#pin', pin);
  if (name !== undefined) await presenter.page.fill('#name', name);
  // a person takes a moment to type; the page warms its RDP server meanwhile
  await new Promise((resolve) => setTimeout(resolve, 1500));
  await presenter.page.click('#share');
}

test("moderated room, Share my screen: each request waits with its capture kept (the picker asked once); the admin accepts one and the display shows its picture; the other is declined and its page says so, by whom, and gives its capture back", async () => {
  const { gateway, presenterBrowser, display } = await rig();
  const moderated = await admin(gateway, 'PATCH', `/v1/admin/displays/${displayId}/room`, { mode: 'moderated' });
  assert.equal(moderated.status, 200, JSON.stringify(moderated.body));
  await waitFor("the display's idle screen saying requests need approval", async () => /moderator’s approval/.test(await display.page.locator('#room-mode').textContent() ?? ''), 10_000);

  const ann = await openPatternPresenter(presenterBrowser, gateway.httpUrl, displayId, TITLE, PATTERN_A, PANEL);
  await pressShare(ann, gateway);
  await outcome(ann.page, new RegExp(`Waiting for ${displayName}'s moderator \\(place 1 in the queue\\)`), 30_000);
  const bob = await openPatternPresenter(presenterBrowser, gateway.httpUrl, displayId, TITLE, PATTERN_A, PANEL);
  await pressShare(bob, gateway);
  await outcome(bob.page, new RegExp(`Waiting for ${displayName}'s moderator \\(place 2 in the queue\\)`), 30_000);
  assert.equal(await ann.page.locator('#stop').textContent(), 'Stop waiting');
  assert.equal(await ann.page.locator('#share-preview-box').isHidden(), false, 'the page shows what it will share while it waits');
  const waiting = await queue(gateway);
  assert.deepEqual(waiting.map((entry) => [entry.position, entry.target]), [[1, 'browser'], [2, 'browser']]);
  assert.equal(await display.page.evaluate(() => document.getElementById('idle')?.hidden), false, 'nothing is shown before the moderator decides');
  await keepScreenshot(ann.page, 'room-moderated-presenter-waiting');

  // the moderator lets Ann in some seconds later: her page starts sharing with the capture it kept
  await new Promise((resolve) => setTimeout(resolve, 3000));
  const [annRequest, bobRequest] = waiting;
  assert.ok(annRequest && bobRequest);
  const acceptedAt = Date.now();
  const accepted = await admin(gateway, 'POST', `/v1/admin/displays/${displayId}/room/requests/${annRequest.requestId}/accept`, {});
  assert.equal(accepted.status, 200, JSON.stringify(accepted.body));
  await outcome(ann.page, new RegExp(`${displayName} is showing your screen`), 30_000);
  console.log(`# moderator's accept → the presenter's page says it is showing: ${Date.now() - acceptedAt} ms`);
  assert.equal(await pickerCalls(ann.page), 1, "the browser's picker was asked once, on the click, not again on acceptance");
  const types = await shareReportTypes(ann.page);
  assert.deepEqual(types.filter((type) => ['waiting-for-moderator', 'accepted', 'first-picture'].includes(type)), ['waiting-for-moderator', 'accepted', 'first-picture']);
  await waitFor('the display showing the picture', async () => (await display.page.evaluate(() => document.getElementById('idle')?.hidden)) === true, 10_000);
  await new Promise((resolve) => setTimeout(resolve, 1000));
  const shown = await pageScreenshot(display.page);
  await keepImage(shown, 'room-moderated-display');
  const error = patternError(shown, { x: 0, y: 0, ...PANEL }, PATTERN_A);
  console.log(`# accepted share on the display: worst block-centre error ${error}/255`);
  assert.ok(error <= 30, `the display's picture is ${error}/255 from Ann's pattern`);
  assert.equal(await outcome(bob.page, /place 1 in the queue/, 10_000) !== '', true, 'Bob moved up the queue');

  const declined = await admin(gateway, 'POST', `/v1/admin/displays/${displayId}/room/requests/${bobRequest.requestId}/decline`, { reason: 'one at a time, please' });
  assert.equal(declined.status, 200, JSON.stringify(declined.body));
  const words = await outcome(bob.page, new RegExp(`${displayName}: one at a time, please \\(admin@`), 10_000);
  console.log(`# the declined presenter's page: ${words}`);
  await waitFor('the declined capture given back', () => capturesEnded(bob.page), 5000);
  assert.equal(await bob.page.locator('#share').isDisabled(), false, 'Share is offered again');
  assert.equal(await bob.page.locator('#share-preview-box').isHidden(), true);
  assert.equal(await pickerCalls(bob.page), 1);
  await keepScreenshot(bob.page, 'room-moderated-presenter-declined');

  // the moderator ends Ann's source: her page says who ended it
  const ended = await admin(gateway, 'DELETE', `/v1/admin/displays/${displayId}/room/slots/0`);
  assert.equal(ended.status, 202, JSON.stringify(ended.body));
  // nothing else shows on the display: it is free, not "has a free place"
  await outcome(ann.page, new RegExp(`An administrator stopped your presentation on ${displayName}\\. It is free again\\.`), 10_000);
  await display.page.waitForFunction(() => document.getElementById('idle')?.hidden === false, undefined, { timeout: 10_000 });
  for (const presenter of [ann, bob]) {
    assert.deepEqual(presenter.problems.filter((problem) => !/status of 4\d\d/.test(problem)), []);
    await presenter.page.context().close();
  }
});

/** Where the display page shows each source's label: its slot's rectangle, in % of the panel (slotLabels.ts). */
async function labelRects(display: WatchedPage): Promise<Record<string, { name: string; left: number; top: number; width: number; height: number }>> {
  return display.page.evaluate(() => Object.fromEntries([...document.querySelectorAll<HTMLElement>('.slot-label')].map((box) => [box.dataset.slot ?? '', {
    name: box.querySelector('.slot-name')?.textContent ?? '',
    left: parseFloat(box.style.left), top: parseFloat(box.style.top), width: parseFloat(box.style.width), height: parseFloat(box.style.height),
  }])));
}

/** The row of the admin page's Rooms card that names `who` in its queue or its sources. */
function roomRow(adminPage: WatchedPage, table: 'room-queue' | 'room-sources', who: string): ReturnType<WatchedPage['page']['locator']> {
  return adminPage.page.locator(`.room[data-display="${displayId}"] table.${table} tbody tr`, { hasText: who });
}

test("the admin page's Rooms card with real requests waiting: its menus set who may present, the layout and the large source, and the display follows; Accept, Decline and End do what they say and each presenter's page says so", async () => {
  const { gateway, presenterBrowser, display, displayBrowser, presenterBrowserB } = await rig();
  const opened = await admin(gateway, 'PATCH', `/v1/admin/displays/${displayId}/room`, { mode: 'open', layout: 'grid', large: 0 });
  assert.equal(opened.status, 200);
  const adminPage = await openWatchedPage(displayBrowser, { width: 1440, height: 900 });
  await adminPage.page.goto(`${gateway.httpUrl}/admin`);
  await adminPage.page.fill('#token', gateway.adminToken);
  await adminPage.page.press('#token', 'Enter');
  const room = adminPage.page.locator(`.room[data-display="${displayId}"]`);
  await room.waitFor({ timeout: 10_000 });
  assert.match(await room.locator('h3').textContent() ?? '', new RegExp(`${displayName}: 0 of 4 places showing`));

  // "Who may present" → only whom a moderator accepts: the display's idle screen says requests need approval
  await room.locator('select[name="Who may present"]').selectOption('moderated');
  await waitFor("the display's idle screen saying requests need approval", async () => /moderator’s approval/.test(await display.page.locator('#room-mode').textContent() ?? ''), 10_000);
  assert.equal((await admin(gateway, 'GET', `/v1/admin/displays/${displayId}/room`)).body.mode, 'moderated');

  const ann = await openPatternPresenter(presenterBrowser, gateway.httpUrl, displayId, TITLE, PATTERN_A, PANEL);
  await pressShare(ann, gateway, 'Ann');
  await outcome(ann.page, /Waiting for .*moderator \(place 1 in the queue\)/, 30_000);
  const annRow = roomRow(adminPage, 'room-queue', 'Ann');
  await annRow.waitFor({ timeout: 10_000 });
  assert.match(await annRow.textContent() ?? '', /shares from a browser/);
  assert.match(await room.locator('h3').textContent() ?? '', /0 of 4 places showing, 1 waiting/);
  await keepScreenshot(adminPage.page, 'room-admin-request-waiting', { fullPage: true });

  await annRow.getByRole('button', { name: /^Accept "Ann"/ }).click();
  await outcome(ann.page, new RegExp(`${displayName} is showing your screen`), 30_000);
  await roomRow(adminPage, 'room-sources', 'Ann').waitFor({ timeout: 10_000 });
  assert.equal(await annRow.count(), 0, 'Ann left the queue');

  const browserB = await presenterBrowserB();
  const bob = await openPatternPresenter(browserB, gateway.httpUrl, displayId, TITLE_B, PATTERN_B, PANEL);
  await pressShare(bob, gateway, 'Bob');
  await outcome(bob.page, /Waiting for .*moderator/, 30_000);
  const bobRow = roomRow(adminPage, 'room-queue', 'Bob');
  await bobRow.waitFor({ timeout: 10_000 });
  await keepScreenshot(adminPage.page, 'room-admin-second-waiting', { fullPage: true });
  await bobRow.getByRole('button', { name: /^Accept "Bob"/ }).click();
  await outcome(bob.page, new RegExp(`${displayName} is showing your screen \\(place 2\\)`), 30_000);
  // two sources in the grid stand side by side, each labelled
  await waitFor('two labels side by side', async () => {
    const rects = await labelRects(display);
    return rects['0']?.name === 'Ann' && rects['1']?.name === 'Bob' && rects['0'].width === 50 && rects['1'].left === 50;
  }, 10_000);

  // Layout → one large, the others small: the large place (1, Ann) takes three quarters
  await room.locator('select[name="Layout"]').selectOption('one-large');
  await waitFor('Ann large on the left', async () => {
    const rects = await labelRects(display);
    return rects['0']?.width === 75 && rects['1']?.left === 75 && rects['1'].width === 25;
  }, 10_000);
  // "Make large" on Bob's row: Bob takes the three quarters
  await roomRow(adminPage, 'room-sources', 'Bob').getByRole('button', { name: /^Make "Bob" large/ }).click();
  await waitFor('Bob large', async () => {
    const rects = await labelRects(display);
    return rects['1']?.width === 75 && rects['1'].left === 0 && rects['0']?.left === 75;
  }, 10_000);
  await waitFor("the page's Large menu saying place 2", async () => (await room.locator('select[name="Large"]').inputValue()) === '1', 10_000);
  await new Promise((resolve) => setTimeout(resolve, 1500));
  const shown = await pageScreenshot(display.page);
  await keepImage(shown, 'room-admin-display-bob-large');
  // Bob's picture, fitted into his 480×360 place at whatever size his session has: found, then compared block by block
  const bobPicture = findPattern(shown, { x: 0, y: 0, width: 480, height: 360 }, PATTERN_B);
  assert.ok(bobPicture && bobPicture.width >= 300, `Bob's picture in the large place: ${JSON.stringify(bobPicture)}`);
  const bobError = patternError(shown, bobPicture, PATTERN_B);
  console.log(`# Bob large (one-large layout): his picture at ${JSON.stringify(bobPicture)} in the 480×360 place, worst block-centre error ${bobError}/255 against his pattern`);
  assert.ok(bobError <= 40, `the large place shows ${bobError}/255 away from Bob's pattern`);
  // Layout → only the large one
  await room.locator('select[name="Layout"]').selectOption('full');
  await waitFor('only Bob shown', async () => {
    const rects = await labelRects(display);
    return rects['0'] === undefined && rects['1'] === undefined;
  }, 10_000);
  await waitFor("the page saying Ann is hidden by the layout", async () => /hidden by the layout/.test(await roomRow(adminPage, 'room-sources', 'Ann').textContent() ?? ''), 10_000);

  // End on Ann's row: her page says an administrator stopped it, and that Bob's presentation goes on beside a free place
  await roomRow(adminPage, 'room-sources', 'Ann').getByRole('button', { name: /^End "Ann"/ }).click();
  await outcome(ann.page, new RegExp(`An administrator stopped your presentation on ${displayName}\\. It has a free place again\\.`), 15_000);
  await waitFor("Ann's row gone", async () => (await roomRow(adminPage, 'room-sources', 'Ann').count()) === 0, 10_000);

  // a third request, declined from the page
  await pressShare(ann, gateway, 'Cem');
  const cemRow = roomRow(adminPage, 'room-queue', 'Cem');
  await cemRow.waitFor({ timeout: 30_000 });
  // with the moderator's reason, typed beside the button: the presenter's page says it
  await cemRow.getByRole('textbox', { name: /^Reason for declining "Cem"/ }).fill('the room is full today');
  await cemRow.getByRole('button', { name: /^Decline "Cem"/ }).click();
  const words = await outcome(ann.page, new RegExp(`${displayName}: the room is full today \\(admin@`), 15_000);
  console.log(`# declined from the admin page, the presenter's page: ${words}`);
  await waitFor('the declined capture given back', () => capturesEnded(ann.page), 5000);
  const audit = await admin(gateway, 'GET', '/v1/admin/audit?limit=100');
  const actions = (audit.body.entries as { action: string }[]).map((entry) => entry.action);
  for (const action of ['room-mode-changed', 'room-layout-changed', 'room-request-accepted', 'room-request-declined', 'room-source-ended']) assert.ok(actions.includes(action), `audited: ${action}`);
  await keepScreenshot(adminPage.page, 'room-admin-after', { fullPage: true });

  await bob.page.click('#stop');
  await outcome(bob.page, new RegExp(`Stopped\\. ${displayName} is free again\\.`), 15_000);
  for (const page of [ann, bob, adminPage]) {
    assert.deepEqual(page.problems.filter((problem) => !/status of 4\d\d/.test(problem)), []);
    await page.page.context().close();
  }
});
