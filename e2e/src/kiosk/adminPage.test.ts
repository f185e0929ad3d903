// The admin page (/admin) in Debian's Chromium against the real gateway, a
// real FreeRDP shadow server (NLA) and the kiosk display page: create a
// display and open the kiosk with the address the page shows once; rename and
// move it; project to it and see the session live; end it from the page (the
// kiosk says an administrator stopped it); the server comes back with another
// certificate on the same address, the kiosk is refused, the page shows the
// changed pin, accepting it lets the next projection through; give the
// display a new token (the kiosk is shut out until opened with the new
// address); read the audit log with the projection's entries; delete the
// display. The live view's figures are checked against what the kiosk page
// itself reported on its control socket (`figures`, read off the wire), and
// the page's layout at 1920, 1440, 1280 and a tablet's 820 px: no sideways
// scrolling, no cell whose text is cut off, every cell and button inside the
// window. LANTERNA_E2E_SCREENSHOTS=<dir> keeps `admin-*` PNGs at each width.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page, WebSocket as PageSocket } from 'playwright-core';
import { Lab } from '@lanterna/lab';
import { launchChromium, openWatchedPage, publicDir, startTestGateway, waitFor, type TestGateway } from '@lanterna/testkit';
import { keepScreenshot } from './keepScreenshot.js';
import { waitForWords } from './pageText.js';
import { labScene } from './labScene.js';

const SIZES = [{ width: 1920, height: 1080 }, { width: 1440, height: 900 }, { width: 1280, height: 720 }, { width: 820, height: 1180 }] as const;
const KIOSK_SIZE = { width: 1280, height: 720 } as const;

/** One `figures` message the kiosk page sent, and when the test saw it leave. */
interface SentFigures { at: number; sessionId: string; intervalMs: number; presents: number; frames?: number; messages: number; bytes: number }

/** Records every `figures` report the page sends on its control socket (what the gateway is told), from the wire. */
function recordFigures(page: Page): SentFigures[] {
  const sent: SentFigures[] = [];
  page.on('websocket', (socket: PageSocket) => {
    if (!socket.url().includes('/control')) return;
    socket.on('framesent', ({ payload }) => {
      if (typeof payload !== 'string') return;
      const message = JSON.parse(payload) as Partial<SentFigures> & { type?: string };
      if (message.type === 'figures') sent.push({ ...(message as SentFigures), at: Date.now() });
    });
  });
  return sent;
}

async function projectAsAdmin(gateway: TestGateway, body: unknown): Promise<void> {
  const response = await fetch(`${gateway.httpUrl}/v1/admin/sessions`, {
    method: 'POST', headers: { authorization: `Bearer ${gateway.adminToken}`, 'content-type': 'application/json' }, body: JSON.stringify(body),
  });
  assert.equal(response.status, 202, `the admin projection was accepted (${await response.text()})`);
}

/** The admin page at each size: kept for people to look at; no sideways scrolling, no text cut off in a cell, nothing outside the window. */
async function shootAllSizes(page: Page, name: string): Promise<void> {
  for (const size of SIZES) {
    await page.setViewportSize(size);
    // A poll may be re-filling a table: judge the layout the page settles on.
    await page.waitForTimeout(100);
    const layout = await page.evaluate(() => ({
      sideways: document.documentElement.scrollWidth - document.documentElement.clientWidth,
      // A card scrolls sideways (overflow-x: auto) rather than widen the page: that hides a column or a button just as well.
      cardsScrolling: [...document.querySelectorAll('.card')].filter((card) => card.getClientRects().length > 0 && card.scrollWidth > card.clientWidth + 1).map((card) => {
        const edge = card.getBoundingClientRect().right;
        const beyond = [...card.querySelectorAll('*')].filter((inner) => inner.getBoundingClientRect().right > edge + 1).map((inner) => `${inner.tagName.toLowerCase()}${inner.id ? `#${inner.id}` : ''}.${inner.className}`);
        return `${card.querySelector('h2')?.textContent ?? '?'} (${card.scrollWidth} > ${card.clientWidth}: ${beyond.slice(0, 4).join(', ')})`;
      }),
      spilling: [...document.querySelectorAll('td, th, button')].filter((element) => element.scrollWidth > element.clientWidth + 1).map((element) => element.textContent),
      // Every cell, heading and button lies inside the window (a cut-off column sits past its right edge).
      outside: [...document.querySelectorAll('#console td, #console th, #console button')].filter((element) => element.getClientRects().length > 0).flatMap((element) => {
        const box = element.getBoundingClientRect();
        return box.left < -0.5 || box.right > document.documentElement.clientWidth + 0.5 ? [`${element.tagName.toLowerCase()} "${element.textContent.slice(0, 40)}" ${Math.round(box.left)}…${Math.round(box.right)}`] : [];
      }),
      cells: document.querySelectorAll('#console td').length,
      smallest: Math.min(...[...document.querySelectorAll('td, th, button, label, p, h2')].filter((element) => element.getClientRects().length > 0).map((element) => parseFloat(getComputedStyle(element).fontSize))),
    }));
    assert.ok(layout.sideways <= 0, `${name} ${size.width}×${size.height}: no sideways scrolling (${layout.sideways} px)`);
    assert.deepEqual(layout.cardsScrolling, [], `${name} ${size.width}×${size.height}: every card shows its whole table`);
    assert.deepEqual(layout.spilling, [], `${name} ${size.width}×${size.height}: no text cut off in a cell or button`);
    assert.deepEqual(layout.outside, [], `${name} ${size.width}×${size.height}: every cell and button inside the window`);
    assert.ok(layout.cells > 0, `${name}: the tables have rows`);
    assert.ok(layout.smallest >= 12, `${name} ${size.width}×${size.height}: no text under 12 px (${layout.smallest})`);
    await keepScreenshot(page, `${name}-${size.width}x${size.height}`, { fullPage: true });
  }
  await page.setViewportSize(SIZES[0]);
}

/** The session's row says relaying; if it never does, what the admin page and the kiosk said instead. */
async function untilRelaying(page: Page, live: ReturnType<Page['locator']>, kiosk: Page): Promise<void> {
  await live.locator('text=relaying').waitFor({ timeout: 90_000 }).catch(async (error: unknown) => {
    const words = (target: Page, selector: string): Promise<string> => target.locator(selector).innerText().then((text) => text.replace(/\s+/g, ' ').slice(0, 300), (failure: unknown) => `(unreadable: ${String(failure)})`);
    throw new Error(`${String(error)}; the sessions table: "${await words(page, '#sessions')}"; the kiosk: "${await words(kiosk, 'body')}"`);
  });
}

test('admin page: displays made, renamed, moved, re-tokened and deleted; a live session ended; a changed certificate seen and accepted; the audit log', { timeout: 300_000 }, async (t) => {
  // The typing terminal (what the demo shows): pictures keep coming, so the live figures have something to count.
  const { lab, display: labDisplay } = await labScene(t, 'e2e-admin', { width: 1280, height: 720 }, 'terminal');
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
  const kiosk = await openWatchedPage(browser, KIOSK_SIZE);
  const reported = recordFigures(kiosk.page);
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
  await untilRelaying(page, live, kiosk.page);
  await live.locator('text=/[kMG]B/').waitFor({ timeout: 30_000 });
  assert.match(await live.textContent() ?? '', /Lab laptop/);
  await checkLiveFigures(page, live, reported);
  const pinKey = `${first.host}:${first.port}`;
  await page.locator('#pins tbody tr', { hasText: pinKey }).waitFor();
  await shootAllSizes(page, 'admin-live-session');
  await live.getByRole('button', { name: 'End the session on Boardroom 2.01' }).click();
  await page.locator('#sessions-empty').waitFor({ timeout: 15_000 });
  await waitFor('the kiosk back on its idle screen, saying who ended the presentation', async () => /Last presentation: stopped by an administrator\./.test(await kiosk.page.locator('#problem').textContent() ?? ''), 15_000, 100)
    .catch(async (error: unknown) => { throw new Error(`${String(error)}; the kiosk says "${await kiosk.page.locator('#problem').textContent() ?? ''}"`); });
  await waitForWords(kiosk.page, /Ready — waiting for a presenter/, 15_000);
  await keepScreenshot(kiosk.page, 'admin-ended-kiosk-1280x720');
  const afterEnd = reported.length;
  await new Promise((resolve) => setTimeout(resolve, 2500));
  assert.equal(reported.length, afterEnd, 'no figures once the session has ended');

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
  await shootAllSizes(page, 'admin-changed-pin');
  await pinRow.getByRole('button', { name: `Clear the pin of ${pinKey}` }).click();
  await waitFor('the changed pin gone', async () => (await pinRow.locator('button', { hasText: 'Accept the new certificate' }).count()) === 0, 15_000, 100);
  await projectAsAdmin(gateway, { displayId: 'board-room', target: { host: second.host, port: second.port, name: 'Lab laptop' }, credentials: { username: second.username, password: second.password } });
  await untilRelaying(page, live, kiosk.page);
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
  // Details in a person's words (the API keeps the raw values).
  assert.match(await started.locator('td.detail').textContent() ?? '', /^Set up in \d+(\.\d+)? s\.$/, 'a projection\'s set-up time is in its entry, in seconds');
  assert.match(await audit.locator('tr', { hasText: 'projection requested' }).first().locator('td.detail').textContent() ?? '', new RegExp(`^To ${pinKey.replaceAll('.', '\\.')}\\.$`));
  assert.match(await audit.locator('tr', { hasText: 'projection ended' }).first().locator('td.detail').textContent() ?? '', /^Ended( after [^:]+)?: .+\.$/);
  const raw = await (await fetch(`${gateway.httpUrl}/v1/admin/audit?limit=200`, { headers: { authorization: `Bearer ${gateway.adminToken}` } })).json() as { entries: { action: string; detail?: Record<string, unknown> }[] };
  assert.equal(typeof raw.entries.find((entry) => entry.action === 'projection-started')?.detail?.setupMs, 'number', 'the API keeps the raw milliseconds');
  const details = await audit.locator('td.detail').allTextContents();
  assert.deepEqual(details.filter((text) => /\b(setupMs|seconds|target|reason|via|pin|key|from|to|name): /.test(text)), [], 'no raw key: value left in the audit log');
  await shootAllSizes(page, 'admin-audit');

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

/** The number in a figure cell ("24", "7.5"), or NaN for "—". */
function figure(text: string | null | undefined): number {
  return Number.parseFloat((text ?? '').replace(/[^\d.]/g, ''));
}

/** "12 MB · 3.4 MB/s" → 3,400,000 (bytes per second). */
function rateOf(text: string | null | undefined): number {
  const match = /·\s*([\d.]+)\s*(B|kB|MB|GB)\/s/.exec(text ?? '');
  if (!match) return Number.NaN;
  return Number(match[1]) * ({ B: 1, kB: 1e3, MB: 1e6, GB: 1e9 }[match[2] as 'B' | 'kB' | 'MB' | 'GB']);
}

/**
 * The live view's figures against what the display reported in the same
 * seconds. "Frames shown/s" is the display's own report (its presents that
 * brought new pixels), so it must be one of the values the page sent just
 * before; the relay's data and message rates are
 * counted at the gateway's end of the same stream, so they must lie near the
 * range the display saw (each count over its own one-second window, and
 * buffers between them, hence the margin; a figure in other units or a total
 * would be far off); the duration runs from the display's first data.
 */
async function checkLiveFigures(page: Page, live: ReturnType<Page['locator']>, reported: SentFigures[]): Promise<void> {
  await waitFor(`the display reporting pictures (${reported.length} reports so far)`, () => Promise.resolve(reported.filter((report) => (report.frames ?? 0) > 0).length >= 3), 60_000, 200)
    .catch((error: unknown) => { throw new Error(`${String(error)}; the reports: ${JSON.stringify(reported.slice(-5))}`); });
  const first = reported[0];
  assert.ok(first, 'the display reported');
  // The cell follows the newest report within a poll (2 s) and a report (1 s).
  let checked = 0;
  for (let round = 0; round < 3; round += 1) {
    await page.waitForTimeout(2100);
    const readAt = Date.now();
    const [frames, messages, bytes, duration] = await Promise.all(['frames', 'messages', 'bytes', 'duration'].map((name) => live.locator(`td[data-figure="${name}"]`).textContent()));
    // The gateway's figure covers its last sample's second; the display's report of that second
    // may come up to a report (1 s) later, so the reports of the next 1.2 s count too (a stall of
    // the typing under load shows as 0 at the gateway before any report has it).
    await page.waitForTimeout(1200);
    const recent = reported.filter((report) => report.at <= readAt + 1200 && report.at >= readAt - 5000 && report.sessionId === first.sessionId);
    assert.ok(recent.length >= 2, `the display kept reporting (${recent.length} in 5 s)`);
    const perSecond = (report: SentFigures, count: number): number => (count * 1000) / report.intervalMs;
    // As the API rounds it (to a tenth) and the page writes it.
    assert.ok(recent.every((report) => report.frames !== undefined && report.frames <= report.presents), `the display counts frames apart from presents (${JSON.stringify(recent)})`);
    const shownValues = recent.map((report) => Math.round(perSecond(report, report.frames ?? Number.NaN) * 10) / 10);
    const formatted = shownValues.map((value) => (value >= 10 || Number.isInteger(value) ? String(Math.round(value)) : value.toFixed(1)));
    assert.ok(formatted.includes((frames ?? '').trim()), `Frames shown/s "${frames ?? ''}" is what the display reported (${formatted.join(', ')})`);
    const messageRates = recent.map((report) => perSecond(report, report.messages));
    const byteRates = recent.map((report) => perSecond(report, report.bytes));
    // Between the two counts lie the gateway's send buffer (up to its 1 MiB high-water mark) and
    // loopback TCP buffers of a few MB: in a session's first seconds the gateway runs up to twice
    // ahead of a display that decodes in software (seen: 792 messages/s sent, 380–480 received).
    const within = (value: number, seen: number[], slack: number): boolean => value >= Math.min(...seen) * 0.4 - slack && value <= Math.max(...seen) * 2.5 + slack;
    assert.ok(within(figure(messages), messageRates, 5), `Messages/s ${messages ?? ''} (the gateway's) agrees with the display's ${messageRates.map(Math.round).join(', ')}`);
    assert.ok(within(rateOf(bytes), byteRates, 20_000), `the data rate "${bytes ?? ''}" (the gateway's) agrees with the display's ${byteRates.map(Math.round).join(', ')} B/s`);
    const seconds = /^(?:(\d+) min )?(\d+) s$/.exec((duration ?? '').trim());
    assert.ok(seconds, `a duration in minutes and seconds ("${duration ?? ''}")`);
    const shownMs = (Number(seconds[1] ?? 0) * 60 + Number(seconds[2])) * 1000;
    // The relay begins at `secured`: the first interval in which the display received anything.
    const firstData = reported.find((report) => report.messages > 0 && report.sessionId === first.sessionId) ?? first;
    const sinceData = readAt - (firstData.at - firstData.intervalMs);
    assert.ok(Math.abs(shownMs - sinceData) <= 4000, `Duration ${duration ?? ''} is how long the display has received the session (${Math.round(sinceData / 1000)} s since its first data)`);
    checked += 1;
  }
  assert.equal(checked, 3);
}
