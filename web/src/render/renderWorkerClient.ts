// The page's handle on the render worker: moves a canvas into it and forwards
// sizes; frames usually reach the worker through a port, not through here.
import type { PointerShape } from './frame.js';
import type { RendererOptions } from './renderer.js';
import type { RenderFrameMessage, RenderWorkerReply, RenderWorkerRequest, SurfaceRect } from './renderWorkerProtocol.js';
import type { RenderStats, RendererKind } from './renderStats.js';

export interface RenderWorkerEvents {
  onready?: (kind: RendererKind, warning: string | null) => void;
  /** `surface`: whose picture changed (0 on a page with one session; the slot in a room). */
  onstatistics?: (stats: RenderStats, surface: number) => void;
  onerror?: (message: string) => void;
  oncontextchange?: (state: 'lost' | 'restored') => void;
  onframeconsumed?: (id: number) => void;
}

export class RenderWorkerClient {
  private readonly worker: Worker;
  private snapshots = new Map<number, (bitmap: ImageBitmap | null) => void>();
  private nextSnapshot = 1;

  constructor(canvas: HTMLCanvasElement, workerUrl: URL | string, options: RendererOptions, private readonly events: RenderWorkerEvents) {
    this.worker = new Worker(workerUrl, { type: 'module', name: 'lanterna-render' });
    this.worker.onmessage = (event: MessageEvent<RenderWorkerReply>) => this.dispatch(event.data);
    this.worker.onerror = (event) => this.events.onerror?.(event.message || 'the render worker failed to start');
    const width = canvas.width;
    const height = canvas.height;
    const offscreen = canvas.transferControlToOffscreen();
    this.post({ type: 'init', canvas: offscreen, options, width, height }, [offscreen]);
  }

  /** Gives the worker one end of a channel whose other end sends frames (the session worker); they paint `surface` (a room's slot). */
  attachPort(port: MessagePort, surface = 0): void {
    this.post({ type: 'attach-port', port, surface }, [port]);
  }

  /** Where a surface sits (fractions of the canvas; null: all of it), gliding there over `transitionMs`. */
  setSurfaceRect(surface: number, rect: SurfaceRect | null, transitionMs: number): void {
    this.post({ type: 'surface-rect', surface, rect, transitionMs });
  }

  /** The surface's source ended: its picture goes. */
  removeSurface(surface: number): void {
    this.post({ type: 'surface-remove', surface });
  }

  setCanvasSize(width: number, height: number): void {
    this.post({ type: 'canvas-size', width, height });
  }

  setDesktopSize(width: number, height: number): void {
    this.post({ type: 'desktop-size', width, height });
  }

  sendFrame(frame: RenderFrameMessage): void {
    this.post(frame);
  }

  setPointer(shape: PointerShape | null): void {
    this.post({ type: 'pointer-shape', shape });
  }

  movePointer(x: number, y: number): void {
    this.post({ type: 'pointer-move', x, y });
  }

  /** The canvas as presented now, at its own size (null when it cannot be read). */
  snapshot(): Promise<ImageBitmap | null> {
    const id = this.nextSnapshot++;
    return new Promise((resolve) => {
      this.snapshots.set(id, resolve);
      this.post({ type: 'snapshot', id });
    });
  }

  terminate(): void {
    this.worker.terminate();
  }

  private post(message: RenderWorkerRequest, transfer: Transferable[] = []): void {
    this.worker.postMessage(message, transfer);
  }

  private dispatch(reply: RenderWorkerReply): void {
    switch (reply.type) {
      case 'ready':
        this.events.onready?.(reply.kind, reply.warning);
        break;
      case 'stats':
        this.events.onstatistics?.(reply.stats, reply.surface);
        break;
      case 'error':
        this.events.onerror?.(reply.message);
        break;
      case 'context':
        this.events.oncontextchange?.(reply.state);
        break;
      case 'frame-consumed':
        this.events.onframeconsumed?.(reply.id);
        break;
      case 'snapshot': {
        const resolve = this.snapshots.get(reply.id);
        this.snapshots.delete(reply.id);
        resolve?.(reply.bitmap);
        break;
      }
    }
  }
}
