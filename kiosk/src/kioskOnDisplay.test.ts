// The launcher as a display device runs it: on an X display (the lab's Xvfb
// with openbox), against the real gateway CLI over TLS with its own
// self-signed certificate pinned, with the real display page. Each failure
// the watchdog exists for is caused for real: a renderer killed, a page
// hung, the browser killed or frozen, the gateway down at start. The tests
// run in order and share one launcher, as a device would live through them.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { pino } from 'pino';
import { PNG } from 'pngjs';
import { allocateFreePort, Lab, portOpen, type LabDisplay, type RgbImage } from '@lanterna/lab';
import { readGatewayCertificatePins } from './gatewayCertificatePins.js';
import { loadKioskConfig } from './kioskConfig.js';
import { KioskSupervisor, type KioskEvent } from './kioskSupervisor.js';
import { familyMembersWith, liveFamily } from './processFamily.js';

const DISPLAY_ID = 'room-kiosk';
const TOKEN = 'kiosk-display-token-0123456789';
const ADMIN_TOKEN = 'kiosk-admin-token-0123456789';
const WIDTH = 1280;
const HEIGHT = 720;
/** The display page's and the waiting screen's background (display.css --bg), which fills the corners. */
const BACKGROUND = [0x0b, 0x10, 0x16] as const;
const gatewayCli = fileURLToPath(import.meta.resolve('@lanterna/gateway/cli'));
const kioskCli = fileURLToPath(new URL('./cli.js', import.meta.url));

/** With LANTERNA_KIOSK_SCREENSHOTS=<dir>, keeps the screenshots the tests judged, for people to look at. */
function keepScreenshot(image: RgbImage, name: string): void {
  const dir = process.env.LANTERNA_KIOSK_SCREENSHOTS;
  if (dir === undefined || dir === '') return;
  mkdirSync(dir, { recursive: true });
  const png = new PNG({ width: image.width, height: image.height });
  png.data.set(image.data);
  writeFileSync(join(dir, `${name}.png`), PNG.sync.write(png));
}

function pixel(image: RgbImage, x: number, y: number): number[] {
  const at = (y * image.width + x) * 4;
  return [...image.data.subarray(at, at + 3)];
}

/** The four corner pixels are the page's background: no tab strip, no frame, no other window. */
function assertCornersArePage(image: RgbImage): void {
  assert.equal(image.width, WIDTH);
  assert.equal(image.height, HEIGHT);
  for (const [x, y] of [[0, 0], [WIDTH - 1, 0], [0, HEIGHT - 1], [WIDTH - 1, HEIGHT - 1]] as const) {
    const found = pixel(image, x, y);
    assert.ok(found.every((value, i) => Math.abs(value - (BACKGROUND[i] ?? 0)) <= 2), `corner (${x}, ${y}) is rgb(${found.join(', ')}), not the page's background`);
  }
}

/**
 * The X screen once Chromium has painted the page over it (corners the page's
 * background), or the last screenshot after `deadlineMs`: a page's text is
 * there before its first paint reaches the window, by seconds on a loaded
 * machine (a blank rgb(246, 245, 244) or rgb(18, 18, 18) window 2.7 s after the
 * waiting screen's second try, at load 15).
 */
async function paintedScreen(display: LabDisplay, deadlineMs = 20_000): Promise<RgbImage> {
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    const shot = await display.screenshot();
    const painted = [[0, 0], [WIDTH - 1, 0], [0, HEIGHT - 1], [WIDTH - 1, HEIGHT - 1]].every(([x, y]) =>
      pixel(shot, x ?? 0, y ?? 0).every((value, i) => Math.abs(value - (BACKGROUND[i] ?? 0)) <= 2));
    if (painted || Date.now() > deadline) return shot;
    await sleep(250);
  }
}

/** Pixels of the screen that differ from the background: something is drawn (text), not a blank window. */
function drawnPixels(image: RgbImage): number {
  let count = 0;
  for (let at = 0; at < image.data.length; at += 4) {
    if (Math.abs((image.data[at] ?? 0) - BACKGROUND[0]) + Math.abs((image.data[at + 1] ?? 0) - BACKGROUND[1]) + Math.abs((image.data[at + 2] ?? 0) - BACKGROUND[2]) > 120) count += 1;
  }
  return count;
}

/** Every event the supervisor emitted, and a way to wait for the next one that matches. */
class EventLog {
  readonly events: { at: number; event: KioskEvent }[] = [];
  private readonly waiters = new Set<() => void>();

  constructor(supervisor: KioskSupervisor) {
    supervisor.on('event', (event) => {
      this.events.push({ at: Date.now(), event });
      for (const wake of this.waiters) wake();
    });
  }

  get mark(): number {
    return this.events.length;
  }

  /** The first event at or after index `from` that matches; rejects at the deadline with what was seen. */
  waitFor<K extends KioskEvent['kind']>(from: number, kind: K, accept: (event: Extract<KioskEvent, { kind: K }>) => boolean, deadlineMs: number): Promise<{ at: number; index: number; event: Extract<KioskEvent, { kind: K }> }> {
    return new Promise((resolve, reject) => {
      const check = (): boolean => {
        for (let index = from; index < this.events.length; index += 1) {
          const entry = this.events[index];
          if (entry?.event.kind === kind && accept(entry.event as Extract<KioskEvent, { kind: K }>)) {
            cleanup();
            resolve({ at: entry.at, index, event: entry.event as Extract<KioskEvent, { kind: K }> });
            return true;
          }
        }
        return false;
      };
      const timer = setTimeout(() => {
        cleanup();
        const seen = this.events.slice(from).map((e) => (e.event.kind === 'heartbeat' ? `heartbeat(${e.event.beat.control})` : JSON.stringify(e.event)));
        reject(new Error(`no ${kind} event within ${deadlineMs} ms; after mark ${from} saw: ${seen.slice(-15).join(' ')}`));
      }, deadlineMs);
      const cleanup = (): void => {
        clearTimeout(timer);
        this.waiters.delete(wake);
      };
      const wake = (): void => { check(); };
      if (!check()) this.waiters.add(wake);
    });
  }
}

interface AdminDisplay { id: string; online: boolean; panel?: { width: number; height: number; output?: { name?: string; width: number; height: number } } }

function adminDisplays(port: number): Promise<AdminDisplay[]> {
  return new Promise((resolve, reject) => {
    // the test knows whom it talks to: loopback, its own gateway
    request({ host: '127.0.0.1', port, path: '/v1/admin/displays', headers: { authorization: `Bearer ${ADMIN_TOKEN}` }, rejectUnauthorized: false, timeout: 5000 }, (response) => {
      let body = '';
      response.on('data', (chunk: Buffer) => { body += chunk.toString('utf8'); });
      response.on('end', () => {
        try {
          resolve((JSON.parse(body) as { displays: AdminDisplay[] }).displays);
        } catch (error) {
          reject(error instanceof Error ? error : new Error(String(error)));
        }
      });
    }).on('error', reject).on('timeout', function onTimeout(this: { destroy(error: Error): void }) { this.destroy(new Error('admin api timed out')); }).end();
  });
}

async function waitOnlineAtGateway(port: number, deadlineMs: number): Promise<void> {
  const end = Date.now() + deadlineMs;
  let last = 'no answer';
  for (;;) {
    try {
      const display = (await adminDisplays(port)).find((d) => d.id === DISPLAY_ID);
      if (display?.online === true) return;
      last = JSON.stringify(display);
    } catch (error) {
      last = (error as Error).message;
    }
    if (Date.now() > end) throw new Error(`display ${DISPLAY_ID} not online at the gateway within ${deadlineMs} ms (last: ${last})`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

describe('lanterna-kiosk on an X display against the real gateway', { timeout: 420_000 }, () => {
  let lab: Lab;
  let display: LabDisplay;
  let port: number;
  let gatewayDir: string;
  let supervisor: KioskSupervisor | undefined;
  let log: EventLog;
  let pins: string[];
  const logLines: string[] = [];

  async function startGateway(): Promise<void> {
    await lab.start({
      component: 'gateway',
      command: process.execPath,
      args: [gatewayCli, '--config', join(gatewayDir, 'config.json')],
      ready: portOpen('127.0.0.1', port),
      readyTimeoutMs: 30_000,
    });
  }

  function kioskConfigFile(): string {
    const path = join(gatewayDir, 'kiosk.json');
    writeFileSync(path, JSON.stringify({
      webgl: 'swiftshader',
      watchdog: {
        heartbeatTimeoutMs: 6000,
        firstHeartbeatTimeoutMs: 20_000,
        browserProbeIntervalMs: 1000,
        browserProbeTimeoutMs: 3000,
        relaunchInitialMs: 500,
        gatewayRetryInitialMs: 500,
        gatewayRetryMaxMs: 2000,
      },
    }));
    return path;
  }

  before(async () => {
    lab = await Lab.create({ name: 'kiosk-launcher' });
    display = await lab.display({ width: WIDTH, height: HEIGHT });
    port = await allocateFreePort();
    gatewayDir = lab.makeDir('gateway');
    await lab.run({
      component: 'openssl',
      command: 'openssl',
      args: ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '2', '-subj', '/CN=lanterna kiosk test gateway',
        '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', join(gatewayDir, 'key.pem'), '-out', join(gatewayDir, 'cert.pem')],
    });
    writeFileSync(join(gatewayDir, 'config.json'), JSON.stringify({
      listen: { host: '127.0.0.1', port, tls: true },
      tls: { certFile: join(gatewayDir, 'cert.pem'), keyFile: join(gatewayDir, 'key.pem') },
      stateDir: join(gatewayDir, 'state'),
      workers: 1,
      adminToken: ADMIN_TOKEN,
      displays: [{ id: DISPLAY_ID, name: 'Kiosk Room', token: TOKEN }],
      logLevel: 'warn',
    }));
    pins = readGatewayCertificatePins(join(gatewayDir, 'cert.pem'));
  });

  after(async () => {
    try {
      await supervisor?.stop();
    } finally {
      await lab.close();
    }
  });

  test('gateway down at start: the launcher\'s waiting screen, never a Chromium error page; online once the gateway starts', async () => {
    const config = loadKioskConfig({
      file: kioskConfigFile(),
      env: {},
      flags: { gateway: `https://127.0.0.1:${port}`, displayId: DISPLAY_ID, displayToken: TOKEN, display: display.name, gatewayCertificate: join(gatewayDir, 'cert.pem') },
    });
    // kept with the lab's logs (LANTERNA_KEEP_LOGS=1) to read after a failure
    const logFile = lab.logPathFor('kiosk-supervisor');
    const logger = pino({ level: 'debug' }, { write: (line: string) => { logLines.push(line); appendFileSync(logFile, line); } });
    supervisor = new KioskSupervisor({ config, pins, logger, env: { ...process.env, ...display.env } });
    log = new EventLog(supervisor);
    supervisor.start();
    await log.waitFor(0, 'browser-launched', () => true, 60_000);
    // two tries, so the screen has been updated with the problem and a countdown
    const waiting = await log.waitFor(0, 'waiting-for-gateway', () => true, 30_000);
    await log.waitFor(waiting.index + 1, 'waiting-for-gateway', () => true, 30_000);
    assert.match(waiting.event.problem, /connection refused/);
    const page = supervisor.page;
    assert.ok(page !== undefined);
    assert.ok(page.url().startsWith('data:text/html'), `showing ${page.url()}`);
    const text = await page.evaluate(() => document.body.innerText);
    assert.match(text, /(Waiting for|Trying) the gateway at 127\.0\.0\.1:\d+/);
    assert.match(text, /connection refused/);
    assert.doesNotMatch(text, /This site can.t be reached|ERR_/);
    const shot = await paintedScreen(display);
    keepScreenshot(shot, 'kiosk-waiting-for-gateway');
    assertCornersArePage(shot);
    assert.ok(drawnPixels(shot) > 2000, 'the waiting screen shows its text');

    const mark = log.mark;
    await startGateway();
    await log.waitFor(mark, 'page-loaded', () => true, 30_000);
    await log.waitFor(mark, 'heartbeat', (e) => e.beat.control === 'online', 30_000);
    await waitOnlineAtGateway(port, 10_000);
  });

  test('full screen with no browser UI: the page is exactly the screen, beats, holds a wake lock, and X does not blank', async () => {
    assert.ok(supervisor !== undefined);
    const page = supervisor.page;
    assert.ok(page !== undefined);
    const size = await page.evaluate(() => [window.innerWidth, window.innerHeight, window.outerWidth, window.outerHeight, screen.width, screen.height]);
    assert.deepEqual(size, [WIDTH, HEIGHT, WIDTH, HEIGHT, WIDTH, HEIGHT]);
    // the token reached the page without a URL: not in its address, kept in its storage
    assert.doesNotMatch(page.url(), /token/);
    const stored = await page.evaluate((key) => localStorage.getItem(key), `lanterna.display.${DISPLAY_ID}.token`);
    assert.equal(stored, TOKEN);
    const shot = await paintedScreen(display);
    keepScreenshot(shot, 'kiosk-display-page');
    assertCornersArePage(shot);
    assert.ok(drawnPixels(shot) > 2000, 'the display page shows its idle screen');
    // the launcher read the X output (xrandr: Xvfb's "screen") and the page reported it with its panel
    let panel: AdminDisplay['panel'];
    for (const deadline = Date.now() + 10_000; Date.now() < deadline && panel?.output === undefined; await sleep(200)) {
      panel = (await adminDisplays(port)).find((entry) => entry.id === DISPLAY_ID)?.panel;
    }
    assert.deepEqual(panel?.output, { name: 'screen', width: WIDTH, height: HEIGHT }, JSON.stringify(panel));
    const mark = log.mark;
    const first = await log.waitFor(mark, 'heartbeat', () => true, 10_000);
    const second = await log.waitFor(first.index + 1, 'heartbeat', () => true, 10_000);
    assert.ok(second.at - first.at < 5000, `heartbeats ${second.at - first.at} ms apart`);
    assert.ok(log.events.some((e) => e.event.kind === 'wake-lock' && e.event.state === 'held'), 'screen wake lock held');
    assert.equal(await page.evaluate(() => getComputedStyle(document.body).cursor), 'none');
    assert.match(execFileSync('xset', ['-display', display.name, 'q'], { encoding: 'utf8', env: { ...process.env, ...display.env } }), /timeout:\s+0\s/);
    // the JSON log names the page's state; the token never appears in it
    assert.ok(logLines.some((line) => (JSON.parse(line) as { control?: string }).control === 'online'));
    assert.ok(!logLines.some((line) => line.includes(TOKEN)), 'the token is not logged');
  });

  test('a killed renderer: the page is reloaded and back online at the gateway within 10 s', async (t) => {
    assert.ok(supervisor?.browserPid !== undefined);
    const renderers = familyMembersWith(supervisor.browserPid, '--type=renderer');
    assert.ok(renderers.length > 0, 'found the renderer processes');
    const mark = log.mark;
    const killedAt = Date.now();
    for (const pid of renderers) process.kill(pid, 'SIGKILL');
    const reload = await log.waitFor(mark, 'reload', () => true, 10_000);
    assert.equal(reload.event.reason, 'renderer-crashed');
    const back = await log.waitFor(reload.index, 'heartbeat', (e) => e.beat.control === 'online', 10_000);
    await waitOnlineAtGateway(port, 5000);
    t.diagnostic(`renderer killed → page online again after ${back.at - killedAt} ms`);
    assert.ok(back.at - killedAt < 10_000, `online again after ${back.at - killedAt} ms`);
    assert.ok(!log.events.slice(mark).some((e) => e.event.kind === 'relaunch'), 'the browser itself was not relaunched');
  });

  test('a hung page: heartbeats stop, the page is crashed and reloaded, and comes back online', async (t) => {
    const page = supervisor?.page;
    assert.ok(page !== undefined);
    const mark = log.mark;
    const hungAt = Date.now();
    // never settles while the page hangs; rejects when the page is crashed
    page.evaluate(() => { for (;;) { /* hang the page's main thread */ } }).catch(() => undefined);
    const reload = await log.waitFor(mark, 'reload', () => true, 20_000);
    assert.equal(reload.event.reason, 'heartbeat-missed');
    assert.ok(reload.at - hungAt >= 6000 - 500, `reloaded ${reload.at - hungAt} ms after the hang: not before the heartbeat timeout`);
    const back = await log.waitFor(reload.index, 'heartbeat', (e) => e.beat.control === 'online', 20_000);
    await waitOnlineAtGateway(port, 5000);
    t.diagnostic(`page hung → reload after ${reload.at - hungAt} ms (heartbeat timeout 6000 ms), online again after ${back.at - hungAt} ms`);
    assert.ok(!log.events.slice(mark).some((e) => e.event.kind === 'relaunch'), 'a reload sufficed');
  });

  /**
   * Sends `signal` to the browser and follows the supervisor through the
   * relaunch (for `reason`) to the page online again, at the gateway too;
   * each step within `stepMs`.
   */
  async function relaunchAfter(signal: NodeJS.Signals, reason: string, stepMs: number) {
    const oldPid = supervisor?.browserPid;
    assert.ok(oldPid !== undefined);
    const mark = log.mark;
    const signalledAt = Date.now();
    process.kill(oldPid, signal);
    const relaunch = await log.waitFor(mark, 'relaunch', () => true, stepMs);
    assert.equal(relaunch.event.reason, reason);
    const launched = await log.waitFor(relaunch.index, 'browser-launched', () => true, stepMs);
    const back = await log.waitFor(launched.index, 'heartbeat', (e) => e.beat.control === 'online', stepMs);
    await waitOnlineAtGateway(port, 5000);
    return { oldPid, signalledAt, relaunch, launched, back };
  }

  test('kill -9 of the browser: relaunched with a fresh profile and back online within 15 s; nothing of the old one survives', async (t) => {
    const { oldPid, signalledAt: killedAt, launched, back } = await relaunchAfter('SIGKILL', 'browser-disconnected', 15_000);
    assert.notEqual(launched.event.pid, oldPid);
    t.diagnostic(`browser killed → page online again after ${back.at - killedAt} ms`);
    assert.ok(back.at - killedAt < 15_000, `online again after ${back.at - killedAt} ms`);
    assert.deepEqual(liveFamily(oldPid), []);
    assertCornersArePage(await paintedScreen(display));
  });

  test('a browser that stops answering (SIGSTOP): found by the probe, killed and relaunched', async (t) => {
    const { oldPid, signalledAt: stoppedAt, relaunch, back } = await relaunchAfter('SIGSTOP', 'browser-unresponsive', 20_000);
    t.diagnostic(`browser frozen → relaunch decided after ${relaunch.at - stoppedAt} ms (probe every 1 s, 3 s timeout, 2 misses), online again after ${back.at - stoppedAt} ms`);
    assert.deepEqual(liveFamily(oldPid), [], 'the frozen browser and its children are gone');
  });

  test('stop() closes the browser and leaves no Chromium process', async () => {
    const pid = supervisor?.browserPid;
    await supervisor?.stop();
    supervisor = undefined;
    assert.ok(pid !== undefined);
    assert.deepEqual(liveFamily(pid), []);
  });

  test('the CLI: configured by a file, environment and flags, logs JSON lines, comes online, and exits 0 on SIGTERM with nothing left', async () => {
    const child = spawn(process.execPath, [kioskCli, '--config', kioskConfigFile(), '--display-id', DISPLAY_ID, '--display', display.name], {
      env: {
        ...process.env,
        ...display.env,
        ...lab.env,
        LANTERNA_KIOSK_GATEWAY: `https://127.0.0.1:${port}`,
        LANTERNA_KIOSK_DISPLAY_TOKEN: TOKEN,
        LANTERNA_KIOSK_GATEWAY_CERTIFICATE: join(gatewayDir, 'cert.pem'),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      const lines: Record<string, unknown>[] = [];
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => { stderr += chunk.toString('utf8'); });
      const online = new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`not online within 60 s; log: ${JSON.stringify(lines.slice(-10))} ${stderr}`)), 60_000);
        createInterface({ input: child.stdout }).on('line', (line) => {
          const entry = JSON.parse(line) as Record<string, unknown>;
          lines.push(entry);
          if (entry.control === 'online') {
            clearTimeout(timer);
            resolve();
          }
        });
      });
      await online;
      await waitOnlineAtGateway(port, 10_000);
      assert.ok(lines.every((line) => typeof line.level === 'number' && typeof line.msg === 'string' && line.displayId === DISPLAY_ID));
      assertCornersArePage(await paintedScreen(display));
      child.kill('SIGTERM');
      assert.equal(await exited, 0);
      const browserPid = lines.find((line) => line.msg === 'chromium launched')?.browserPid;
      assert.equal(typeof browserPid, 'number');
      assert.deepEqual(liveFamily(browserPid as number), []);
      assert.ok(!JSON.stringify(lines).includes(TOKEN), 'the token is not logged');
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  });
});
