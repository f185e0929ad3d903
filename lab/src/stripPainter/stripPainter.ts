// Paints the timestamp strip (@lanterna/protocol's format) on an X display,
// once per frame, in a window of its own that stays on top of the scene.
// Each frame is drawn into an off-screen pixmap and copied to the window in
// one request, so a screen grab never sees half of one stamp and half of
// the next; the stamp is taken just before the requests are sent, and the
// next frame starts only when the server has done them (a round trip).
import { stripStamp, stripWhiteRects, TIMESTAMP_STRIP } from '@lanterna/protocol';
import { X11Connection } from './x11Connection.js';

export interface StripPainterOptions {
  /** Frames per second to aim at; the X server's and the machine's pace may give fewer. */
  readonly fps?: number;
  /** The clock the stamps carry (ms since the epoch): the kiosk page reads the same one. */
  readonly now?: () => number;
}

export interface StripPainter {
  /** Frames painted so far. */
  readonly frames: number;
  /** The last stamp painted. */
  readonly lastStamp: number | undefined;
  /** Resolves when painting stops: after stop(), or with the X connection's failure. */
  readonly done: Promise<void>;
  stop(): void;
}

export async function startStripPainter(display: string, options: StripPainterOptions = {}): Promise<StripPainter> {
  const frameMs = 1000 / (options.fps ?? 60);
  const now = options.now ?? (() => performance.timeOrigin + performance.now());
  const x = await X11Connection.open(display);
  const band = { x: 0, y: 0, width: TIMESTAMP_STRIP.width, height: TIMESTAMP_STRIP.height };
  const { blackPixel, whitePixel } = x.screen;
  const window = x.createWindow({ ...band, x: TIMESTAMP_STRIP.x, y: TIMESTAMP_STRIP.y }, { backgroundPixel: blackPixel, overrideRedirect: true });
  const pixmap = x.createPixmap(window, band.width, band.height);
  const gc = x.createGc(pixmap, blackPixel);
  x.mapWindow(window);
  await x.sync();

  const stopping = new AbortController();
  let frames = 0;
  let lastStamp: number | undefined;
  const paint = (): void => {
    const stamp = stripStamp(now());
    x.setForeground(gc, blackPixel);
    x.fillRectangles(pixmap, gc, [band]);
    x.setForeground(gc, whitePixel);
    x.fillRectangles(pixmap, gc, stripWhiteRects(stamp));
    x.copyArea(pixmap, window, gc, band);
    // window managers restack their own windows (a kiosk browser taking focus); stay above them
    x.raiseWindow(window);
    lastStamp = stamp;
  };
  const done = (async () => {
    try {
      while (!stopping.signal.aborted) {
        const started = now();
        paint();
        await x.sync();
        frames += 1;
        const wait = frameMs - (now() - started);
        if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      }
    } finally {
      x.close();
    }
  })();
  return {
    get frames() { return frames; },
    get lastStamp() { return lastStamp; },
    done,
    stop() { stopping.abort(); },
  };
}
