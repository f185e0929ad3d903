// Touch from the display to the presenter's computer (issue 30): real
// Chromium with CDP touch events on the display page, real FreeRDP shadow
// servers on Xvfb, the real gateway (its default engine; each engine's input
// gate is gateway/test/relay/inputGate's, run against both). The X pointer of the server's screen, read with
// xdotool, is the truth:
// - with the presenter's permission on (the presenter page's switch, or the
//   presenter API's PATCH), a tap moves it to the desktop pixel under the
//   finger, through the letterbox and through a slot of a two-source room,
//   and two fingers swiped up scroll (xev on the server's screen: button 5);
// - off (the default, and after a revoke), a tap sends nothing, and input
//   forced into the session worker as a hostile page would (the page's own
//   check bypassed) does not reach the server either: the gateway drops it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { promisify } from 'node:util';
import { randomBytes } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { Lab, type LabDisplay } from '@lanterna/lab';
import { launchChromium, openWatchedPage, publicDir, startTestGateway, waitFor, type TestGateway } from '@lanterna/testkit';
import { PRESENTER_REQUEST_HEADER, PRESENTER_STOP_TOKEN_HEADER } from '@lanterna/protocol';
import { fillAddress, outcome } from './presenterPage.js';
import { openTouchPage, type Touch } from './inkTouch.js';
import { labScene } from './labScene.js';

const run = promisify(execFile);
const PANEL = { width: 1280, height: 720 };
/** FreeRDP's PTR_FLAGS_MOVE. */
const PTR_MOVE = 0x0800;
/** Long enough for a sent event to have crossed page, worker, gateway and server on a loaded machine. */
const SETTLE_MS = 3000;

async function pointerOf(display: LabDisplay): Promise<{ x: number; y: number }> {
  const { stdout } = await run('xdotool', ['getmouselocation', '--shell'], { env: { ...process.env, ...display.env }, timeout: 10_000 });
  const x = /^X=(\d+)/m.exec(stdout)?.[1];
  const y = /^Y=(\d+)/m.exec(stdout)?.[1];
  if (x === undefined || y === undefined) throw new Error(`xdotool said ${stdout}`);
  return { x: Number(x), y: Number(y) };
}

/** FreeRDP's PTR_FLAGS_WHEEL | PTR_FLAGS_WHEEL_NEGATIVE with −120: one notch towards the user. */
const WHEEL_TOWARDS_YOU = 0x0388;

/**
 * The X buttons pressed on the server's screen from now on: xev's own window
 * over the whole screen (the root's button events are another client's to
 * select), gone with stop().
 */
async function watchButtons(display: LabDisplay): Promise<{ pressed: () => number[]; said: () => string; stop: () => void }> {
  // line-buffered: into a pipe, xev's stdio would hold its lines until it exits
  const xev = spawn('stdbuf', ['-oL', 'xev', '-event', 'button', '-geometry', `${display.width}x${display.height}+0+0`], { env: { ...process.env, ...display.env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let text = '';
  xev.stdout.setEncoding('utf8').on('data', (chunk: string) => { text += chunk; });
  xev.stderr.setEncoding('utf8').on('data', (chunk: string) => { text += chunk; });
  // its window mapped: a moment (the control click below proves it)
  await new Promise((resolve) => setTimeout(resolve, 500));
  if (xev.exitCode !== null) throw new Error(`xev exited ${xev.exitCode}`);
  return {
    said: () => text,
    // xev prints one block per event, blank lines between: "ButtonPress event, …", then "…, button N, …" two lines on
    pressed: () => text.split(/\n\s*\n/).filter((block) => block.trimStart().startsWith('ButtonPress')).map((block) => Number(/button (\d+)/.exec(block)?.[1])),
    stop: () => { if (xev.exitCode === null) xev.kill(); },
  };
}

async function park(display: LabDisplay, x: number, y: number): Promise<void> {
  await run('xdotool', ['mousemove', String(x), String(y)], { env: { ...process.env, ...display.env }, timeout: 10_000 });
  assert.deepEqual(await pointerOf(display), { x, y });
}

async function pointerReaches(display: LabDisplay, expected: { x: number; y: number }, what: string): Promise<void> {
  let last = { x: -1, y: -1 };
  try {
    await waitFor(what, async () => {
      last = await pointerOf(display);
      return last.x === expected.x && last.y === expected.y;
    }, 30_000, 100);
  } catch {
    throw new Error(`${what}: the server's pointer is at ${JSON.stringify(last)}, not ${JSON.stringify(expected)}`);
  }
}

async function pointerStays(display: LabDisplay, at: { x: number; y: number }, what: string): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
  assert.deepEqual(await pointerOf(display), at, what);
}

/** Counts what the page itself sent (its `lanterna:touch-sent` hook). */
async function watchSent(page: Page): Promise<void> {
  await page.evaluate(() => {
    const sent: unknown[] = [];
    (window as unknown as { touchSent: unknown[] }).touchSent = sent;
    window.addEventListener('lanterna:touch-sent', (event) => sent.push((event as CustomEvent).detail));
    // which slots have decoded a picture (the page knows their desktop then: touch maps onto it)
    const decoded: number[] = [];
    (window as unknown as { decodedSlots: number[] }).decodedSlots = decoded;
    window.addEventListener('lanterna:decode', (event) => {
      const { slot } = (event as CustomEvent<{ slot: number }>).detail;
      if (!decoded.includes(slot)) decoded.push(slot);
    });
  });
}

function decodedSlots(page: Page): Promise<number[]> {
  return page.evaluate(() => [...(window as unknown as { decodedSlots: number[] }).decodedSlots].sort());
}

function sentByPage(page: Page): Promise<{ slot: number; flags: number; x: number; y: number }[]> {
  return page.evaluate(() => (window as unknown as { touchSent: { slot: number; flags: number; x: number; y: number }[] }).touchSent);
}

/**
 * What a hostile display page could do: put mouse events straight into each
 * session worker (bypassing the page's permission check) at a desktop point.
 */
async function forceMouse(page: Page, x: number, y: number): Promise<number> {
  const workers = page.workers().filter((worker) => worker.url().includes('session.worker'));
  for (const worker of workers) {
    await worker.evaluate(({ flags, x: atX, y: atY }) => {
      const handler = (self as unknown as { onmessage: (event: { data: unknown }) => void }).onmessage;
      handler({ data: { type: 'mouse', flags, x: atX, y: atY } });
    }, { flags: PTR_MOVE, x, y });
  }
  return workers.length;
}

async function tapAt(touch: Touch, page: Page, x: number, y: number): Promise<void> {
  await page.evaluate(({ left, top }) => {
    let dot = document.getElementById('test-tap-target');
    if (!dot) {
      dot = document.createElement('div');
      dot.id = 'test-tap-target';
      // a 2×2 box centred on the point, that takes no touch itself (the canvas under it does)
      dot.style.cssText = 'position:fixed;width:2px;height:2px;pointer-events:none';
      document.body.append(dot);
    }
    dot.style.left = `${left - 1}px`;
    dot.style.top = `${top - 1}px`;
  }, { left: x, top: y });
  await touch.tap('#test-tap-target');
}

async function openDisplay(browser: Browser, gateway: TestGateway, displayId: string, token: string): Promise<Awaited<ReturnType<typeof openTouchPage>>> {
  const kiosk = await openTouchPage(browser, PANEL);
  await kiosk.page.goto(`${gateway.httpUrl}/display/${displayId}?codecs=planar#token=${token}`);
  await waitFor('the display online', async () => ((await kiosk.page.locator('#status-text').textContent()) ?? '').startsWith('Ready'), 30_000, 100);
  await watchSent(kiosk.page);
  return kiosk;
}

test('one source, letterboxed: off, taps and forced input leave the pointer; on (presenter page switch), a tap moves it to the mapped pixel; revoked, nothing again', { timeout: 300_000 }, async (t) => {
  // 1024×768 on a 1280×720 panel, and the shadow server has no Display Control: a centred 960×720 box from x = 160
  const { lab, display: screen } = await labScene(t, 'e2e-touch-letterbox', { width: 1024, height: 768 }, 'slide');
  const shadow = await lab.shadowServer({ display: screen, auth: 'nla' });
  const displayId = 'touch-letterbox';
  const token = randomBytes(18).toString('base64url');
  const gateway = await startTestGateway({ webRoot: publicDir, certificates: { mode: 'first-use' }, displays: [{ id: displayId, name: 'Touch screen', token }] });
  t.after(() => gateway.close());
  const browser = await launchChromium();
  t.after(() => browser.close());
  const kiosk = await openDisplay(browser, gateway, displayId, token);
  const { page, touch } = kiosk;
  const presenter = await openWatchedPage(browser, { width: 1000, height: 900 });
  await presenter.page.goto(`${gateway.httpUrl}/present?display=${displayId}`);
  await fillAddress(presenter.page, `${shadow.host}:${shadow.port}`, shadow.username, shadow.password, (await gateway.roomPin(displayId)) ?? '');
  await presenter.page.click('#start');
  await outcome(presenter.page, /Touch screen is showing your screen\./, 120_000);
  await waitFor('the picture on the display', async () => (await page.locator('#idle').isHidden()) && (await page.locator('#session').isHidden()), 120_000, 200);
  await waitFor('the picture decoded', async () => (await decodedSlots(page)).includes(0), 60_000, 200);
  await waitFor('the permission switch, off', async () => (await presenter.page.locator('#touch-box').isVisible()) && !(await presenter.page.locator('#touch').isChecked()), 30_000, 100);
  assert.equal(await page.locator('.touch-mark').count(), 0, 'no mark while off');

  // Off (the default): the page sends nothing; input forced into the worker is dropped by the gateway.
  await park(screen, 5, 5);
  await tapAt(touch, page, 461, 241);
  assert.ok(await forceMouse(page, 700, 600) >= 1, 'a session worker to force input into');
  await pointerStays(screen, { x: 5, y: 5 }, 'nothing reaches the server while the presenter has not allowed it');
  assert.deepEqual(await sentByPage(page), [], 'the page sent nothing either');

  // On: the presenter's switch; the display marks the source, and a tap lands on the desktop pixel under the finger.
  await presenter.page.check('#touch');
  await waitFor('the mark on the display', async () => (await page.locator('.touch-mark').count()) === 1, 30_000, 100);
  assert.match((await page.locator('.touch-mark').textContent()) ?? '', /^Touch controls .+ computer$/);
  // CSS (461, 241) = canvas (461, 241); the box is 960×720 from x = 160 at 0.9375 canvas px per desktop px:
  // desktop x = floor((461 − 160) / 0.9375) = floor(321.07) = 321, y = floor(241 / 0.9375) = floor(257.07) = 257
  await tapAt(touch, page, 461, 241);
  await pointerReaches(screen, { x: 321, y: 257 }, 'the tap moved the server\'s pointer to the mapped pixel');
  const sent = await sentByPage(page);
  assert.deepEqual(sent.slice(0, 3).map((event) => [event.flags, event.x, event.y]), [[0x0800, 321, 257], [0x9000, 321, 257], [0x1000, 321, 257]], 'move, button down, button up');
  // a tap on the letterbox's bar is no desktop pixel: nothing is sent
  await tapAt(touch, page, 80, 300);
  assert.equal((await sentByPage(page)).length, sent.length, 'nothing sent for a tap on the bar');

  // Two fingers swiped up 200 px scroll: five notches towards the user (X's button 5), no click.
  const buttons = await watchButtons(screen);
  t.after(() => buttons.stop());
  // the control: a wheel notch made on the server's screen itself is seen
  await run('xdotool', ['click', '4'], { env: { ...process.env, ...screen.env }, timeout: 10_000 });
  await waitFor('the watcher sees a button made on the server', () => buttons.pressed().includes(4), 10_000, 100)
    .catch((error: unknown) => { throw new Error(`${(error as Error).message} (xev: ${buttons.said().slice(-400)})`); });
  await touch.twoFingerSwipe({ x: 640, y: 500 }, -200);
  const swipe = (await sentByPage(page)).slice(sent.length);
  assert.deepEqual(swipe.filter((event) => event.flags !== PTR_MOVE).map((event) => event.flags), Array(5).fill(WHEEL_TOWARDS_YOU), 'five wheel notches and no button from the page');
  await waitFor('the server gets five notches of button 5', () => buttons.pressed().filter((button) => button === 5).length >= 5, 30_000, 100)
    .catch(() => { throw new Error(`the server's buttons: ${JSON.stringify(buttons.pressed())} (xev: ${buttons.said().slice(-400)})`); });
  await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
  assert.deepEqual(buttons.pressed(), [4, 5, 5, 5, 5, 5], 'only the scroll reached the server, no click');
  buttons.stop();
  sent.push(...swipe);

  // Revoked: at once, the mark goes; forced input is dropped again.
  await presenter.page.uncheck('#touch');
  await waitFor('the mark gone', async () => (await page.locator('.touch-mark').count()) === 0, 30_000, 100);
  await park(screen, 7, 7);
  await forceMouse(page, 600, 500);
  await tapAt(touch, page, 700, 400);
  await pointerStays(screen, { x: 7, y: 7 }, 'nothing reaches the server after the revoke');
  assert.equal((await sentByPage(page)).length, sent.length, 'the page sent nothing after the revoke');
  assert.deepEqual(kiosk.problems, []);
  assert.deepEqual(presenter.problems, []);
});

interface Projected { sessionId: string; stopToken: string }

async function presenterApi(gateway: TestGateway, displayId: string, method: 'POST' | 'PATCH' | 'GET', body: unknown, stopToken?: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${gateway.httpUrl}/v1/displays/${displayId}/projection`, {
    method,
    signal: AbortSignal.timeout(30_000),
    headers: {
      [PRESENTER_REQUEST_HEADER]: '1',
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...(stopToken === undefined ? {} : { [PRESENTER_STOP_TOKEN_HEADER]: stopToken }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: await response.json() as Record<string, unknown> };
}

test('two sources side by side: a tap in the allowed one\'s slot lands on its desktop through its letterbox; the other, not allowed, never moves', { timeout: 300_000 }, async (t) => {
  const lab = await Lab.create({ name: 'e2e-touch-room' });
  t.after(() => lab.close());
  // slot A: the left half, 640×720, its screen exactly that; slot B: the right half, an 800×600 screen at 0.8 (640×480 from y = 120)
  const screenA = await lab.display({ width: 640, height: 720 });
  const screenB = await lab.display({ width: 800, height: 600 });
  await screenA.showScene('slide');
  await screenB.showScene('reference');
  const serverA = await lab.shadowServer({ display: screenA, auth: 'tls' });
  const serverB = await lab.shadowServer({ display: screenB, auth: 'tls' });
  const displayId = 'touch-room';
  const token = randomBytes(18).toString('base64url');
  const gateway = await startTestGateway({
    webRoot: publicDir, certificates: { mode: 'first-use' }, displays: [{ id: displayId, name: 'Touch room', token }],
    timeouts: { writeMs: 60_000, connectMs: 20_000, confirmMs: 20_000, tlsMs: 30_000, sessionTokenMs: 120_000 },
  });
  t.after(() => gateway.close());
  const browser = await launchChromium();
  t.after(() => browser.close());
  const kiosk = await openDisplay(browser, gateway, displayId, token);
  const { page, touch } = kiosk;

  const projected: Projected[] = [];
  for (const [name, server] of [['Alice', serverA], ['Bob', serverB]] as const) {
    const answer = await presenterApi(gateway, displayId, 'POST', {
      pin: await gateway.roomPin(displayId), name,
      target: { host: server.host, port: server.port }, credentials: { username: server.username, password: server.password },
    });
    assert.equal(answer.status, 202, JSON.stringify(answer.body));
    projected.push({ sessionId: String(answer.body.sessionId), stopToken: String(answer.body.stopToken) });
    await waitFor(`${name} on screen`, async () => (await presenterApi(gateway, displayId, 'GET', undefined, answer.body.stopToken as string)).body.state === 'active', 120_000, 250);
  }
  const [alice, bob] = projected;
  assert.ok(alice && bob);
  await waitFor('both pictures decoded', async () => (await decodedSlots(page)).join() === '0,1', 60_000, 200);

  // Bob allows control, Alice does not.
  const allowed = await presenterApi(gateway, displayId, 'PATCH', { touch: true }, bob.stopToken);
  assert.equal(allowed.status, 200, JSON.stringify(allowed.body));
  assert.equal(allowed.body.touch, true);
  await waitFor('Bob\'s mark', async () => ((await page.locator('.touch-mark').allTextContents()).join('|')) === 'Touch controls Bob’s computer', 30_000, 100);

  await park(screenA, 3, 3);
  await park(screenB, 3, 3);
  // Alice's slot: (100, 100) is her desktop's (100, 100) — but she has not allowed it
  await tapAt(touch, page, 100, 100);
  // Bob's slot: CSS (961, 361) → slot x 321 / 0.8 = 401.25 → 401, (361 − 120) / 0.8 = 301.25 → 301
  await tapAt(touch, page, 961, 361);
  await waitFor('the page sent Bob\'s tap', async () => (await sentByPage(page)).length >= 3, 10_000, 100);
  await pointerReaches(screenB, { x: 401, y: 301 }, 'Bob\'s pointer moved to the mapped pixel');
  await pointerStays(screenA, { x: 3, y: 3 }, 'Alice\'s pointer never moved');
  const sent = await sentByPage(page);
  assert.ok(sent.length >= 3 && sent.every((event) => event.slot === 1), `only Bob's slot was sent to: ${JSON.stringify(sent)}`);

  // Forced into every worker: Bob's reaches his computer, Alice's is dropped by the gateway.
  assert.equal(await forceMouse(page, 50, 60), 2);
  await pointerReaches(screenB, { x: 50, y: 60 }, 'forced input reaches the computer whose presenter allowed it');
  await pointerStays(screenA, { x: 3, y: 3 }, 'forced input does not reach the computer whose presenter did not');

  // Bob revokes: his computer is out of reach at once.
  const revoked = await presenterApi(gateway, displayId, 'PATCH', { touch: false }, bob.stopToken);
  assert.equal(revoked.body.touch, false);
  await waitFor('the mark gone', async () => (await page.locator('.touch-mark').count()) === 0, 30_000, 100);
  await forceMouse(page, 200, 200);
  await pointerStays(screenB, { x: 50, y: 60 }, 'nothing reaches Bob\'s computer after the revoke');
  assert.deepEqual(kiosk.problems, []);
});

const PATTERN_TITLE = 'Lanterna laser pattern';

test('a browser presenter: a finger on the display is a laser pointer, drawn there and on the presenter\'s preview; nothing is sent as input', { timeout: 300_000 }, async (t) => {
  const displayId = 'touch-laser';
  const token = randomBytes(18).toString('base64url');
  const gateway = await startTestGateway({ webRoot: publicDir, displays: [{ id: displayId, name: 'Laser room', token }] });
  t.after(() => gateway.close());
  const displayBrowser = await launchChromium();
  t.after(() => displayBrowser.close());
  const kiosk = await openDisplay(displayBrowser, gateway, displayId, token);
  const { page, touch } = kiosk;
  await page.evaluate(() => {
    const sent: unknown[] = [];
    (window as unknown as { laserSent: unknown[] }).laserSent = sent;
    window.addEventListener('lanterna:laser-sent', (event) => sent.push((event as CustomEvent).detail));
  });

  const presenterBrowser = await launchChromium([`--auto-select-tab-capture-source-by-title=${PATTERN_TITLE}`]);
  t.after(() => presenterBrowser.close());
  // headless Chromium captures a tab at its window's size: one size for the page and the pattern (shareScreen.test.ts)
  const presenter = await openWatchedPage(presenterBrowser, { width: 640, height: 360 });
  const pattern = await presenter.page.context().newPage();
  await pattern.setContent(`<!doctype html><html><head><title>${PATTERN_TITLE}</title></head><body style="margin:0;background:#2a6"></body></html>`);
  await presenter.page.addInitScript(() => {
    const shown: unknown[] = [];
    (window as unknown as { laserShown: unknown[] }).laserShown = shown;
    window.addEventListener('lanterna:laser-shown', (event) => shown.push((event as CustomEvent).detail));
  });
  await presenter.page.goto(`${gateway.httpUrl}/present?display=${displayId}`);
  await waitFor('the display in the list', async () => (await presenter.page.locator('.display[aria-pressed="true"]').count()) === 1, 10_000);
  await presenter.page.fill('#pin', (await gateway.roomPin(displayId)) ?? '');
  // the page loads its RDP server while a person types the PIN (warmShareWorker)
  await new Promise((resolve) => setTimeout(resolve, 2000));
  await presenter.page.click('#share');
  await outcome(presenter.page, /Laser room is showing your screen/, 120_000);
  await waitFor('the picture on the display', async () => (await page.locator('#idle').isHidden()) && (await page.locator('#session').isHidden()), 60_000, 200);
  assert.equal(await page.locator('.touch-mark').count(), 0, 'nothing of the display\'s own over the picture until someone points');
  assert.match((await presenter.page.locator('#share-preview-box figcaption').textContent()) ?? '', /red dot; a browser cannot let the display move your pointer/);
  // the presenter page asks for the laser's sequence before it draws (its first ask): give it that moment
  await waitFor('the presenter following the laser', async () => (await presenter.page.evaluate(() => performance.getEntriesByType('resource').some((entry) => entry.name.includes('/projection/laser')))), 20_000, 100);

  await touch.stroke([{ x: 400, y: 300 }, { x: 800, y: 420 }], 12);
  assert.match((await page.locator('.touch-mark').textContent()) ?? '', /^Touch points on .+ screen \(a browser cannot be controlled\)$/, 'while someone points, the display says what a touch does');
  const sent = await page.evaluate(() => (window as unknown as { laserSent: { x: number; y: number; down: boolean }[] }).laserSent);
  assert.ok(sent.length >= 3, `the display pointed: ${JSON.stringify(sent)}`);
  assert.equal(sent.at(-1)?.down, false, 'and lifted');
  assert.ok(sent.every((point) => point.x >= 0 && point.x < 1 && point.y >= 0 && point.y < 1));
  assert.ok((sent.at(-1)?.x ?? 0) > (sent[0]?.x ?? 1), 'left to right');
  assert.deepEqual(await sentByPage(page), [], 'nothing was sent as input');
  await waitFor('the presenter page drew where the display pointed', async () => {
    const shown = await presenter.page.evaluate(() => (window as unknown as { laserShown: { x: number; y: number; down: boolean }[] }).laserShown);
    return shown.length > 0 && shown.at(-1)?.down === false && shown.at(-1)?.x === sent.at(-1)?.x && shown.at(-1)?.y === sent.at(-1)?.y;
  }, 15_000, 100);
  const shown = await presenter.page.evaluate(() => (window as unknown as { laserShown: { x: number; y: number; down: boolean }[] }).laserShown);
  const first = sent[0];
  assert.deepEqual(shown[0], first && { x: first.x, y: first.y, down: first.down }, 'the first point as the display sent it');
  assert.equal(await presenter.page.locator('#share-preview-frame canvas.laser-trail').count(), 1);
  assert.deepEqual(kiosk.problems, []);
  assert.deepEqual(presenter.problems, []);
});
