// Survives a lost WebGL context (GPU reset, driver update, the browser
// reclaiming memory from a long-running kiosk): while the context is gone,
// uploads are skipped but the latest frame is remembered; when it comes back,
// a new renderer on the same canvas gets the desktop size, the whole last
// frame, the pointer and a present, so the picture returns without waiting
// for the server to repaint (a still desktop may not repaint for hours).
import type { FrameUpdate, PixelFormat, PointerShape, Rect } from './frame.js';
import type { RenderCanvas } from './renderCanvas.js';
import type { Renderer } from './renderer.js';
import type { RenderStats } from './renderStats.js';

export type ContextState = 'lost' | 'restored';

interface LastFrame {
  readonly pixels: Uint8Array;
  readonly stride: number;
  readonly format: PixelFormat;
}

export class RecoveringRenderer implements Renderer {
  onstatistics: ((stats: RenderStats) => void) | null = null;
  /** Told when the context goes and when the picture is back. */
  oncontextchange: ((state: ContextState) => void) | null = null;
  /** How many times the context came back. */
  restores = 0;

  private inner: Renderer;
  private lost = false;
  private canvasSize: [number, number] | null = null;
  private desktopSize: [number, number] | null = null;
  // The frame is a view of the decoder's live framebuffer, so re-uploading it
  // later shows the desktop as it is now (or a newer state, repainted next).
  private lastFrame: LastFrame | null = null;
  private pointerShape: PointerShape | null = null;
  private pointerAt: [number, number] | null = null;
  private pointerVisible = true;
  private viewport: Rect | null = null;

  constructor(canvas: RenderCanvas, private readonly create: () => Renderer) {
    this.inner = this.adopt(create());
    canvas.addEventListener('webglcontextlost', (event) => {
      // Without preventDefault the browser never restores the context.
      event.preventDefault();
      this.lost = true;
      this.oncontextchange?.('lost');
    });
    canvas.addEventListener('webglcontextrestored', () => this.restore());
  }

  get kind(): Renderer['kind'] {
    return this.inner.kind;
  }

  get warning(): string | null {
    return this.inner.warning;
  }

  get contextLost(): boolean {
    return this.lost;
  }

  setCanvasSize(width: number, height: number): void {
    this.canvasSize = [width, height];
    this.inner.setCanvasSize(width, height);
  }

  setViewport(viewport: Rect | null): void {
    this.viewport = viewport;
    this.inner.setViewport(viewport);
  }

  clear(): void {
    if (!this.lost) this.inner.clear();
  }

  setDesktopSize(width: number, height: number): void {
    this.desktopSize = [width, height];
    this.lastFrame = null; // the old framebuffer may be freed with the old size
    if (!this.lost) this.inner.setDesktopSize(width, height);
  }

  update(frame: FrameUpdate): void {
    this.lastFrame = { pixels: frame.pixels, stride: frame.stride, format: frame.format };
    if (!this.lost) this.inner.update(frame);
  }

  setPointer(shape: PointerShape | null): void {
    this.pointerShape = shape;
    if (!this.lost) this.inner.setPointer(shape);
  }

  movePointer(x: number, y: number): void {
    this.pointerAt = [x, y];
    this.inner.movePointer(x, y);
  }

  setPointerVisible(visible: boolean): void {
    this.pointerVisible = visible;
    this.inner.setPointerVisible(visible);
  }

  present(): void {
    if (!this.lost) this.inner.present();
  }

  destroy(): void {
    if (!this.lost) this.inner.destroy();
  }

  private adopt(renderer: Renderer): Renderer {
    renderer.onstatistics = (stats) => this.onstatistics?.(stats);
    return renderer;
  }

  private restore(): void {
    // The old program and textures died with the context; build everything anew.
    this.inner = this.adopt(this.create());
    this.lost = false;
    this.restores += 1;
    if (this.canvasSize) this.inner.setCanvasSize(...this.canvasSize);
    this.inner.setViewport(this.viewport);
    if (this.desktopSize) {
      const [width, height] = this.desktopSize;
      this.inner.setDesktopSize(width, height);
      if (this.lastFrame) this.inner.update({ ...this.lastFrame, rects: [{ x: 0, y: 0, width, height }] });
    }
    this.inner.setPointer(this.pointerShape);
    if (this.pointerAt) this.inner.movePointer(...this.pointerAt);
    this.inner.setPointerVisible(this.pointerVisible);
    this.inner.present();
    this.oncontextchange?.('restored');
  }
}
