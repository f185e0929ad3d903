// The watchdog's less common paths, caused by a gateway stand-in that serves
// broken pages on purpose (the real gateway cannot be made to): a page that
// never beats, a display page answered with HTTP 500, a page that navigates
// itself onto Chromium's error page. Real Chromium on the lab's Xvfb.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { allocateFreePort, Lab, type LabDisplay } from '@lanterna/lab';
import { loadKioskConfig } from './kioskConfig.js';
import { KioskSupervisor, type KioskEvent } from './kioskSupervisor.js';

const DISPLAY_ID = 'room-faults';
const TOKEN = 'faults-display-token-0123456789';

let lab: Lab;
let display: LabDisplay;

before(async () => ({ lab, display } = await Lab.withDisplay('kiosk-watchdog-paths', { width: 800, height: 600 })));
after(() => lab.close());

/** A stand-in gateway: /healthz answers 200, /display/<id> whatever `page(n)` says for the n-th request (from 1). */
async function standIn(page: (n: number) => { status: number; html: string }): Promise<{ url: string; requests: () => number; close: () => Promise<void> }> {
  let count = 0;
  const server: Server = createServer((request, response) => {
    if (request.url === '/healthz') {
      response.writeHead(200).end('ok\n');
      return;
    }
    // the launcher adds the X output to the page's query (?output=NAME:WxH): the path names the page
    if (new URL(request.url ?? '/', 'http://stand-in').pathname !== `/display/${DISPLAY_ID}`) {
      response.writeHead(404).end(); // the favicon
      return;
    }
    count += 1;
    const { status, html } = page(count);
    response.writeHead(status, { 'content-type': 'text/html' }).end(html);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests: () => count,
    close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}

const beatingPage = '<!doctype html><body style="background:#0b1016"><script>setInterval(() => window.lanternaKioskHeartbeat?.({ control: "online", presenting: false }), 1000)</script></body>';

function supervise(gateway: string, watchdog: Record<string, number>): { supervisor: KioskSupervisor; events: KioskEvent[]; next: (accept: (e: KioskEvent) => boolean, deadlineMs: number) => Promise<KioskEvent> } {
  const config = loadKioskConfig({
    env: {},
    flags: { gateway, displayId: DISPLAY_ID, displayToken: TOKEN, display: display.name },
  });
  const supervisor = new KioskSupervisor({
    config: { ...config, webgl: 'swiftshader', watchdog: { ...config.watchdog, relaunchInitialMs: 300, gatewayRetryInitialMs: 300, gatewayRetryMaxMs: 1000, ...watchdog } },
    pins: [],
    logger: pino({ level: 'silent' }),
    env: { ...process.env, ...display.env },
  });
  const events: KioskEvent[] = [];
  let cursor = 0;
  const listeners = new Set<() => void>();
  supervisor.on('event', (event) => {
    events.push(event);
    for (const listener of listeners) listener();
  });
  /** The next event (after the last one returned) that matches. */
  const next = (accept: (e: KioskEvent) => boolean, deadlineMs: number): Promise<KioskEvent> => new Promise((resolve, reject) => {
    const look = (): boolean => {
      for (; cursor < events.length; cursor += 1) {
        const event = events[cursor];
        if (event !== undefined && accept(event)) {
          cursor += 1;
          listeners.delete(look);
          clearTimeout(timer);
          resolve(event);
          return true;
        }
      }
      return false;
    };
    const timer = setTimeout(() => {
      listeners.delete(look);
      reject(new Error(`no matching event within ${deadlineMs} ms; events: ${events.map((e) => (e.kind === 'heartbeat' ? 'heartbeat' : JSON.stringify(e))).join(' ')}`));
    }, deadlineMs);
    if (!look()) listeners.add(look);
  });
  return { supervisor, events, next };
}

test('a page that never beats is reloaded, and after reloadsBeforeRelaunch reloads without a heartbeat the browser is relaunched', { timeout: 90_000 }, async (t) => {
  const gateway = await standIn(() => ({ status: 200, html: '<!doctype html><body style="background:#0b1016">no script, no heartbeat</body>' }));
  t.after(() => gateway.close());
  const { supervisor, events, next } = supervise(gateway.url, { firstHeartbeatTimeoutMs: 3000, reloadsBeforeRelaunch: 2 });
  t.after(() => supervisor.stop());
  supervisor.start();
  const first = await next((e) => e.kind === 'browser-launched', 60_000);
  assert.deepEqual(await next((e) => e.kind === 'reload', 20_000), { kind: 'reload', reason: 'heartbeat-missed' });
  const relaunch = await next((e) => e.kind === 'relaunch', 20_000);
  assert.equal(relaunch.kind === 'relaunch' && relaunch.reason, 'page-keeps-failing');
  const second = await next((e) => e.kind === 'browser-launched', 60_000);
  assert.ok(first.kind === 'browser-launched' && second.kind === 'browser-launched' && second.pid !== first.pid);
  assert.equal(events.filter((e) => e.kind === 'reload').length, 1, 'one reload, then the second failure relaunched instead');
  assert.ok(gateway.requests() >= 2);
});

test('HTTP 500 for the display page → waiting screen; a page that lands on Chromium\'s error page → waiting screen and reload; then a page that beats', { timeout: 90_000 }, async (t) => {
  const closedPort = await allocateFreePort();
  const gateway = await standIn((n) => {
    if (n === 1) return { status: 500, html: 'broken' };
    if (n === 2) return { status: 200, html: `<!doctype html><script>location.href = 'http://127.0.0.1:${closedPort}/'</script>` };
    return { status: 200, html: beatingPage };
  });
  t.after(() => gateway.close());
  const { supervisor, next } = supervise(gateway.url, { firstHeartbeatTimeoutMs: 20_000 });
  t.after(() => supervisor.stop());
  supervisor.start();
  const waiting = await next((e) => e.kind === 'waiting-for-gateway', 60_000);
  assert.equal(waiting.kind === 'waiting-for-gateway' && waiting.problem, 'the gateway answered HTTP 500 for the display page');
  await next((e) => e.kind === 'page-loaded', 20_000);
  assert.deepEqual(await next((e) => e.kind === 'reload', 20_000), { kind: 'reload', reason: 'error-page' });
  await next((e) => e.kind === 'page-loaded', 20_000);
  await next((e) => e.kind === 'heartbeat', 20_000);
  const url = supervisor.page?.url() ?? '';
  assert.ok(url.startsWith(gateway.url), `showing ${url}, not an error page`);
  // the token went into the stand-in's storage, not into its URL
  assert.equal(await supervisor.page?.evaluate((key) => localStorage.getItem(key), `lanterna.display.${DISPLAY_ID}.token`), TOKEN);
  assert.equal(gateway.requests(), 3);
});
