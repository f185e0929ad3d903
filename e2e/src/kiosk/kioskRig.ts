// One kiosk display projecting one RDP server, end to end: the real gateway
// (in process, plain ws on loopback, serving web/dist/public) with a display
// whose autoProject points at the server, and the display page in Chromium.
import { randomBytes } from 'node:crypto';
import type { Page } from 'playwright-core';
import type { RgbImage } from '@lanterna/lab';
import { publicDir, startTestGateway, type TestGateway, type WebGlBackend } from '@lanterna/testkit';
import { openKiosk, type KioskBrowser } from './kioskBrowser.js';
import { pageScreenshot } from './pageScreenshot.js';

export interface ProjectedTarget {
  readonly host: string;
  readonly port: number;
  readonly username?: string;
  readonly password?: string;
  /** The server's process when the lab runs it (a shadow server): paused while the rig takes a picture. */
  readonly child?: { readonly pid: number; hasExited(): boolean };
}

export interface KioskRigOptions {
  readonly target: ProjectedTarget;
  /** Page size in CSS pixels = device pixels = the desktop size the client asks for. */
  readonly width?: number;
  readonly height?: number;
  /** Extra query of the display URL (e.g. "codecs=planar"). */
  readonly query?: string;
  /** A fixed gateway port, so a test can restart the gateway where the page expects it. */
  readonly gatewayPort?: number;
  /** Where the page's WebGL2 runs (default SwiftShader, the only GL without a GPU). */
  readonly webgl?: WebGlBackend;
}

export interface KioskRig {
  readonly gateway: TestGateway;
  readonly kiosk: KioskBrowser;
  readonly page: Page;
  readonly displayId: string;
  /** Stops the gateway and starts a new one on the same port with the same display. */
  restartGateway(): Promise<void>;
  /** The page's current picture. */
  screenshot(): Promise<RgbImage>;
  close(): Promise<void>;
}

export const displayId = 'room-e2e';

export async function startKioskRig(options: KioskRigOptions): Promise<KioskRig> {
  const width = options.width ?? 1920;
  const height = options.height ?? 1080;
  const token = randomBytes(18).toString('base64url');
  const { target } = options;
  const gatewayConfig = (port: number) => ({
    listen: { host: '127.0.0.1', port, tls: false },
    webRoot: publicDir,
    certificates: { mode: 'first-use' },
    displays: [{
      id: displayId,
      name: 'E2E room',
      token,
      autoProject: {
        host: target.host,
        port: target.port,
        name: 'Lab presenter',
        ...(target.username !== undefined ? { credentials: { username: target.username, password: target.password ?? '' } } : {}),
      },
    }],
  });
  let gateway = await startTestGateway(gatewayConfig(options.gatewayPort ?? 0));
  const port = gateway.port;
  let kiosk: KioskBrowser;
  try {
    const query = options.query ? `?${options.query}` : '';
    kiosk = await openKiosk(`${gateway.httpUrl}/display/${displayId}${query}#token=${token}`, width, height, options.webgl);
  } catch (error) {
    await gateway.close();
    throw error;
  }
  return {
    get gateway() { return gateway; },
    kiosk,
    page: kiosk.page,
    displayId,
    async restartGateway() {
      await gateway.close();
      gateway = await startTestGateway(gatewayConfig(port));
    },
    screenshot: () => (target.child ? whilePaused(target.child, gateway, () => desktopScreenshot(kiosk.page)) : desktopScreenshot(kiosk.page)),
    async close() {
      try {
        await kiosk.close();
      } finally {
        await gateway.close();
      }
    },
  };
}

// FreeRDP's shadow server resends the whole screen as fast as the client
// acknowledges, even when nothing changes (measured with Debian's 3.10.3:
// 11–15 MiB/s for a still 1080p picture, with or without MIT-SHM). In 3.15's
// source its change detection compares the X image's zero padding byte as
// alpha against the surface's opaque X byte, and the shared-memory grab one
// row off, so no grab ever equals the last. That stream keeps decoder,
// SwiftShader and compositor busy; on two loaded cores a page screenshot
// waited behind it for up to a minute (25–64 s with one busy loop beside the
// suite; under 2.5 s with the server paused). Pausing the server for the
// capture lets the frames in flight land and the compositor go quiet; the
// session survives it. The capture waits until the gateway has relayed
// nothing more to the page for QUIET_MS (the frames in flight have landed).
const QUIET_MS = 150;
const SETTLE_DEADLINE_MS = 5000;

async function relayedToKiosk(gateway: TestGateway): Promise<number> {
  const { values } = await gateway.metrics.bytes.get();
  return values.find((value) => value.labels.direction === 'to-kiosk')?.value ?? 0;
}

/** Resolves once the byte count to the kiosk has not moved for QUIET_MS, or at the deadline. */
async function untilRelayQuiet(gateway: TestGateway): Promise<void> {
  const deadline = Date.now() + SETTLE_DEADLINE_MS;
  let last = await relayedToKiosk(gateway);
  let quietSince = Date.now();
  while (Date.now() < deadline && Date.now() - quietSince < QUIET_MS) {
    await new Promise((resolve) => setTimeout(resolve, 25));
    const now = await relayedToKiosk(gateway);
    if (now !== last) { last = now; quietSince = Date.now(); }
  }
}

/**
 * The page as the decoded desktop shows it. The rig's display projects its
 * autoProject target, i.e. its own signage, over which the page keeps the room
 * PIN in a corner badge (signagePin.test.ts checks that): an overlay, not the
 * decoded picture the pixel tests compare, so it is hidden for the capture.
 */
async function desktopScreenshot(page: Page): Promise<RgbImage> {
  const hide = (hidden: boolean): Promise<void> => page.evaluate((value) => {
    const badge = document.getElementById('signage-room');
    if (badge) badge.style.visibility = value ? 'hidden' : '';
  }, hidden);
  await hide(true);
  try {
    return await pageScreenshot(page);
  } finally {
    await hide(false);
  }
}

export async function whilePaused<T>(server: { readonly pid: number; hasExited(): boolean }, gateway: TestGateway, capture: () => Promise<T>): Promise<T> {
  // a server the test has stopped already is left alone (its pid may be someone else's now)
  if (server.hasExited() || !signalQuietly(server.pid, 'SIGSTOP')) return capture();
  try {
    await untilRelayQuiet(gateway);
    return await capture();
  } finally {
    if (!server.hasExited()) signalQuietly(server.pid, 'SIGCONT');
  }
}

/** whilePaused for several servers at once (a room's sources): all stop, the relay goes quiet, the capture runs, all go on. */
export async function whileAllPaused<T>(servers: readonly { readonly pid: number; hasExited(): boolean }[], gateway: TestGateway, capture: () => Promise<T>): Promise<T> {
  const paused = servers.filter((server) => !server.hasExited() && signalQuietly(server.pid, 'SIGSTOP'));
  try {
    await untilRelayQuiet(gateway);
    return await capture();
  } finally {
    for (const server of paused) if (!server.hasExited()) signalQuietly(server.pid, 'SIGCONT');
  }
}

function signalQuietly(pid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(pid, signal);
    return true;
  } catch {
    return false; // it ended between the check and the signal
  }
}

/** Polls until `accept` holds for the page's picture (returns it) or the deadline passes (returns the last one). */
export async function waitForPicture(rig: KioskRig, accept: (image: RgbImage) => boolean, deadlineMs: number): Promise<RgbImage> {
  const end = Date.now() + deadlineMs;
  for (;;) {
    const image = await rig.screenshot();
    if (accept(image) || Date.now() > end) return image;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}
