// Messages of the render worker, which owns the OffscreenCanvas. Frames may
// come from the page or straight from the session worker through a
// MessagePort; pixel views over a SharedArrayBuffer cross without a copy.
import type { PixelFormat, PointerShape, Rect } from './frame.js';
import type { RendererOptions } from './renderer.js';
import type { RenderStats, RendererKind } from './renderStats.js';

export interface RenderFrameMessage {
  readonly type: 'frame';
  readonly id: number;
  readonly pixels: Uint8Array;
  readonly stride: number;
  readonly format: PixelFormat;
  readonly rects: readonly Rect[];
  /** When the frame's first input reached the session worker (performance.timeOrigin + now, ms). */
  readonly receivedAt?: number;
  /** Present at once instead of at the next animation frame (benchmarks). */
  readonly presentNow?: boolean;
}

export type RenderWorkerRequest =
  | { readonly type: 'init'; readonly canvas: OffscreenCanvas; readonly options: RendererOptions; readonly width: number; readonly height: number }
  /** `surface`: which source's picture the port's frames paint (a room's slot); 0 when absent. */
  | { readonly type: 'attach-port'; readonly port: MessagePort; readonly surface?: number }
  /**
   * Where a surface sits on the canvas, as fractions of its size (a room's
   * layout: protocol's slotRects); null: the whole canvas. `transitionMs`:
   * how long it glides from where it is now (0: at once).
   */
  | { readonly type: 'surface-rect'; readonly surface: number; readonly rect: SurfaceRect | null; readonly transitionMs: number }
  /** The surface's source ended: its picture goes, its texture is freed. */
  | { readonly type: 'surface-remove'; readonly surface: number }
  | { readonly type: 'canvas-size'; readonly width: number; readonly height: number }
  | { readonly type: 'desktop-size'; readonly width: number; readonly height: number }
  | RenderFrameMessage
  | { readonly type: 'pointer-shape'; readonly shape: PointerShape | null }
  | { readonly type: 'pointer-move'; readonly x: number; readonly y: number }
  | { readonly type: 'pointer-visible'; readonly visible: boolean }
  /** A copy of the canvas as presented now (ink saves it under the ink: issue 30). */
  | { readonly type: 'snapshot'; readonly id: number };

/** Fractions (0..1) of the canvas's width and height; 0 × 0 is hidden. */
export interface SurfaceRect {
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
}

export type RenderWorkerReply =
  | { readonly type: 'ready'; readonly kind: RendererKind; readonly warning: string | null }
  /** `surface`: whose picture this present changed (several per present when several sources changed). */
  | { readonly type: 'stats'; readonly stats: RenderStats; readonly surface: number }
  /** The WebGL context was lost (the picture freezes) or is back (redrawn from the last frame). */
  | { readonly type: 'context'; readonly state: 'lost' | 'restored' }
  /** The frame's pixels were uploaded: the decoder may overwrite them. */
  | { readonly type: 'frame-consumed'; readonly id: number }
  | { readonly type: 'error'; readonly message: string }
  /** The canvas at the size it is drawn, or null when it cannot be read (no renderer, a lost context). */
  | { readonly type: 'snapshot'; readonly id: number; readonly bitmap: ImageBitmap | null };
