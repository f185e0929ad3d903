// The admin page (/admin) in Debian's Chromium against the real gateway, a
// real FreeRDP shadow server (NLA) and the kiosk display page: create a
// display and open the kiosk with the address the page shows once; rename and
// move it; project to it and see the session live; end it from the page (the
// kiosk says an administrator stopped it); the server comes back with another
// certificate on the same address, the kiosk is refused, the page shows the
// changed pin, accepting it lets the next projection through; give the
// display a new token (the kiosk is shut out until opened with the new
// address); read the audit log with the projection's entries; delete the
// display. LANTERNA_E2E_SCREENSHOTS=<dir> keeps `admin-*` PNGs at 1920×1080
// and 1280×720.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { Lab } from '@lanterna/lab';
import { launchChromium, openWatchedPage, publicDir, startTestGateway, waitFor, type TestGateway } from '@lanterna/testkit';
import { keepScreenshot } from './keepScreenshot.js';
import { waitForWords } from './pageText.js';

const SIZES = [{ width: 1920, height: 1080 }, { width: 1280, height: 720 }] as const;

async function projectAsAdmin(gateway: TestGateway, body: unknown): Promise<void> {
  const response = await fetch(`${gateway.httpUrl}/v1/admin/sessions`, {
    method: 'POST', headers: { authorization: `Bearer ${gateway.adminToken}`, 'content-type': 'application/json' }, body: JSON.stringify(body),
  });
  assert.equal(response.status, 202, `the admin projection was accepted (${await response.text()})`);
}

/** The admin page at both sizes: kept for people to look at, and no sideways scrolling or text spilling out of its table cell. */
async function shootBothSizes(page: Page, name: string): Promise<void> {
  for (const size of SIZES) {
    await page.setViewportSize(size);
    const layout = await page.evaluate(() => ({
      sideways: document.documentElement.scrollWidth - document.documentElement.clientWidth,
      // A card scrolls sideways (overflow-x: auto) rather than widen the page: that hides a column or a button just as well.
      cardsScrolling: [...document.querySelectorAll('.card')].filter((card) => card.getClientRects().length > 0 && card.scrollWidth > card.clientWidth + 1).map((card) => {
        const edge = card.getBoundingClientRect().right;
        const beyond = [...card.querySelectorAll('*')].filter((inner) => inner.getBoundingClientRect().right > edge + 1).map((inner) => `${inner.tagName.toLowerCase()}${inner.id ? `#${inner.id}` : ''}.${inner.className}`);
        return `${card.querySelector('h2')?.textContent ?? '?'} (${card.scrollWidth} > ${card.clientWidth}: ${beyond.slice(0, 4).join(', ')})`;
      }),
      spilling: [...document.querySelectorAll('td, th, button')].filter((element) => element.scrollWidth > element.clientWidth + 1).map((element) => element.textContent),
      smallest: Math.min(...[...document.querySelectorAll('td, th, button, label, p, h2')].filter((element) => element.getClientRects().length > 0).map((element) => parseFloat(getComputedStyle(element).fontSize))),
    }));
    assert.ok(layout.sideways <= 0, `${name} ${size.width}×${size.height}: no sideways scrolling (${layout.sideways} px)`);
    assert.deepEqual(layout.cardsScrolling, [], `${name} ${size.width}×${size.height}: every card shows its whole table`);
    assert.deepEqual(layout.spilling, [], `${name} ${size.width}×${size.height}: no text cut off in a cell or button`);
    assert.ok(layout.smallest >= 12, `${name} ${size.width}×${size.height}: no text under 12 px (${layout.smallest})`);
    await keepScreenshot(page, `${name}-${size.width}x${size.height}`, { fullPage: true });
  }
  await page.setViewportSize(SIZES[0]);
}

test('admin page: displays made, renamed, moved, re-tokened and deleted; a live session ended; a changed certificate seen and accepted; the audit log', { timeout: 300_000 }, async (t) => {
  const lab = await Lab.create({ name: 'e2e-admin' });
  t.after(() => lab.close());
  const labDisplay = await lab.display({ width: 1280, height: 720 });
  await labDisplay.showScene('slide');
  const first = await lab.shadowServer({ display: labDisplay, auth: 'nla' });
  const gateway = await startTestGateway({ webRoot: publicDir, certificates: { mode: 'first-use' } });
  t.after(() => gateway.close());
  const browser = await launchChromium();
  t.after(() => browser.close());
  const admin = await openWatchedPage(browser, SIZES[0]);
  const page = admin.page;
  page.on('dialog', (dialog) => { void dialog.accept(); });
  await page.goto(`${gateway.httpUrl}/admin`);
  await page.fill('#token', gateway.adminToken);
  await page.press('#token', 'Enter');
  await page.locator('#console').waitFor();

  // Create: the page shows the display's address with its token once; the kiosk opens it.
  await page.fill('#display-form input[name="name"]', 'Board room');
  await page.fill('#display-form input[name="location"]', 'Floor 2, east');
  await page.fill('#display-form input[name="id"]', 'board-room');
  await page.click('#display-submit');
  const firstUrl = await waitForSecret(page);
  assert.ok(firstUrl.startsWith(`${gateway.httpUrl}/display/board-room#token=`), firstUrl);
  await page.click('#secret-done');
  const kiosk = await openWatchedPage(browser, SIZES[1]);
  await kiosk.page.goto(firstUrl);
  await waitForWords(kiosk.page, /Ready — waiting for a presenter/, 20_000);
  const row = page.locator('#displays tbody tr', { hasText: 'board-room' });
  await row.locator('text=online').waitFor({ timeout: 10_000 });

  // Rename and move.
  await page.getByRole('button', { name: 'Edit Board room' }).click();
  await page.fill('#display-form input[name="name"]', 'Boardroom 2.01');
  await page.fill('#display-form input[name="location"]', 'Floor 2, west wing');
  await page.click('#display-submit');
  await row.locator('text=Boardroom 2.01').waitFor();
  await row.locator('text=Floor 2, west wing').waitFor();
  // The open kiosk follows at once (the gateway's `display` message), without a reload.
  await kiosk.page.locator('#display-name', { hasText: 'Boardroom 2.01' }).waitFor({ timeout: 10_000 });
  await kiosk.page.locator('#display-location', { hasText: 'Floor 2, west wing' }).waitFor({ timeout: 10_000 });

  // A projection, live on the page; the administrator ends it and the kiosk says so.
  const credentials = { username: first.username, password: first.password };
  await projectAsAdmin(gateway, { displayId: 'board-room', target: { host: first.host, port: first.port, name: 'Lab laptop' }, credentials });
  const live = page.locator('#sessions tbody tr', { hasText: 'Boardroom 2.01' });
  await live.locator('text=relaying').waitFor({ timeout: 90_000 });
  await live.locator('text=/[KM]iB/').waitFor({ timeout: 30_000 });
  assert.match(await live.textContent() ?? '', /Lab laptop/);
  const pinKey = `${first.host}:${first.port}`;
  await page.locator('#pins tbody tr', { hasText: pinKey }).waitFor();
  await shootBothSizes(page, 'admin-live-session');
  await live.getByRole('button', { name: 'End the session on Boardroom 2.01' }).click();
  await page.locator('#sessions-empty').waitFor({ timeout: 15_000 });
  await waitFor('the kiosk back on its idle screen, saying who ended the presentation', async () => /Last presentation: stopped by an administrator\./.test(await kiosk.page.locator('#problem').textContent() ?? ''), 15_000, 100);
  await waitForWords(kiosk.page, /Ready — waiting for a presenter/, 15_000);
  await keepScreenshot(kiosk.page, 'admin-ended-kiosk-1280x720');

  // The server comes back on the same address with another certificate: refused, and the page shows the change.
  await first.child.stop();
  const otherLab = await Lab.create({ name: 'e2e-admin-other-cert' });
  t.after(() => otherLab.close());
  const otherDisplay = await otherLab.display({ width: 1280, height: 720 });
  await otherDisplay.showScene('reference');
  const second = await otherLab.shadowServer({ display: otherDisplay, auth: 'nla', port: first.port });
  assert.notDeepEqual(second.certificateDer, first.certificateDer, 'a different certificate');
  await projectAsAdmin(gateway, { displayId: 'board-room', target: { host: second.host, port: second.port, name: 'Lab laptop' }, credentials: { username: second.username, password: second.password } });
  await waitFor('the kiosk told the certificate changed', async () => /certificate/i.test(await kiosk.page.locator('#problem').textContent() ?? ''), 60_000, 100);
  const pinRow = page.locator('#pins tbody tr', { hasText: pinKey });
  await pinRow.locator('button', { hasText: 'Accept the new certificate' }).waitFor({ timeout: 15_000 });
  assert.match(await pinRow.locator('td.changed').textContent() ?? '', /\S/, 'the new fingerprint is shown');
  await shootBothSizes(page, 'admin-changed-pin');
  await pinRow.getByRole('button', { name: `Clear the pin of ${pinKey}` }).click();
  await waitFor('the changed pin gone', async () => (await pinRow.locator('button', { hasText: 'Accept the new certificate' }).count()) === 0, 15_000, 100);
  await projectAsAdmin(gateway, { displayId: 'board-room', target: { host: second.host, port: second.port, name: 'Lab laptop' }, credentials: { username: second.username, password: second.password } });
  await live.locator('text=relaying').waitFor({ timeout: 90_000 });
  await waitFor('the picture on the kiosk', async () => (await kiosk.page.locator('#idle').isHidden()) && (await kiosk.page.locator('#session').isHidden()), 60_000, 200);
  await live.getByRole('button', { name: 'End the session on Boardroom 2.01' }).click();
  await page.locator('#sessions-empty').waitFor({ timeout: 15_000 });

  // A new token: the kiosk is shut out until it is opened with the new address.
  await page.getByRole('button', { name: 'New token for Boardroom 2.01' }).click();
  const secondUrl = await waitForSecret(page);
  assert.notEqual(secondUrl, firstUrl);
  await page.click('#secret-done');
  await waitFor('the kiosk refused with its old token', async () => /token/i.test(await kiosk.page.locator('#problem').textContent() ?? ''), 15_000, 100);
  await kiosk.page.goto(secondUrl);
  await kiosk.page.reload();
  await waitForWords(kiosk.page, /Ready — waiting for a presenter/, 20_000);
  await row.locator('text=online').waitFor({ timeout: 10_000 });

  // The audit log tells the story, the projection's entries with their details.
  const audit = page.locator('#audit tbody');
  await audit.locator('text=display token replaced').waitFor({ timeout: 10_000 });
  const actions = await audit.locator('tr td:nth-child(3)').allTextContents();
  for (const expected of ['display created', 'display renamed', 'display moved', 'projection requested', 'projection started', 'session ended by an admin', 'projection ended', 'certificate changed', 'pin cleared', 'display token replaced']) {
    assert.ok(actions.includes(expected), `the audit log has "${expected}" (${actions.join(', ')})`);
  }
  const started = audit.locator('tr', { hasText: 'projection started' }).first();
  assert.match(await started.textContent() ?? '', /setupMs: \d+/, 'a projection\'s set-up time is in its entry');
  assert.match(await audit.locator('tr', { hasText: 'projection requested' }).first().textContent() ?? '', new RegExp(`target: ${pinKey.replaceAll('.', '\\.')}`));
  await shootBothSizes(page, 'admin-audit');

  // Delete: the display leaves the table and its kiosk is shut out.
  await page.getByRole('button', { name: 'Delete Boardroom 2.01' }).click();
  await waitFor('the display gone from the table', async () => (await row.count()) === 0, 15_000, 100);
  await waitFor('the kiosk refused', async () => /token/i.test(await kiosk.page.locator('#problem').textContent() ?? ''), 15_000, 100);
  await audit.locator('text=display deleted').waitFor({ timeout: 10_000 });

  // Refused projections, 401s for the kiosk's old token: Chromium logs each refused fetch or socket itself.
  assert.deepEqual(admin.problems, [], 'no console error or uncaught exception in the admin page');
});

async function waitForSecret(page: Page): Promise<string> {
  await page.locator('#secret-url', { hasText: '/display/' }).waitFor();
  return (await page.locator('#secret-url').textContent()) ?? '';
}
