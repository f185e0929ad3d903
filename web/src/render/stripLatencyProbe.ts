// Glass-to-glass latency from the picture itself: when a presenter's screen
// carries the timestamp strip (@lanterna/protocol; the lab paints it), the
// stamp is read from the frame the renderer uploads — only when a dirty
// rectangle crosses the strip's row of cells, and only those 47 × 64 pixels —
// and compared with the clock when the present that shows it is done.
// A stamp counts once: the same stamp uploaded again (a server resending an
// unchanged screen) is not a new frame shown.
import { msSinceStamp, readTimestampStrip, touchesTimestampStrip } from '@lanterna/protocol';
import type { FrameUpdate } from './frame.js';

export interface StripReading {
  /** The stamp shown (ms of the presenter's clock, mod 2^32). */
  readonly stamp: number;
  /** Presenter screen → the end of the present that shows it (ms). */
  readonly latencyMs: number;
}

export class StripLatencyProbe {
  private desktopWidth = 0;
  private desktopHeight = 0;
  /** The newest stamp uploaded since the last present, not shown yet. */
  private pending: number | null = null;
  private lastShown: number | null = null;

  setDesktopSize(width: number, height: number): void {
    this.desktopWidth = width;
    this.desktopHeight = height;
  }

  /** Call before the frame's pixels are given back to the decoder (they may change after). */
  onFrame(frame: FrameUpdate): void {
    if (!touchesTimestampStrip(frame.rects)) return;
    const stamp = readTimestampStrip({ pixels: frame.pixels, stride: frame.stride, width: this.desktopWidth, height: this.desktopHeight });
    if (stamp !== null && stamp !== this.lastShown) this.pending = stamp;
  }

  /** Call when a present is done, with the shared clock (performance.timeOrigin + now); a reading when it showed a new stamp. */
  onPresent(nowEpochMs: number): StripReading | undefined {
    const stamp = this.pending;
    if (stamp === null) return undefined;
    this.pending = null;
    this.lastShown = stamp;
    return { stamp, latencyMs: msSinceStamp(stamp, nowEpochMs) };
  }
}
