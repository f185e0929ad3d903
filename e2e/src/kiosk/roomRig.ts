// A meeting room end to end (issue 29): the real gateway (in process, plain
// ws on loopback, serving web/dist/public) with one display, the display page
// in Chromium, and `count` FreeRDP shadow servers, each on its own X screen
// the size of its slot in the grid layout, each projected into the room
// through the admin API (the display's page takes one per slot). Used by
// roomSources.test.ts and the bench (../bench/roomSourcesBench.ts).
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { randomBytes } from 'node:crypto';
import type { Page } from 'playwright-core';
import type { Lab, LabDisplay, SceneName, ShadowServer } from '@lanterna/lab';
import { publicDir, startTestGateway, type TestGateway } from '@lanterna/testkit';
import { slotPixels, slotRects } from '@lanterna/protocol';
import { openKiosk, type KioskBrowser } from './kioskBrowser.js';

const run = promisify(execFile);
export const ROOM_DISPLAY_ID = 'meeting-room';

/** What a source's X screen shows: a lab scene, or a solid colour (the root window's). */
export type RoomPicture = SceneName | { readonly colour: string };

export interface RoomSource {
  readonly name: string;
  readonly display: LabDisplay;
  readonly server: ShadowServer;
  readonly sessionId: string;
}

export interface RoomRig {
  readonly gateway: TestGateway;
  readonly kiosk: KioskBrowser;
  readonly page: Page;
  readonly sources: RoomSource[];
  close(): Promise<void>;
}

/**
 * A gateway (plain HTTP, certificates pinned on first use) with one display
 * and its fresh token, for a room of several sources on this machine. Up to
 * four shadow servers, their scenes and one page decoding them all share two
 * loaded cores here (load averages of 20–25 while other suites run): a page
 * that reads nothing from one data socket for the default 10 s, or a server
 * that answers its Connection Confirm or TLS late, would end a source for the
 * machine's sake, not the room's, so its deadlines are stretched. The room's
 * own behaviour does not depend on them.
 */
export async function startRoomGateway(display: { id: string; name: string }): Promise<{ gateway: TestGateway; token: string }> {
  const token = randomBytes(18).toString('base64url');
  const gateway = await startTestGateway({
    listen: { host: '127.0.0.1', port: 0, tls: false },
    webRoot: publicDir,
    certificates: { mode: 'first-use' },
    displays: [{ ...display, token }],
    timeouts: { writeMs: 60_000, connectMs: 20_000, confirmMs: 20_000, tlsMs: 30_000, sessionTokenMs: 120_000 },
  });
  return { gateway, token };
}

export interface RoomRigOptions {
  readonly count: number;
  /** The page's size in CSS pixels = device pixels. */
  readonly panel: { readonly width: number; readonly height: number };
  /** Source i shows pictures[i % length]. */
  readonly pictures: readonly RoomPicture[];
  /** Extra query of the display URL (e.g. "codecs=planar"). */
  readonly query?: string;
  /** Shadow server arguments (default: GFX with planar only, lossless). */
  readonly gfx?: boolean;
  readonly serverArgs?: readonly string[];
}

export async function paint(display: LabDisplay, colour: string): Promise<void> {
  await run('xsetroot', ['-solid', colour], { env: { ...process.env, ...display.env } });
}

export async function admin(gateway: TestGateway, method: string, path: string, body?: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${gateway.httpUrl}${path}`, {
    method,
    // A gateway that never answers fails the test here, with its path, not at the file's timeout.
    signal: AbortSignal.timeout(30_000),
    headers: { authorization: `Bearer ${gateway.adminToken}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, body: text === '' ? {} : JSON.parse(text) as Record<string, unknown> };
}

export async function startRoomRig(lab: Lab, options: RoomRigOptions): Promise<RoomRig> {
  const closers: (() => Promise<void>)[] = [];
  const close = async (): Promise<void> => {
    for (const closer of closers.reverse()) await closer().catch(() => undefined);
  };
  try {
    const rects = slotRects('grid', [...Array(options.count).keys()], 0);
    const started: { name: string; display: LabDisplay; server: ShadowServer }[] = [];
    for (const [index, rect] of rects.entries()) {
      const size = slotPixels(rect, options.panel);
      const display = await lab.display({ width: size.width, height: size.height });
      const picture = options.pictures[index % options.pictures.length] ?? 'reference';
      if (typeof picture === 'string') await display.showScene(picture);
      else await paint(display, picture.colour);
      const server = await lab.shadowServer({ display, auth: 'tls', gfx: options.gfx ?? true, extraArgs: options.serverArgs ?? ['-gfx-progressive', '-gfx-rfx'] });
      closers.push(() => server.stop());
      started.push({ name: `Source ${'ABCD'[index] ?? String(index)}`, display, server });
    }
    const { gateway, token } = await startRoomGateway({ id: ROOM_DISPLAY_ID, name: 'Meeting room' });
    closers.push(() => gateway.close());
    const query = options.query ? `?${options.query}` : '';
    const kiosk = await openKiosk(`${gateway.httpUrl}/display/${ROOM_DISPLAY_ID}${query}#token=${token}`, options.panel.width, options.panel.height);
    closers.push(() => kiosk.close());
    await kiosk.page.waitForFunction(() => document.getElementById('status')?.dataset.tone === 'ok', undefined, { timeout: 60_000 });
    // What each slot's session asks of its server and draws, as the page tells it (tests and the bench read these).
    await kiosk.page.evaluate(() => {
      const seen = { desktops: [] as unknown[], resizes: [] as unknown[], presents: {} as Record<string, number> };
      (globalThis as unknown as { roomSeen: typeof seen }).roomSeen = seen;
      window.addEventListener('lanterna:desktop', (event) => seen.desktops.push((event as CustomEvent).detail));
      window.addEventListener('lanterna:resize', (event) => seen.resizes.push((event as CustomEvent).detail));
      window.addEventListener('lanterna:render', (event) => {
        const slot = String((event as CustomEvent<{ slot: number }>).detail.slot);
        seen.presents[slot] = (seen.presents[slot] ?? 0) + 1;
      });
    });
    const sources: RoomSource[] = [];
    for (const source of started) {
      const response = await admin(gateway, 'POST', '/v1/admin/sessions', {
        displayId: ROOM_DISPLAY_ID,
        target: { host: source.server.host, port: source.server.port, name: source.name },
        credentials: { username: source.server.username, password: source.server.password },
      });
      if (response.status !== 202) throw new Error(`projecting ${source.name} was refused: ${JSON.stringify(response.body)}`);
      sources.push({ ...source, sessionId: String(response.body.sessionId) });
    }
    return { gateway, kiosk, page: kiosk.page, sources, close };
  } catch (error) {
    await close();
    throw error;
  }
}
