// A display's panel and desktop (issue 28, docs/kiosk-protocol.md "The panel
// and the desktop") through the real gateway, on each broker store: the admin
// API fixes a display's desktop (size, scale; bodies checked), the display
// learns it in welcome and, while connected, in `display`; the display's
// `panel` report is kept on its record, capped at one a second per socket, and
// the admin's list shows it with the desktop its sessions ask for. What is
// kept outlives the gateway: a restart on the same state file (embedded), a
// second gateway on the same Redis.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectControl, startRedis, startTestGateway, waitFor, type TestGateway } from '@lanterna/testkit';

const PANEL_4K = { cssWidth: 1920, cssHeight: 1080, devicePixelRatio: 2, width: 3840, height: 2160, orientation: 'landscape' };
const PORTRAIT = { cssWidth: 1080, cssHeight: 1920, devicePixelRatio: 1, width: 1080, height: 1920, orientation: 'portrait' };

interface DisplayView { id: string; desktop?: Record<string, number>; panel?: Record<string, unknown>; sessionDesktop?: Record<string, number> }

async function call(gateway: TestGateway, method: string, path: string, body?: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${gateway.httpUrl}${path}`, { method, headers: { authorization: `Bearer ${gateway.adminToken}` }, body: body === undefined ? undefined : JSON.stringify(body) });
  return { status: response.status, body: await response.json() as Record<string, unknown> };
}

async function view(gateway: TestGateway, id: string): Promise<DisplayView | undefined> {
  return ((await call(gateway, 'GET', '/v1/admin/displays')).body.displays as DisplayView[]).find((display) => display.id === id);
}

async function panelAndDesktop(second: () => Promise<TestGateway>, first: TestGateway): Promise<void> {
  // the API's bodies: width and height together, scale 100–500
  assert.equal((await call(first, 'POST', '/v1/admin/displays', { id: 'wall', name: 'Wall', desktop: { width: 1920 } })).status, 400);
  assert.equal((await call(first, 'POST', '/v1/admin/displays', { id: 'wall', name: 'Wall', desktop: { scale: 99 } })).status, 400);
  assert.equal((await call(first, 'POST', '/v1/admin/displays', { id: 'wall', name: 'Wall', desktop: { width: 7680, height: 4320 } })).status, 400);
  const created = await call(first, 'POST', '/v1/admin/displays', { id: 'wall', name: 'Wall', desktop: { scale: 150 } });
  assert.equal(created.status, 201);
  const token = String(created.body.token);

  const control = await connectControl(first.url, 'wall', token, undefined, { features: ['display'] });
  try {
    assert.deepEqual((control.welcome.display as Record<string, unknown>).desktop, { scale: 150 });
    assert.ok((control.welcome.features as string[]).includes('panel'), 'the gateway reads panel reports');
    control.socket.send(JSON.stringify({ type: 'panel', panel: PANEL_4K }));
    // a second report within the second is dropped (one a second per socket)
    control.socket.send(JSON.stringify({ type: 'panel', panel: PORTRAIT }));
    await waitFor('the panel on the display record', async () => (await view(first, 'wall'))?.panel !== undefined, 5000, 50);
    await new Promise((resolve) => { setTimeout(resolve, 300); });
    const seen = await view(first, 'wall');
    assert.equal(seen?.panel?.width, 3840, 'the second, faster report was dropped');
    assert.equal(typeof seen.panel.at, 'number');
    assert.deepEqual(seen.sessionDesktop, { width: 3840, height: 2160, desktopScale: 150, deviceScale: 140 });

    // an admin fixes the size: the connected display hears it at once
    assert.equal((await call(first, 'PATCH', '/v1/admin/displays/wall', { desktop: { width: 1920, height: 1080 } })).status, 200);
    assert.deepEqual((await control.next('display')).display, { id: 'wall', name: 'Wall', desktop: { width: 1920, height: 1080 } });
    assert.deepEqual((await view(first, 'wall'))?.sessionDesktop, { width: 1920, height: 1080, desktopScale: 100, deviceScale: 100 });
    const audit = await call(first, 'GET', '/v1/admin/audit?limit=1');
    assert.deepEqual((audit.body.entries as { action: string; detail: unknown }[]).map((e) => [e.action, e.detail]),
      [['display-resized', { from: "the panel's size, 150 %", to: '1920×1080, scale by size' }]]);

    // after a second, a new panel is taken
    await new Promise((resolve) => { setTimeout(resolve, 1000); });
    control.socket.send(JSON.stringify({ type: 'panel', panel: PORTRAIT }));
    await waitFor('the portrait panel', async () => (await view(first, 'wall'))?.panel?.orientation === 'portrait', 5000, 50);
    // a panel that no screen has is a bad message
    control.socket.send(JSON.stringify({ type: 'panel', panel: { ...PORTRAIT, width: 0 } }));
    const { code } = await control.queue.closed();
    assert.equal(code, 4400);
  } finally {
    control.close();
  }

  // the other gateway (restarted, or beside it on Redis) reads what was kept; null gives the desktop back to the panel
  const other = await second();
  try {
    const kept = await view(other, 'wall');
    assert.deepEqual(kept?.desktop, { width: 1920, height: 1080 });
    assert.equal(kept.panel?.orientation, 'portrait');
    assert.equal((await call(other, 'PATCH', '/v1/admin/displays/wall', { desktop: null })).status, 200);
    assert.deepEqual((await view(other, 'wall'))?.sessionDesktop, { width: 1080, height: 1920, desktopScale: 100, deviceScale: 100 });
    assert.equal((await view(other, 'wall'))?.desktop, undefined);
  } finally {
    await other.close();
  }
}

test('panel and desktop, embedded store: kept across a restart on the same state file', { timeout: 60_000 }, async (t) => {
  const stateDir = mkdtempSync(join(tmpdir(), 'lanterna-panel-'));
  t.after(() => rmSync(stateDir, { recursive: true, force: true }));
  const first = await startTestGateway({}, { stateDir });
  let closed = false;
  t.after(async () => { if (!closed) await first.close(); });
  await panelAndDesktop(async () => {
    await first.close();
    closed = true;
    return startTestGateway({}, { stateDir });
  }, first);
});

test('panel and desktop, Redis store: a second gateway on the same Redis sees them', { timeout: 60_000 }, async (t) => {
  const redis = await startRedis();
  t.after(() => redis.close());
  const broker = { store: 'redis', redisUrl: redis.url };
  const secret = 's'.repeat(40);
  const admin = 'a'.repeat(32);
  const first = await startTestGateway({ broker, sessionSecret: secret, adminToken: admin });
  t.after(() => first.close());
  await panelAndDesktop(() => startTestGateway({ broker, sessionSecret: secret, adminToken: admin }), first);
});
