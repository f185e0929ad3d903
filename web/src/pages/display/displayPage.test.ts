// The display page in Chromium against an in-test stand-in of the gateway's
// sockets (docs/kiosk-protocol.md). Set LANTERNA_WEB_SCREENSHOTS=<dir> to keep
// screenshots of each state.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { GatewayStandIn, openWatchedPage, publicDir, servePagesInChromium, waitFor } from '@lanterna/testkit';

const display = { id: 'room-1', name: 'Room 1', token: 'display-token-1', location: 'Floor 3, east wing' };
const screenshots = process.env.LANTERNA_WEB_SCREENSHOTS;

const pages = servePagesInChromium(publicDir);

async function openDisplay(t: { after: (fn: () => Promise<void>) => void }, path: string, viewport = { width: 1280, height: 720 }): Promise<{ page: Page; standIn: GatewayStandIn }> {
  const standIn = new GatewayStandIn(pages.server.server, { display });
  const { page, problems } = await openWatchedPage(pages.browser, viewport);
  t.after(async () => {
    await page.context().close();
    standIn.close();
  });
  t.after(() => {
    // The failed upgrades of a gateway that is gone are the browser's own log lines, not the page's errors.
    const real = problems.filter((p) => !/WebSocket connection to .* failed/.test(p));
    assert.deepEqual(real, [], 'no console error or uncaught exception in the page');
    return Promise.resolve();
  });
  await page.goto(`${pages.server.origin}${path}`);
  return { page, standIn };
}

async function shoot(page: Page, name: string): Promise<void> {
  if (screenshots === undefined) return;
  mkdirSync(screenshots, { recursive: true });
  await page.screenshot({ path: join(screenshots, `${name}.png`) });
}

async function waitForText(page: Page, selector: string, pattern: RegExp, timeout = 10_000): Promise<string> {
  const locator = page.locator(selector);
  const deadline = Date.now() + timeout;
  let last = '';
  while (Date.now() < deadline) {
    last = (await locator.textContent()) ?? '';
    if (pattern.test(last) && (await locator.isVisible())) return last;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  assert.fail(`${selector} never matched ${String(pattern)} within ${timeout} ms (last: ${JSON.stringify(last)})`);
}

void test('idle screen shows the display name; the token moves from the URL to localStorage', async (t) => {
  const { page, standIn } = await openDisplay(t, `/display/${display.id}#token=${display.token}`);
  await waitForText(page, '#status-text', /^Ready/);
  assert.equal(await page.locator('#display-name').textContent(), 'Room 1');
  assert.equal(await page.locator('#display-location').textContent(), 'Floor 3, east wing');
  assert.match((await page.locator('#how').textContent()) ?? '', /To present here, choose “Room 1”/);
  assert.deepEqual(standIn.hellos, [{ type: 'hello', protocol: 1, token: display.token, client: 'lanterna-web/0.1', features: ['room', 'signage', 'display', 'sound', 'slots'] }]);
  assert.equal(await page.locator('#room').isVisible(), false, 'no PIN until the gateway sends one');
  const state = await page.evaluate(() => ({
    hash: location.hash,
    stored: localStorage.getItem('lanterna.display.room-1.token'),
    scrolls: document.documentElement.scrollWidth > innerWidth || document.documentElement.scrollHeight > innerHeight,
    isolated: crossOriginIsolated,
  }));
  assert.deepEqual(state, { hash: '', stored: display.token, scrolls: false, isolated: true });
  await shoot(page, 'idle');
  // A reload without the fragment still authenticates from localStorage.
  await page.reload();
  await waitForText(page, '#status-text', /^Ready/);
  assert.equal(standIn.hellos.length, 2);
});

void test('a wrong token is said in plain words, and the page keeps retrying', async (t) => {
  const { page } = await openDisplay(t, `/display/${display.id}#token=wrong`);
  await waitForText(page, '#problem', /This display’s token is not valid/);
  await waitForText(page, '#status-text', /^Reconnecting to the gateway in \d+ s…$/);
  await shoot(page, 'wrong-token');
});

void test('gateway gone: "reconnecting" on screen, then back to idle when it returns', async (t) => {
  const { page, standIn } = await openDisplay(t, `/display/${display.id}#token=${display.token}`);
  await waitForText(page, '#status-text', /^Ready/);
  standIn.goAway();
  await waitForText(page, '#status-text', /^Reconnecting to the gateway in \d+ s…$/);
  await waitForText(page, '#problem', /connection to the gateway was lost/);
  await shoot(page, 'reconnecting');
  // Stay away until the page has retried and been refused at least once.
  await waitFor('a refused retry', () => standIn.refusedWhileAway >= 1, 15_000);
  standIn.comeBack();
  await waitForText(page, '#status-text', /^Ready/, 15_000);
  assert.equal(await page.locator('#problem').isVisible(), false);
  assert.equal(standIn.onlineControls, 1);
});

void test('project: data socket opened with the session token, "Connecting to …", decoder absence said plainly', async (t) => {
  const { page, standIn } = await openDisplay(t, `/display/${display.id}?hud=1#token=${display.token}`);
  // A build without wasm/build/ writes this manifest; the real engine is proven by e2e/.
  await page.route('**/engine.json', (route) => route.fulfill({ json: { available: false } }));
  await page.reload();
  await waitForText(page, '#status-text', /^Ready/);
  standIn.endDelayMs = 1500;
  standIn.project({ sessionId: 's-1', sessionToken: 'k-1', target: { name: 'Lab shadow', host: '127.0.0.1', port: 3389 } });
  await waitForText(page, '#session-title', /^Connecting to Lab shadow…$/);
  await waitForText(page, '#session-problem', /RDP decoder is not loaded yet/);
  await shoot(page, 'decoder-missing');
  // Back to idle once the gateway confirms the end, with the reason kept on screen.
  await waitForText(page, '#problem', /Could not show “Lab shadow”: the RDP decoder is not loaded yet/);
  await waitForText(page, '#status-text', /^Ready/);
  const data = standIn.dataSockets[0];
  assert.ok(data, 'a data socket was opened');
  assert.equal(data.sessionId, 's-1');
  assert.deepEqual(data.texts, [{ type: 'open', token: 'k-1' }, { type: 'close' }]);
  assert.equal(await page.locator('.hud').isVisible(), true);
});

void test('forced Canvas2D renderer shows its warning; "h" toggles the HUD', async (t) => {
  const { page } = await openDisplay(t, `/display/${display.id}?renderer=canvas2d#token=${display.token}`);
  await waitForText(page, '.renderer-warning', /WebGL2 is not available/);
  assert.equal(await page.locator('.hud').isVisible(), false);
  await page.keyboard.press('h');
  assert.equal(await page.locator('.hud').isVisible(), true);
  await waitForText(page, '[data-hud="renderer"]', /^canvas2d$/, 3000);
  await shoot(page, 'canvas2d-hud');
  await page.keyboard.press('h');
  assert.equal(await page.locator('.hud').isVisible(), false);
});

void test('room: the PIN in groups, the presenter page\'s address and its QR code; hidden while the gateway is away', async (t) => {
  const { page, standIn } = await openDisplay(t, `/display/${display.id}#token=${display.token}`, { width: 1920, height: 1080 });
  await waitForText(page, '#status-text', /^Ready/);
  const presenterUrl = 'https://gateway.example:8443/present?display=room-1';
  standIn.sendControl({ type: 'room', pin: '048213', expiresAt: Date.now() + 600_000, presenterUrl });
  await waitForText(page, '#room-pin', /^048213$/);
  assert.deepEqual(await page.locator('#room-pin span').allTextContents(), ['048', '213'], 'grouped as people read it');
  assert.equal(await page.locator('#room-url').textContent(), 'https://gateway.example:8443/present', 'typed without the preselection');
  assert.equal(await page.locator('#room-qr-code svg').getAttribute('data-text'), presenterUrl, 'the QR code carries the display too');
  assert.equal(await page.locator('#room-qr').isVisible(), true);
  await shoot(page, 'room-1920x1080');
  await page.setViewportSize({ width: 1280, height: 720 });
  const scrolls = await page.evaluate(() => document.documentElement.scrollHeight > innerHeight || document.documentElement.scrollWidth > innerWidth);
  assert.equal(scrolls, false);
  await shoot(page, 'room-1280x720');
  standIn.sendControl({ type: 'room', pin: '770001', expiresAt: Date.now() + 600_000, presenterUrl });
  await waitForText(page, '#room-pin', /^770001$/);
  standIn.goAway();
  await waitForText(page, '#status-text', /^Reconnecting/);
  assert.equal(await page.locator('#room').isVisible(), false, 'a PIN that may have rotated is not shown');
  assert.equal(await page.locator('#room-qr').isVisible(), false);
});

void test('display: an admin\'s rename and move show on the open page without a reconnect', async (t) => {
  const { page, standIn } = await openDisplay(t, `/display/${display.id}#token=${display.token}`, { width: 1920, height: 1080 });
  await waitForText(page, '#status-text', /^Ready/);
  assert.ok((standIn.hellos.at(-1) as { features?: string[] } | undefined)?.features?.includes('display'), 'the page asks for display updates');
  standIn.sendControl({ type: 'display', display: { id: display.id, name: 'Boardroom 2.01', location: 'Floor 2, west wing' } });
  await waitForText(page, '#display-name', /^Boardroom 2\.01$/);
  await waitForText(page, '#display-location', /^Floor 2, west wing$/);
  assert.match(await page.locator('#status-text').textContent() ?? '', /^Ready/, 'still connected: no reconnect was needed');
});

void test('room: the idle screen says how many can present, and in a moderated room that requests need approval (the badge too)', async (t) => {
  const { page, standIn } = await openDisplay(t, `/display/${display.id}#token=${display.token}`, { width: 1920, height: 1080 });
  await page.route('**/engine.json', (route) => route.fulfill({ json: { available: false } }));
  await page.reload();
  await waitForText(page, '#status-text', /^Ready/);
  assert.ok((standIn.hellos.at(-1) as { features?: string[] } | undefined)?.features?.includes('slots'), 'the page announces several sources');
  standIn.sendControl({ type: 'room', pin: '120034', expiresAt: Date.now() + 600_000, presenterUrl: 'https://gateway.example:8443/present?display=room-1' });
  standIn.sendControl({ type: 'layout', layout: 'grid', large: 0, mode: 'open', slots: [] });
  await waitForText(page, '#room-mode', /^Up to 4 people can present side by side/);
  standIn.sendControl({ type: 'layout', layout: 'grid', large: 0, mode: 'moderated', slots: [] });
  await waitForText(page, '#room-mode', /need the moderator’s approval/);
  await shoot(page, 'room-moderated-1920x1080');
  standIn.endDelayMs = 15_000;
  standIn.project({ sessionId: 's-sign', sessionToken: 'k-sign', target: { name: 'Lobby loop', host: '127.0.0.1', port: 3389 }, signage: true });
  await page.locator('#signage-room').waitFor({ state: 'visible', timeout: 5000 });
  assert.equal(await page.locator('#signage-mode').textContent(), 'Requests need the moderator’s approval');
});

void test('signage: the room PIN stays in a corner badge over the display\'s own signage, never over a presenter\'s session', async (t) => {
  const { page, standIn } = await openDisplay(t, `/display/${display.id}#token=${display.token}`, { width: 1920, height: 1080 });
  // Without the engine a session ends on its own; the badge follows the `project` that started it.
  await page.route('**/engine.json', (route) => route.fulfill({ json: { available: false } }));
  await page.reload();
  await waitForText(page, '#status-text', /^Ready/);
  const presenterUrl = 'https://gateway.example:8443/present?display=room-1';
  standIn.sendControl({ type: 'room', pin: '048213', expiresAt: Date.now() + 600_000, presenterUrl });
  await waitForText(page, '#room-pin', /^048213$/);
  assert.equal(await page.locator('#signage-room').isVisible(), false, 'no badge on the idle screen: the PIN is there already');
  standIn.endDelayMs = 15_000;
  standIn.project({ sessionId: 's-sign', sessionToken: 'k-sign', target: { name: 'Lobby loop', host: '127.0.0.1', port: 3389 }, signage: true });
  await waitForText(page, '#session-title', /^Connecting to Lobby loop…$/);
  await page.locator('#signage-room').waitFor({ state: 'visible', timeout: 5000 });
  assert.equal(await page.locator('#signage-pin').textContent(), '048213');
  assert.equal(await page.locator('#signage-url').textContent(), 'Present here: https://gateway.example:8443/present');
  standIn.sendControl({ type: 'room', pin: '550123', expiresAt: Date.now() + 600_000, presenterUrl });
  await waitForText(page, '#signage-pin', /^550123$/);
  standIn.project({ sessionId: 's-presenter', sessionToken: 'k-presenter', target: { name: 'Ada’s laptop', host: '127.0.0.1', port: 3389 } });
  await waitForText(page, '#session-title', /^Connecting to Ada’s laptop…$/);
  assert.equal(await page.locator('#signage-room').isVisible(), false, 'a presenter\'s session has no badge');
});
