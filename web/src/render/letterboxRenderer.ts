import type { Rect } from './frame.js';
import { computeLetterbox, type Letterbox } from './letterbox.js';
import { placePointer } from './pointerPlacement.js';
import type { RenderCanvas } from './renderCanvas.js';
import type { RenderStats, RendererKind } from './renderStats.js';
import { UploadTally } from './renderStats.js';

/**
 * What the WebGL2 renderer and the Canvas2D fallback share, written once so
 * that both place a picture alike: the canvas's size, the viewport drawn into,
 * the desktop letterboxed in it, the pointer's place, and the statistics each
 * present reports. Each subclass only uploads and draws.
 */
export abstract class LetterboxRenderer {
  abstract readonly kind: RendererKind;
  onstatistics: ((stats: RenderStats) => void) | null = null;

  protected readonly tally = new UploadTally();
  private pointerX = 0;
  private pointerY = 0;
  private pointerVisible = true;
  private frames = 0;
  /** Null: the whole canvas. */
  protected viewport: Rect | null = null;

  constructor(protected readonly canvas: RenderCanvas) {}

  setCanvasSize(width: number, height: number): void {
    if (this.canvas.width !== width) this.canvas.width = width;
    if (this.canvas.height !== height) this.canvas.height = height;
  }

  setViewport(viewport: Rect | null): void {
    this.viewport = viewport;
  }

  movePointer(x: number, y: number): void {
    this.pointerX = x;
    this.pointerY = y;
  }

  setPointerVisible(visible: boolean): void {
    this.pointerVisible = visible;
  }

  /** The part of the canvas a present draws into: the viewport, or the whole canvas. */
  protected drawArea(): Rect {
    return this.viewport ?? { x: 0, y: 0, width: this.canvas.width, height: this.canvas.height };
  }

  /** Where a desktop of this size lands in `area`, in canvas pixels. */
  protected desktopBox(area: Rect, desktopWidth: number, desktopHeight: number): Letterbox {
    const fitted = computeLetterbox(area.width, area.height, desktopWidth, desktopHeight);
    return { ...fitted, x: fitted.x + area.x, y: fitted.y + area.y };
  }

  /** Where the pointer's image lands over the desktop's `box`; null while the pointer is hidden. */
  protected pointerPlace(box: Letterbox, shape: { width: number; height: number; hotspotX: number; hotspotY: number }): Rect | null {
    return this.pointerVisible ? placePointer(box, this.pointerX, this.pointerY, shape) : null;
  }

  /** Ends a present that began at `started` (performance.now()): counts it and reports its statistics. */
  protected presented(started: number): void {
    const drawMs = performance.now() - started;
    this.frames += 1;
    this.onstatistics?.(this.tally.present(this.kind, this.frames, drawMs));
  }
}
