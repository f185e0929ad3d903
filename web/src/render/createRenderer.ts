import { Canvas2DRenderer } from './canvas2dRenderer.js';
import type { RenderCanvas } from './renderCanvas.js';
import { RecoveringRenderer } from './recoveringRenderer.js';
import type { Renderer, RendererOptions } from './renderer.js';
import { WebGL2Renderer } from './webgl2Renderer.js';

/**
 * WebGL2 when the browser offers it (recovering from a lost context), else the
 * Canvas2D fallback (which carries a warning).
 */
export function createRenderer(canvas: RenderCanvas, options: RendererOptions = {}): Renderer {
  if (options.preferCanvas2D !== true) {
    const gl = canvas.getContext('webgl2', {
      alpha: false,
      antialias: false,
      depth: false,
      stencil: false,
      premultipliedAlpha: false,
      preserveDrawingBuffer: false,
      desynchronized: true,
      powerPreference: 'high-performance',
    });
    // After a loss the browser restores this same context object: a new renderer on it rebuilds the GL state.
    if (gl) return new RecoveringRenderer(canvas, () => new WebGL2Renderer(canvas, gl, options));
  }
  const context = canvas.getContext('2d', { alpha: false, desynchronized: true });
  if (!context) throw new Error('neither webgl2 nor a 2d context is available');
  return new Canvas2DRenderer(canvas, context, options);
}
