// A recording replayed into the kiosk's replay lab page (web/lab/replay.html:
// the display page's session worker, wasm engine and WebGL2 render worker, fed
// by a stand-in gateway), waited on until nothing more is drawn, and its final
// picture captured 1:1. The engine there is the page's own, so H.264 goes to
// Chromium's WebCodecs VideoDecoder.
import type { Page } from 'playwright-core';
import { compareImages, type RecordedPdu, type RgbImage } from '@lanterna/lab';
import { GatewayStandIn, labDir, publicDir, replayRecording, startStaticServer } from '@lanterna/testkit';
import type { ReplayFrameTiming, ReplayProbe } from '../../../web/lab/replayProbe.js';
import { serverBursts } from '../bench/replayBursts.js';
import { openKiosk } from './kioskBrowser.js';
import { pageScreenshot } from './pageScreenshot.js';

export interface PageReplay {
  readonly picture: RgbImage;
  readonly frames: number;
  /** The engine's end reason, or null when the session was still up when the replay was over. */
  readonly ended: string | null;
  readonly problems: readonly string[];
  /** The page's H.264 decoder totals at the end (the last frame's), when it decoded any. */
  readonly h264?: ReplayFrameTiming['h264'];
}

const QUIET_MS = 3000;

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * What the page shows once it stands still: two screenshots a second apart
 * that agree (up to 10 s). The frames are counted as the session worker hands
 * them on; a render worker a loaded machine holds back may present the last
 * of them later (a clean clone's AVC444 replay had all 173 frames and a line
 * of text still black on screen).
 */
async function settledScreenshot(page: Page): Promise<RgbImage> {
  let picture = await pageScreenshot(page);
  for (let tries = 0; tries < 10; tries++) {
    await sleep(1000);
    const next = await pageScreenshot(page);
    if (compareImages(picture, next) === undefined) return next;
    picture = next;
  }
  return picture;
}

/**
 * Replays the records at 1920×1080; done when the session ended or drew
 * nothing new for QUIET_MS — and, given `expectFrames` (what native FreeRDP
 * drew from the same records), not before it drew that many: on a loaded
 * machine the page may pause longer than QUIET_MS mid-replay (a clean clone's
 * run judged a picture 28 frames short of the end).
 */
export async function replayInPage(records: readonly RecordedPdu[], name: string, query = '', expectFrames = 0): Promise<PageReplay> {
  const web = await startStaticServer(publicDir, labDir);
  const recording = replayRecording(serverBursts(records));
  const gateway = new GatewayStandIn(web.server, { dataScript: recording.dataScript });
  try {
    const kiosk = await openKiosk(`${web.origin}/lab/replay.html?data=${encodeURIComponent(gateway.dataUrl(name))}&width=1920&height=1080${query}`, 1920, 1080);
    try {
      const input = { sent: false };
      void recording.sent.then(() => { input.sent = true; });
      const deadline = Date.now() + 180_000;
      let probe: ReplayProbe;
      for (;;) {
        probe = await kiosk.page.evaluate(() => {
          const p = window.lanternaReplay;
          if (!p) throw new Error('the replay page did not start');
          return { ...p, idleMs: p.lastFrameAtMs === null ? null : performance.now() - p.lastFrameAtMs };
        });
        const idleMs = (probe as ReplayProbe & { idleMs: number | null }).idleMs;
        if (probe.ended !== null || Date.now() > deadline) break;
        if (input.sent && idleMs !== null && idleMs >= QUIET_MS && probe.frames.length >= expectFrames) break;
        if (input.sent && idleMs === null && Date.now() > deadline - 150_000) break; // nothing drawn within 30 s
        await sleep(250);
      }
      const picture = await settledScreenshot(kiosk.page);
      return { picture, frames: probe.frames.length, ended: probe.ended, problems: [...probe.problems, ...kiosk.problems], h264: probe.frames.at(-1)?.h264 };
    } finally {
      await kiosk.close();
    }
  } finally {
    gateway.close();
    await web.close();
  }
}
