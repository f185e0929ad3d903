// A moderated room end to end (issue 29) with presenters sharing from the
// browser: the real gateway, the display page in Chromium, and presenter
// pages in a second Chromium that press "Share my screen" the way a person
// does (the browser's picker answered by --auto-select-tab-capture-source-by-title,
// patternPresenter.ts). A request waits for the moderator with its capture
// kept (the picker is asked once, on the click); accepted, the share starts
// and the display shows its picture; declined, the page says so and by whom
// and gives the capture back.
//
// Engines: both (scripts/run-tests.mjs): an accepted request's presenter
// socket joins the display's session in either relay engine.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import type { Browser } from 'playwright-core';
import { launchChromium, openWatchedPage, publicDir, startTestGateway, waitFor, type TestGateway, type WatchedPage } from '@lanterna/testkit';
import { keepImage, keepScreenshot } from './keepScreenshot.js';
import { pageScreenshot } from './pageScreenshot.js';
import { waitForWords } from './pageText.js';
import { outcome } from './presenterPage.js';
import { capturesEnded, launchPatternPresenter, openPatternPresenter, patternError, pickerCalls, shareReportTypes, PATTERN_A } from './patternPresenter.js';

const displayId = 'room-moderated';
const displayName = 'Board room';
const PANEL = { width: 640, height: 360 };
const TITLE = 'Lanterna moderated pattern';

interface Rig { gateway: TestGateway; displayBrowser: Browser; presenterBrowser: Browser; display: WatchedPage }

let rigPromise: Promise<Rig> | null = null;
function rig(): Promise<Rig> {
  rigPromise ??= (async () => {
    const token = randomBytes(18).toString('base64url');
    const gateway = await startTestGateway({ webRoot: publicDir, displays: [{ id: displayId, name: displayName, token }] });
    const [displayBrowser, presenterBrowser] = await Promise.all([launchChromium(), launchPatternPresenter(TITLE)]);
    const display = await openWatchedPage(displayBrowser, PANEL);
    await display.page.goto(`${gateway.httpUrl}/display/${displayId}#token=${token}`);
    await waitForWords(display.page, /Ready — waiting for a presenter/, 30_000);
    return { gateway, displayBrowser, presenterBrowser, display };
  })();
  return rigPromise;
}

test.after(async () => {
  if (!rigPromise) return;
  const { gateway, displayBrowser, presenterBrowser } = await rigPromise;
  await Promise.all([displayBrowser.close(), presenterBrowser.close()]);
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
async function pressShare(presenter: WatchedPage, gateway: TestGateway): Promise<void> {
  const pin = await gateway.roomPin(displayId);
  assert.ok(pin, 'the display has a PIN');
  await presenter.page.fill('#pin', pin);
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
  await outcome(ann.page, new RegExp(`An administrator stopped your presentation on ${displayName}`), 10_000);
  await display.page.waitForFunction(() => document.getElementById('idle')?.hidden === false, undefined, { timeout: 10_000 });
  for (const presenter of [ann, bob]) {
    assert.deepEqual(presenter.problems.filter((problem) => !/status of 4\d\d/.test(problem)), []);
    await presenter.page.context().close();
  }
});
