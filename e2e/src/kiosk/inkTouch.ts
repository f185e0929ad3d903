// Fingers on the kiosk page for tests: real touch input through the
// DevTools protocol (Input.dispatchTouchEvent), which Chromium turns into
// touch and pointer events (pointerType "touch") and taps into clicks, as a
// touch panel's driver would.
import type { Browser, CDPSession, Page } from 'playwright-core';
import { openWatchedPage, type WatchedPage } from '@lanterna/testkit';

/** A page with touch input on (a context with hasTouch), watched for console errors as openWatchedPage's. */
export async function openTouchPage(browser: Browser, viewport: { width: number; height: number }): Promise<WatchedPage & { touch: Touch }> {
  const watched = await openWatchedPage(browser, viewport, { hasTouch: true });
  return { ...watched, touch: new Touch(watched.page, await watched.page.context().newCDPSession(watched.page)) };
}

/** A finger rests this long in a tap, and lifts this long between gestures, as people's do (Chromium's gesture detector reads a faster one as part of the last). */
const TAP_HOLD_MS = 40;
const BETWEEN_GESTURES_MS = 150;

function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export class Touch {
  constructor(private readonly page: Page, private readonly cdp: CDPSession) {}

  private async send(type: 'touchStart' | 'touchMove' | 'touchEnd', points: readonly { x: number; y: number; id?: number }[]): Promise<void> {
    await this.cdp.send('Input.dispatchTouchEvent', { type, touchPoints: points.map((point, index) => ({ x: point.x, y: point.y, id: point.id ?? index, radiusX: 4, radiusY: 4, force: 0.5 })) });
  }

  /** A finger down and up at the centre of the element. */
  async tap(selector: string): Promise<void> {
    const box = await this.page.locator(selector).boundingBox();
    if (!box) throw new Error(`${selector} is not on screen`);
    const at = { x: box.x + box.width / 2, y: box.y + box.height / 2 };
    await this.send('touchStart', [at]);
    await pause(TAP_HOLD_MS);
    await this.send('touchEnd', []);
    await pause(BETWEEN_GESTURES_MS);
  }

  /** Two fingers side by side (`gap` CSS px apart, centred on `at`) put down together and moved `dy` px together in `steps` moves. */
  async twoFingerSwipe(at: { x: number; y: number }, dy: number, steps = 10, gap = 60): Promise<void> {
    const fingers = (y: number): { x: number; y: number; id: number }[] => [{ x: at.x - gap / 2, y, id: 0 }, { x: at.x + gap / 2, y, id: 1 }];
    await this.send('touchStart', fingers(at.y));
    for (let step = 1; step <= steps; step++) await this.send('touchMove', fingers(at.y + (dy * step) / steps));
    await this.send('touchEnd', []);
    await pause(BETWEEN_GESTURES_MS);
  }

  /** A finger drawn through the points (CSS pixels), with `steps` moves between each two. */
  async stroke(points: readonly { x: number; y: number }[], steps = 8): Promise<void> {
    const [first, ...rest] = points;
    if (!first) return;
    await this.send('touchStart', [first]);
    let from = first;
    for (const to of rest) {
      for (let step = 1; step <= steps; step++) {
        await this.send('touchMove', [{ x: from.x + ((to.x - from.x) * step) / steps, y: from.y + ((to.y - from.y) * step) / steps }]);
      }
      from = to;
    }
    await this.send('touchEnd', []);
    await pause(BETWEEN_GESTURES_MS);
  }
}
