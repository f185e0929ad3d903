import type { FrameUpdate, PixelFormat, PointerShape, Rect } from './frame.js';
import { clipRect } from './clipRect.js';
import { LetterboxRenderer } from './letterboxRenderer.js';
import { createQuadProgram, type QuadProgram } from './quadProgram.js';
import type { RenderCanvas } from './renderCanvas.js';
import type { Renderer, RendererOptions } from './renderer.js';

interface PointerState {
  texture: WebGLTexture;
  width: number;
  height: number;
  hotspotX: number;
  hotspotY: number;
  format: PixelFormat;
}

/**
 * The WebGL2 path: dirty rectangles go from the caller's (Shared)ArrayBuffer
 * view straight into the texture via UNPACK_ROW_LENGTH/SKIP_*, so the renderer
 * makes no copy of its own.
 */
export class WebGL2Renderer extends LetterboxRenderer implements Renderer {
  readonly kind = 'webgl2' as const;
  readonly warning = null;

  private readonly gl: WebGL2RenderingContext;
  private readonly quad: QuadProgram;
  private readonly syncTiming: boolean;
  private readonly syncPixel = new Uint8Array(4);
  private desktopTexture: WebGLTexture | null = null;
  private desktopWidth = 0;
  private desktopHeight = 0;
  private desktopFormat: PixelFormat = 'bgra';
  private pointer: PointerState | null = null;

  constructor(canvas: RenderCanvas, gl: WebGL2RenderingContext, options: RendererOptions = {}) {
    super(canvas);
    this.gl = gl;
    this.syncTiming = options.syncTiming ?? false;
    this.quad = createQuadProgram(gl);
    gl.disable(gl.DEPTH_TEST);
    gl.blendFunc(gl.SRC_ALPHA, gl.ONE_MINUS_SRC_ALPHA);
    gl.pixelStorei(gl.UNPACK_ALIGNMENT, 4);
  }

  clear(): void {
    const gl = this.gl;
    gl.viewport(0, 0, this.canvas.width, this.canvas.height);
    gl.clearColor(0, 0, 0, 1);
    gl.clear(gl.COLOR_BUFFER_BIT);
  }

  setDesktopSize(width: number, height: number): void {
    const gl = this.gl;
    if (this.desktopTexture) gl.deleteTexture(this.desktopTexture);
    this.desktopTexture = null;
    this.desktopWidth = width;
    this.desktopHeight = height;
    if (width <= 0 || height <= 0) return;
    const texture = this.newTexture();
    gl.texStorage2D(gl.TEXTURE_2D, 1, gl.RGBA8, width, height);
    // texStorage leaves contents undefined: start from black, not garbage.
    gl.pixelStorei(gl.UNPACK_ROW_LENGTH, 0);
    gl.pixelStorei(gl.UNPACK_SKIP_PIXELS, 0);
    gl.pixelStorei(gl.UNPACK_SKIP_ROWS, 0);
    gl.texSubImage2D(gl.TEXTURE_2D, 0, 0, 0, width, height, gl.RGBA, gl.UNSIGNED_BYTE, new Uint8Array(width * height * 4));
    this.desktopTexture = texture;
  }

  update(frame: FrameUpdate): void {
    const gl = this.gl;
    if (!this.desktopTexture) throw new Error('update before setDesktopSize');
    if (frame.stride % 4 !== 0) throw new Error(`stride ${frame.stride} is not a whole number of pixels`);
    const started = performance.now();
    this.desktopFormat = frame.format;
    gl.bindTexture(gl.TEXTURE_2D, this.desktopTexture);
    gl.pixelStorei(gl.UNPACK_ROW_LENGTH, frame.stride / 4);
    for (const rect of frame.rects) {
      const r = clipRect(rect, this.desktopWidth, this.desktopHeight);
      if (!r) continue;
      gl.pixelStorei(gl.UNPACK_SKIP_PIXELS, r.x);
      gl.pixelStorei(gl.UNPACK_SKIP_ROWS, r.y);
      gl.texSubImage2D(gl.TEXTURE_2D, 0, r.x, r.y, r.width, r.height, gl.RGBA, gl.UNSIGNED_BYTE, frame.pixels, 0);
      this.tally.rects += 1;
      this.tally.pixels += r.width * r.height;
    }
    gl.pixelStorei(gl.UNPACK_ROW_LENGTH, 0);
    gl.pixelStorei(gl.UNPACK_SKIP_PIXELS, 0);
    gl.pixelStorei(gl.UNPACK_SKIP_ROWS, 0);
    if (this.syncTiming) this.waitForGpu();
    this.tally.uploadMs += performance.now() - started;
  }

  setPointer(shape: PointerShape | null): void {
    const gl = this.gl;
    if (this.pointer) gl.deleteTexture(this.pointer.texture);
    this.pointer = null;
    if (!shape || shape.width <= 0 || shape.height <= 0) return;
    const texture = this.newTexture();
    gl.texStorage2D(gl.TEXTURE_2D, 1, gl.RGBA8, shape.width, shape.height);
    gl.texSubImage2D(gl.TEXTURE_2D, 0, 0, 0, shape.width, shape.height, gl.RGBA, gl.UNSIGNED_BYTE, shape.pixels, 0);
    this.pointer = {
      texture,
      width: shape.width,
      height: shape.height,
      hotspotX: shape.hotspotX,
      hotspotY: shape.hotspotY,
      format: shape.format,
    };
  }

  present(): void {
    const gl = this.gl;
    const started = performance.now();
    const width = this.canvas.width;
    const height = this.canvas.height;
    gl.viewport(0, 0, width, height);
    gl.clearColor(0, 0, 0, 1);
    const area = this.drawArea();
    if (this.viewport) {
      // Clear and draw inside the viewport only (the pointer too); GL's scissor counts rows from the bottom.
      gl.enable(gl.SCISSOR_TEST);
      gl.scissor(area.x, height - area.y - area.height, area.width, area.height);
    }
    gl.clear(gl.COLOR_BUFFER_BIT);
    const box = this.desktopBox(area, this.desktopWidth, this.desktopHeight);
    if (this.desktopTexture && box.width > 0) {
      gl.useProgram(this.quad.program);
      gl.activeTexture(gl.TEXTURE0);
      gl.uniform1i(this.quad.texture, 0);
      gl.bindTexture(gl.TEXTURE_2D, this.desktopTexture);
      // Exact texels at 1:1; smooth scaling otherwise.
      const filter = box.scale === 1 ? gl.NEAREST : gl.LINEAR;
      gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, filter);
      gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MAG_FILTER, filter);
      this.drawQuad(box, width, height, this.desktopFormat, true);
      const p = this.pointer;
      const at = p ? this.pointerPlace(box, p) : null;
      if (p && at) {
        gl.bindTexture(gl.TEXTURE_2D, p.texture);
        gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, filter);
        gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MAG_FILTER, filter);
        gl.enable(gl.BLEND);
        this.drawQuad(at, width, height, p.format, false);
        gl.disable(gl.BLEND);
      }
    }
    gl.disable(gl.SCISSOR_TEST);
    if (this.syncTiming) this.waitForGpu();
    this.presented(started);
  }

  destroy(): void {
    const gl = this.gl;
    if (this.desktopTexture) gl.deleteTexture(this.desktopTexture);
    if (this.pointer) gl.deleteTexture(this.pointer.texture);
    gl.deleteProgram(this.quad.program);
    this.desktopTexture = null;
    this.pointer = null;
  }

  /**
   * gl.finish() returns before the GPU process is done in Chromium; reading
   * one pixel back cannot, so timings include the work itself.
   */
  private waitForGpu(): void {
    const gl = this.gl;
    gl.readPixels(0, 0, 1, 1, gl.RGBA, gl.UNSIGNED_BYTE, this.syncPixel);
  }

  private newTexture(): WebGLTexture {
    const gl = this.gl;
    const texture = gl.createTexture();
    gl.bindTexture(gl.TEXTURE_2D, texture);
    gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_WRAP_S, gl.CLAMP_TO_EDGE);
    gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_WRAP_T, gl.CLAMP_TO_EDGE);
    gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, gl.NEAREST);
    gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MAG_FILTER, gl.NEAREST);
    return texture;
  }

  private drawQuad(dst: Rect, canvasWidth: number, canvasHeight: number, format: PixelFormat, opaque: boolean): void {
    const gl = this.gl;
    const left = (dst.x / canvasWidth) * 2 - 1;
    const right = ((dst.x + dst.width) / canvasWidth) * 2 - 1;
    const top = 1 - (dst.y / canvasHeight) * 2;
    const bottom = 1 - ((dst.y + dst.height) / canvasHeight) * 2;
    gl.uniform4f(this.quad.dst, left, top, right, bottom);
    gl.uniform1i(this.quad.bgra, format === 'bgra' ? 1 : 0);
    gl.uniform1i(this.quad.opaque, opaque ? 1 : 0);
    gl.drawArrays(gl.TRIANGLE_STRIP, 0, 4);
  }
}

