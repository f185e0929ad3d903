// The canvases a renderer can draw on, typed structurally so that the same
// code compiles for the page (HTMLCanvasElement) and for a Worker
// (OffscreenCanvas), whose TypeScript libs do not know each other's classes.

/** The part of a 2D context the Canvas2D fallback uses. */
export type Canvas2DContext = Pick<
  OffscreenCanvasRenderingContext2D,
  'putImageData' | 'drawImage' | 'fillRect' | 'fillStyle' | 'imageSmoothingEnabled'
>;

export interface RenderCanvas {
  width: number;
  height: number;
  getContext(contextId: 'webgl2', options?: WebGLContextAttributes): WebGL2RenderingContext | null;
  getContext(contextId: '2d', options?: { alpha?: boolean; desynchronized?: boolean }): Canvas2DContext | null;
  /** For webglcontextlost / webglcontextrestored. */
  addEventListener(type: string, listener: (event: Event) => void): void;
}
