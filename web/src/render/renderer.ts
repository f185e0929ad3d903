import type { FrameUpdate, PointerShape, Rect } from './frame.js';
import type { RenderStats, RendererKind } from './renderStats.js';

export interface RendererOptions {
  /** Skip WebGL2 even when present (tests, or a GPU known to misbehave). */
  readonly preferCanvas2D?: boolean;
  /**
   * Wait for the GPU after uploads and after the draw so that uploadMs/drawMs
   * measure the work, not only its queueing (benchmarks; it stalls the pipeline).
   */
  readonly syncTiming?: boolean;
}

/**
 * Paints a remote desktop: one texture the size of the desktop, updated by
 * dirty rectangles, drawn letterboxed, with a pointer on top.
 */
export interface Renderer {
  readonly kind: RendererKind;
  /** A sentence for people when the renderer is degraded, else null. */
  readonly warning: string | null;
  onstatistics: ((stats: RenderStats) => void) | null;
  /** Drawing-buffer size in device pixels. */
  setCanvasSize(width: number, height: number): void;
  /**
   * The part of the canvas this renderer draws into (canvas pixels), when
   * several renderers share one canvas (one per source of a room); null: the
   * whole canvas. present() then clears and draws inside it only.
   */
  setViewport(viewport: Rect | null): void;
  /** Paints the whole canvas black: the start of a composition of several viewports. */
  clear(): void;
  /** A new desktop size; the texture is re-created and starts black. */
  setDesktopSize(width: number, height: number): void;
  /** Uploads the changed rectangles; visible at the next present(). */
  update(frame: FrameUpdate): void;
  setPointer(shape: PointerShape | null): void;
  /** Pointer position in desktop pixels. */
  movePointer(x: number, y: number): void;
  setPointerVisible(visible: boolean): void;
  present(): void;
  destroy(): void;
}
