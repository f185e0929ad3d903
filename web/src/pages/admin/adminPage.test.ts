// The admin page in Debian's Chromium against the real gateway (in process,
// its embedded broker store) with a kiosk and an RDP peer: sign in, add a
// display (token shown once), see it online and its session live with
// figures, end the session, forget a certificate pin, read the audit log —
// with the keyboard where a person would, and no console error (the CSP
// forbids inline code, so a violation would show here).
// LANTERNA_E2E_SCREENSHOTS=<dir> keeps screenshots at 1920×1080 and 1280×720.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { buildConnectionRequest, PROTOCOL } from '@lanterna/protocol';
import { connectControl, launchChromium, openData, openWatchedPage, startFaultyPeer, startTestGateway, type FaultyPeer, type TestGateway } from '@lanterna/testkit';

const screenshots = process.env.LANTERNA_E2E_SCREENSHOTS;

let browser: Browser;
let gateway: TestGateway;
let peer: FaultyPeer;

before(async () => {
  peer = await startFaultyPeer('echo');
  gateway = await startTestGateway({
    displays: [{ id: 'lobby', name: 'Lobby screen', token: 'lobby-token-0123456789abcdef' }],
    certificates: { mode: 'first-use' },
  });
  browser = await launchChromium();
});

after(async () => {
  await browser.close();
  await gateway.close();
  await peer.close();
});

async function shoot(page: Page, name: string): Promise<void> {
  if (screenshots === undefined) return;
  mkdirSync(screenshots, { recursive: true });
  await page.screenshot({ path: join(screenshots, `${name}.png`), fullPage: false });
}

async function signIn(page: Page, token: string): Promise<void> {
  await page.goto(`${gateway.httpUrl}/admin`);
  await page.locator('#token').focus();
  await page.keyboard.type(token);
  await page.keyboard.press('Enter');
}

test('sign in, add a display, see it online with a live session, end it, clear a pin, read the audit log', { timeout: 120_000 }, async (t) => {
  const { page, problems } = await openWatchedPage(browser, { width: 1920, height: 1080 });
  t.after(() => page.context().close());
  page.on('dialog', (dialog) => { void dialog.accept(); });

  await signIn(page, 'not-the-admin-token-0123');
  await page.locator('#sign-in-error', { hasText: 'not the admin token' }).waitFor();
  await shoot(page, 'admin-sign-in-1920x1080');
  await page.locator('#token').fill('');
  await page.locator('#token').focus();
  await page.keyboard.type(gateway.adminToken);
  await page.keyboard.press('Enter');
  await page.locator('#console').waitFor();
  assert.equal(await page.evaluate(() => document.cookie), '', 'no cookie: the token lives in the tab and travels in a header');

  // Add a display with the keyboard: the token is shown once, in the display page's address.
  await page.locator('#display-form input[name="name"]').focus();
  await page.keyboard.type('Board room');
  await page.keyboard.press('Tab');
  await page.keyboard.type('Floor 2, east');
  await page.keyboard.press('Tab');
  await page.keyboard.type('board-room');
  await page.keyboard.press('Enter');
  await page.locator('#secret-url', { hasText: '/display/' }).waitFor();
  const url = await page.locator('#secret-url').textContent() ?? '';
  const token = decodeURIComponent(/#token=(.+)$/.exec(url)?.[1] ?? '');
  assert.match(url, /\/display\/board-room#token=/);
  assert.ok(token.length >= 32);
  const row = page.locator('#displays tbody tr', { hasText: 'Board room' });
  await row.locator('text=offline').waitFor();

  // The display comes online and is projected: the page shows it live with its figures.
  const control = await connectControl(gateway.url, 'board-room', token, undefined, { features: ['sound'] });
  t.after(() => control.close());
  assert.deepEqual(await control.next('sound'), { type: 'sound', volume: 100, muted: false });
  await row.locator('text=online').waitFor();
  // Its panel (a 4K screen at 200 % in the browser): the row shows it and the desktop its sessions ask for.
  control.socket.send(JSON.stringify({ type: 'panel', panel: { cssWidth: 1920, cssHeight: 1080, devicePixelRatio: 2, width: 3840, height: 2160, orientation: 'landscape' } }));
  await row.locator('text=3840×2160 landscape (×2) → 3840×2160 at 200 %').waitFor({ timeout: 15_000 });
  const projected = await fetch(`${gateway.httpUrl}/v1/admin/sessions`, {
    method: 'POST', headers: { authorization: `Bearer ${gateway.adminToken}` },
    body: JSON.stringify({ displayId: 'board-room', target: { host: '127.0.0.1', port: peer.port, name: 'Ada’s laptop' } }),
  });
  assert.equal(projected.status, 202);
  const message = await control.next('project');
  const data = await openData(gateway.url, String(message.sessionId), String(message.sessionToken));
  data.socket.send(buildConnectionRequest({ requestedProtocols: PROTOCOL.SSL }));
  await data.queue.nextText('secured');
  await data.queue.nextBinary();
  for (let i = 0; i < 20; i += 1) {
    const pdu = Buffer.alloc(1000, i);
    pdu.set([0x03, 0x00, 0x03, 0xe8, 0x02, 0xf0, 0x80], 0);
    data.socket.send(pdu);
    await data.queue.nextBinary();
  }
  const live = page.locator('#sessions tbody tr', { hasText: 'Board room' });
  await live.locator('text=relaying').waitFor();
  await live.locator('text=/kB/').waitFor({ timeout: 15_000 });
  assert.match(await live.textContent() ?? '', /Ada’s laptop \(admin/);
  // The display says it plays sound (its figures); the page shows it, and its volume and mute reach the display.
  control.socket.send(JSON.stringify({ type: 'figures', sessionId: message.sessionId, intervalMs: 1000, presents: 10, frames: 8, messages: 20, bytes: 20_000, sound: { playing: true, state: 'running', delayMs: 92 } }));
  await live.locator('[data-figure="sound"]', { hasText: 'playing' }).waitFor({ timeout: 15_000 });
  // Frames shown: the presents that brought new pixels, not the two that only moved the pointer.
  assert.equal((await live.locator('[data-figure="frames"]').textContent())?.trim(), '8');
  assert.match(await live.locator('[data-figure="frames"]').getAttribute('title') ?? '', /^The display showed 8 new pictures a second in 10 draws/);
  await row.getByRole('button', { name: 'Quieter on Board room' }).click();
  assert.deepEqual(await control.next('sound'), { type: 'sound', volume: 90, muted: false });
  await row.locator('[data-figure="volume"]', { hasText: '90 %' }).waitFor();
  await row.getByRole('button', { name: 'Mute Board room' }).click();
  assert.deepEqual(await control.next('sound'), { type: 'sound', volume: 90, muted: true });
  await row.locator('[data-figure="volume"]', { hasText: 'muted (90 %)' }).waitFor();
  await page.locator('#pins tbody tr', { hasText: `127.0.0.1:${peer.port}` }).waitFor();
  // A pin nobody has used for twelve days (a laptop that left the building) says so, and a pin the gateway
  // never saw used since it began noting uses says that: both kept beside the pin file in the state dir.
  const pinPath = join(gateway.stateDir, 'known-targets.json');
  const pinned = JSON.parse(readFileSync(pinPath, 'utf8')) as Record<string, string>;
  const fingerprint = pinned[`127.0.0.1:${peer.port}`] ?? '';
  writeFileSync(pinPath, JSON.stringify({ ...pinned, '10.0.0.9:3389': fingerprint, '10.0.0.10:3389': fingerprint }));
  const usedPath = join(gateway.stateDir, 'known-targets.used.json');
  const used = JSON.parse(readFileSync(usedPath, 'utf8')) as Record<string, number>;
  const twelveDaysAgo = Date.now() - 12 * 86_400_000 - 3_600_000;
  writeFileSync(usedPath, JSON.stringify({ ...used, '10.0.0.9:3389': twelveDaysAgo }));
  const stale = page.locator('#pins tbody tr', { hasText: '10.0.0.9:3389' });
  await stale.locator('td', { hasText: '12 days ago' }).waitFor({ timeout: 15_000 });
  assert.equal(await stale.locator('td', { hasText: '12 days ago' }).getAttribute('title'), `Last used by a session at ${await page.evaluate((at) => `${new Date(at).toLocaleDateString()} ${new Date(at).toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit', second: '2-digit' })}`, twelveDaysAgo)}`);
  await page.locator('#pins tbody tr', { hasText: '10.0.0.10:3389' }).locator('td', { hasText: 'not yet' }).waitFor();
  // Each width a person may open it at, with a configuration-managed display (its note was cut off at 1440 px) and a live session.
  for (const size of [{ width: 1920, height: 1080 }, { width: 1440, height: 900 }, { width: 1280, height: 720 }, { width: 820, height: 1180 }]) {
    await page.setViewportSize(size);
    await shoot(page, `admin-${size.width}x${size.height}`);
    const layout = await page.evaluate(() => ({
      sideways: document.documentElement.scrollWidth - document.documentElement.clientWidth,
      cut: [...document.querySelectorAll('#console td, #console th, #console button')].filter((element) => element.getClientRects().length > 0).flatMap((element) => {
        const box = element.getBoundingClientRect();
        const cardBox = element.closest('.card')?.getBoundingClientRect();
        const outside = box.left < -0.5 || box.right > document.documentElement.clientWidth + 0.5 || (cardBox !== undefined && box.right > cardBox.right + 0.5);
        return element.scrollWidth > element.clientWidth + 1 || outside ? [`${element.tagName.toLowerCase()} "${element.textContent.slice(0, 40)}"`] : [];
      }),
    }));
    assert.ok(layout.sideways <= 0, `no sideways scrolling at ${size.width} px (${layout.sideways} px)`);
    assert.deepEqual(layout.cut, [], `nothing cut off or outside its card at ${size.width} px`);
  }
  await page.setViewportSize({ width: 1920, height: 1080 });

  // End the session from the page: the kiosk's data socket hears it.
  await live.getByRole('button', { name: /End the session on Board room/ }).click();
  assert.equal((await data.queue.nextText('ended')).reason, 'stopped');
  await page.locator('#sessions-empty').waitFor();

  // Forget the pin; the audit log tells the story, newest first.
  for (const key of [`127.0.0.1:${peer.port}`, '10.0.0.9:3389', '10.0.0.10:3389']) {
    await page.getByRole('button', { name: `Clear the pin of ${key}` }).click();
    await page.locator('#pins tbody tr', { hasText: key }).waitFor({ state: 'detached' });
  }
  await page.locator('#pins-empty').waitFor();
  const audit = page.locator('#audit tbody');
  await audit.locator('text=pin cleared').first().waitFor();
  const actions = await audit.locator('tr td:nth-child(3)').allTextContents();
  for (const expected of ['volume or mute changed', 'pin cleared', 'session ended by an admin', 'projection ended', 'projection started', 'projection requested', 'display created']) {
    assert.ok(actions.includes(expected), `the audit log has "${expected}" (${actions.join(', ')})`);
  }
  // The wrong token at sign-in is answered 401, which Chromium logs itself.
  assert.deepEqual(problems.filter((problem) => !/status of 401/.test(problem)), [], 'no console error or uncaught exception in the page');
});
