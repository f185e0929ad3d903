export type RendererKind = 'webgl2' | 'canvas2d';

/**
 * What one present cost, reported through `Renderer.onstatistics` (the idea of
 * guacamole's Display.onstatistics): uploads since the previous present, then
 * the draw itself.
 */
export interface RenderStats {
  readonly renderer: RendererKind;
  /** Presents so far, this one included. */
  readonly frame: number;
  readonly uploadMs: number;
  readonly drawMs: number;
  readonly rects: number;
  readonly pixels: number;
  /** CPU copies of decoded pixels made by the renderer: 0 on the WebGL2 path. */
  readonly copies: number;
  readonly copiedBytes: number;
  /** From the first input of the oldest frame in this present reaching the session worker to the draw (ms), when known. */
  readonly receiveToDrawMs?: number;
  /**
   * Glass-to-glass, when the picture carries the timestamp strip and this
   * present showed a new stamp: presenter screen → the end of this present
   * (draw calls issued; the GPU's work and the compositor's frame follow,
   * unless `syncTiming` made the renderer wait for the GPU). One per distinct
   * stamp, so these per second are frames shown per second.
   */
  readonly strip?: { readonly stamp: number; readonly latencyMs: number };
}

/** Collects upload costs between two presents. */
export class UploadTally {
  uploadMs = 0;
  rects = 0;
  pixels = 0;
  copies = 0;
  copiedBytes = 0;

  /** The present's statistics from what was tallied since the last one; starts a new tally. */
  present(renderer: RendererKind, frame: number, drawMs: number): RenderStats {
    const stats: RenderStats = {
      renderer, frame, drawMs,
      uploadMs: this.uploadMs, rects: this.rects, pixels: this.pixels, copies: this.copies, copiedBytes: this.copiedBytes,
    };
    this.reset();
    return stats;
  }

  reset(): void {
    this.uploadMs = 0;
    this.rects = 0;
    this.pixels = 0;
    this.copies = 0;
    this.copiedBytes = 0;
  }
}
