// The render worker: hosts one renderer on an OffscreenCanvas so that uploads
// and draws never block the page. Uploads happen as frames arrive (so the
// decoder gets its memory back at once); presents are coalesced per
// animation frame.
import { createRenderer } from './createRenderer.js';
import { RecoveringRenderer } from './recoveringRenderer.js';
import type { Renderer } from './renderer.js';
import type { RenderStats } from './renderStats.js';
import type { RenderWorkerReply, RenderWorkerRequest } from './renderWorkerProtocol.js';
import { StripLatencyProbe } from './stripLatencyProbe.js';

declare const self: DedicatedWorkerGlobalScope;

let renderer: Renderer | null = null;
let canvas: OffscreenCanvas | null = null;
let presentScheduled = false;
/** Something changed since the last present. */
let presentDue = false;
/** When the animation frame now awaited was asked for. */
let presentAskedAt = 0;
/**
 * How long a change may wait for its animation frame before it is presented
 * at once. A worker whose messages each take long never reaches an animation
 * frame while the next message is already queued: at 3840×2160 on SwiftShader
 * each RemoteFX frame's upload took ≈1 s, the decoder sent the next as soon as
 * this one was handed back, and nothing was presented for a minute
 * (docs/performance.md "Panel sizes").
 */
const MAX_PRESENT_WAIT_MS = 100;
/** The oldest receivedAt among frames uploaded since the last present. */
let oldestReceivedAt: number | null = null;

const stripProbe = new StripLatencyProbe();

/** Called as the renderer reports a finished present: the latencies it ends. */
function withLatency(stats: RenderStats): RenderStats {
  const now = performance.timeOrigin + performance.now();
  const strip = stripProbe.onPresent(now);
  const withStrip = strip ? { ...stats, strip } : stats;
  if (oldestReceivedAt === null) return withStrip;
  const receiveToDrawMs = now - oldestReceivedAt;
  oldestReceivedAt = null;
  return { ...withStrip, receiveToDrawMs };
}

function reply(message: RenderWorkerReply, port?: MessagePort): void {
  if (port) port.postMessage(message);
  else self.postMessage(message);
}

function presentIfDue(): void {
  if (!presentDue) return;
  presentDue = false;
  renderer?.present();
}

function schedulePresent(): void {
  presentDue = true;
  if (presentScheduled) {
    if (performance.now() - presentAskedAt > MAX_PRESENT_WAIT_MS) presentIfDue();
    return;
  }
  presentScheduled = true;
  presentAskedAt = performance.now();
  self.requestAnimationFrame(() => {
    presentScheduled = false;
    presentIfDue();
  });
}

function handle(message: RenderWorkerRequest, from?: MessagePort): void {
  if (message.type === 'init') {
    renderer?.destroy();
    const created = createRenderer(message.canvas, message.options);
    created.setCanvasSize(message.width, message.height);
    created.onstatistics = (stats) => reply({ type: 'stats', stats: withLatency(stats) });
    if (created instanceof RecoveringRenderer) created.oncontextchange = (state) => reply({ type: 'context', state });
    renderer = created;
    canvas = message.canvas;
    reply({ type: 'ready', kind: created.kind, warning: created.warning });
    return;
  }
  if (message.type === 'attach-port') {
    const port = message.port;
    port.onmessage = (event: MessageEvent<RenderWorkerRequest>) => safely(event.data, port);
    return;
  }
  if (message.type === 'snapshot') {
    snapshot(message.id);
    return;
  }
  if (!renderer) throw new Error(`${message.type} before init`);
  switch (message.type) {
    case 'canvas-size':
      renderer.setCanvasSize(message.width, message.height);
      schedulePresent();
      break;
    case 'desktop-size':
      renderer.setDesktopSize(message.width, message.height);
      stripProbe.setDesktopSize(message.width, message.height);
      schedulePresent();
      break;
    case 'frame':
      if (message.receivedAt !== undefined) oldestReceivedAt = Math.min(oldestReceivedAt ?? Infinity, message.receivedAt);
      renderer.update(message);
      // before the pixels go back to the decoder
      stripProbe.onFrame(message);
      reply({ type: 'frame-consumed', id: message.id }, from);
      if (message.presentNow === true) {
        presentDue = false;
        renderer.present();
      } else schedulePresent();
      break;
    case 'pointer-shape':
      renderer.setPointer(message.shape);
      schedulePresent();
      break;
    case 'pointer-move':
      renderer.movePointer(message.x, message.y);
      schedulePresent();
      break;
    case 'pointer-visible':
      renderer.setPointerVisible(message.visible);
      schedulePresent();
      break;
  }
}

/**
 * Draws the picture now and copies the canvas in the same task: the drawing
 * buffer is not preserved (preserveDrawingBuffer false), so only a copy made
 * before the compositor takes the frame holds it.
 */
function snapshot(id: number): void {
  if (!renderer || !canvas) {
    reply({ type: 'snapshot', id, bitmap: null });
    return;
  }
  presentDue = false;
  renderer.present();
  createImageBitmap(canvas).then(
    (bitmap) => self.postMessage({ type: 'snapshot', id, bitmap } satisfies RenderWorkerReply, [bitmap]),
    () => reply({ type: 'snapshot', id, bitmap: null }),
  );
}

function safely(message: RenderWorkerRequest, from?: MessagePort): void {
  try {
    handle(message, from);
  } catch (error) {
    reply({ type: 'error', message: error instanceof Error ? error.message : String(error) });
  }
}

self.onmessage = (event: MessageEvent<RenderWorkerRequest>) => safely(event.data);
