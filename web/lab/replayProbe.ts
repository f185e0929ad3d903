// What the replay lab page records for the kiosk frame benchmark (it reads
// window.lanternaReplay with page.evaluate), and the channel on which the
// replay engine in the session worker reports each frame's timing.
import type { RenderStats } from '../src/render/renderStats.js';

/** BroadcastChannel name: replayEngine.ts (session worker) → replayPage.ts (page). */
export const replayTimingChannel = 'lanterna-replay-timing';

/** One end of paint, timed in the session worker. */
export interface ReplayFrameTiming {
  /**
   * Previous frame given back by the render worker (or the first input) → this
   * end of paint: the RDP thread's decode, since a replay never lets it wait
   * for input.
   */
  readonly decodeMs: number;
  /** End of paint → the render worker gives the frame back: the hand-off both ways and the GPU-synchronous upload. */
  readonly handBackMs: number;
  readonly rects: number;
  readonly pixels: number;
  /**
   * The module's H.264 totals so far (WebCodecs decode → picture in the heap),
   * when it has decoded any: access units skipped (waiting for an IDR after a
   * decoder failed) and decoder failures (an error, or no picture within the
   * output deadline) say why a picture stopped following the stream.
   */
  readonly h264?: { readonly pictures: number; readonly decodeMs: number; readonly skipped: number; readonly failures: number };
}

/** One present of the render worker that uploaded something (its own statistics). */
export type ReplayPresent = Pick<RenderStats, 'uploadMs' | 'drawMs' | 'rects' | 'pixels' | 'copies' | 'copiedBytes'>;

export interface ReplayProbe {
  renderer: string | null;
  readonly frames: ReplayFrameTiming[];
  readonly presents: ReplayPresent[];
  /** performance.now() when the last frame timing arrived. */
  lastFrameAtMs: number | null;
  /** Session failures and renderer errors, in words. */
  readonly problems: string[];
  /** How the session ended, once it has. */
  ended: string | null;
}

declare global {
  interface Window {
    lanternaReplay?: ReplayProbe;
  }
}
