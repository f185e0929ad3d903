import { clipRect } from './clipRect.js';
import type { FrameUpdate, PixelFormat, PointerShape } from './frame.js';
import { LetterboxRenderer } from './letterboxRenderer.js';
import type { Canvas2DContext, RenderCanvas } from './renderCanvas.js';
import type { Renderer, RendererOptions } from './renderer.js';

export const canvas2DWarning = 'WebGL2 is not available here: the picture is drawn by the slower Canvas2D fallback';

/**
 * Copies `width`×`height` pixels starting at byte `offset` (rows `stride`
 * apart) into a tightly packed RGBA buffer, swapping B and R for BGRA and
 * making every pixel opaque. This is the fallback's one copy: ImageData cannot
 * wrap a SharedArrayBuffer and has no BGRA.
 */
function copyToRgba(src: Uint8Array, offset: number, stride: number, width: number, height: number, format: PixelFormat, opaque: boolean, dst: Uint8ClampedArray): void {
  let d = 0;
  for (let row = 0; row < height; row++) {
    let s = offset + row * stride;
    for (let col = 0; col < width; col++, s += 4, d += 4) {
      const c0 = src[s] ?? 0;
      const c2 = src[s + 2] ?? 0;
      dst[d] = format === 'bgra' ? c2 : c0;
      dst[d + 1] = src[s + 1] ?? 0;
      dst[d + 2] = format === 'bgra' ? c0 : c2;
      dst[d + 3] = opaque ? 255 : (src[s + 3] ?? 0);
    }
  }
}

/** The fallback when WebGL2 is missing: a backing canvas updated with putImageData. */
export class Canvas2DRenderer extends LetterboxRenderer implements Renderer {
  readonly kind = 'canvas2d' as const;
  readonly warning = canvas2DWarning;

  private backing: OffscreenCanvas | null = null;
  private backingContext: OffscreenCanvasRenderingContext2D | null = null;
  private pointerImage: OffscreenCanvas | null = null;
  private pointerShape: PointerShape | null = null;

  constructor(canvas: RenderCanvas, private readonly context: Canvas2DContext, _options: RendererOptions = {}) {
    super(canvas);
  }

  clear(): void {
    this.context.fillStyle = '#000';
    this.context.fillRect(0, 0, this.canvas.width, this.canvas.height);
  }

  setDesktopSize(width: number, height: number): void {
    this.backing = null;
    this.backingContext = null;
    if (width <= 0 || height <= 0) return;
    this.backing = new OffscreenCanvas(width, height);
    const context = this.backing.getContext('2d');
    if (!context) throw new Error('cannot create the backing 2d context');
    context.fillStyle = '#000';
    context.fillRect(0, 0, width, height);
    this.backingContext = context;
  }

  update(frame: FrameUpdate): void {
    const backing = this.backing;
    const context = this.backingContext;
    if (!backing || !context) throw new Error('update before setDesktopSize');
    const started = performance.now();
    for (const rect of frame.rects) {
      const r = clipRect(rect, backing.width, backing.height);
      if (!r) continue;
      const image = new ImageData(r.width, r.height);
      copyToRgba(frame.pixels, r.y * frame.stride + r.x * 4, frame.stride, r.width, r.height, frame.format, true, image.data);
      context.putImageData(image, r.x, r.y);
      this.tally.rects += 1;
      this.tally.pixels += r.width * r.height;
      this.tally.copies += 1;
      this.tally.copiedBytes += r.width * r.height * 4;
    }
    this.tally.uploadMs += performance.now() - started;
  }

  setPointer(shape: PointerShape | null): void {
    this.pointerShape = null;
    this.pointerImage = null;
    if (!shape || shape.width <= 0 || shape.height <= 0) return;
    const image = new ImageData(shape.width, shape.height);
    copyToRgba(shape.pixels, 0, shape.width * 4, shape.width, shape.height, shape.format, false, image.data);
    const canvas = new OffscreenCanvas(shape.width, shape.height);
    const context = canvas.getContext('2d');
    if (!context) throw new Error('cannot create the pointer 2d context');
    context.putImageData(image, 0, 0);
    this.pointerShape = shape;
    this.pointerImage = canvas;
  }

  present(): void {
    const started = performance.now();
    const context = this.context;
    const area = this.drawArea();
    context.fillStyle = '#000';
    context.fillRect(area.x, area.y, area.width, area.height);
    const backing = this.backing;
    if (backing) {
      const box = this.desktopBox(area, backing.width, backing.height);
      context.imageSmoothingEnabled = box.scale !== 1;
      context.drawImage(backing, box.x, box.y, box.width, box.height);
      const at = this.pointerImage && this.pointerShape ? this.pointerPlace(box, this.pointerShape) : null;
      if (this.pointerImage && at) context.drawImage(this.pointerImage, at.x, at.y, at.width, at.height);
    }
    this.presented(started);
  }

  destroy(): void {
    this.backing = null;
    this.backingContext = null;
    this.pointerImage = null;
  }
}
