// The render worker: hosts one renderer on an OffscreenCanvas so that uploads
// and draws never block the page. Uploads happen as frames arrive (so the
// decoder gets its memory back at once); presents are coalesced per
// animation frame.
import { createRenderer } from './createRenderer.js';
import { RecoveringRenderer } from './recoveringRenderer.js';
import type { Renderer, RendererOptions } from './renderer.js';
import type { RenderStats } from './renderStats.js';
import type { RenderWorkerReply, RenderWorkerRequest, SurfaceRect } from './renderWorkerProtocol.js';
import type { Rect } from './frame.js';
import { StripLatencyProbe } from './stripLatencyProbe.js';

declare const self: DedicatedWorkerGlobalScope;

/**
 * One source's picture on the shared canvas: its own renderer (texture,
 * pointer) drawing into its own part of the canvas. A page with one session
 * has surface 0 only, filling the canvas; a room has one per occupied slot.
 */
interface Surface {
  readonly renderer: Renderer;
  /** Where it glides from and to (fractions of the canvas; null: all of it), and when the glide started. */
  from: SurfaceRect | null;
  to: SurfaceRect | null;
  glideStartedAt: number;
  glideMs: number;
  /** Something of it changed since its last present: its statistics are reported. */
  changed: boolean;
  /** It shows a source where it stands: a new rectangle glides from there (else it appears in place). */
  placed: boolean;
}

const surfaces = new Map<number, Surface>();
/** The port of the session drawing on each surface (one at a time). */
const sessionPorts = new Map<number, MessagePort>();
let canvas: OffscreenCanvas | null = null;
let rendererOptions: RendererOptions = {};
let canvasWidth = 0;
let canvasHeight = 0;
/** Stats of the present under way: the first surface's get the present's latencies. */
let latencyTaken = false;
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

/** ease-out: a glide starts quickly and settles gently. */
function eased(t: number): number {
  return 1 - (1 - t) ** 3;
}

function between(a: SurfaceRect | null, b: SurfaceRect | null, t: number): SurfaceRect | null {
  if (t >= 1) return b;
  const whole = { x: 0, y: 0, width: 1, height: 1 };
  const from = a ?? whole;
  const to = b ?? whole;
  const mix = (p: number, q: number): number => p + (q - p) * eased(t);
  return { x: mix(from.x, to.x), y: mix(from.y, to.y), width: mix(from.width, to.width), height: mix(from.height, to.height) };
}

/** Where the surface is at `now` (fractions), and whether it is still gliding. */
function placeAt(surface: Surface, now: number): { rect: SurfaceRect | null; gliding: boolean } {
  const t = surface.glideMs <= 0 ? 1 : (now - surface.glideStartedAt) / surface.glideMs;
  return { rect: between(surface.from, surface.to, Math.max(0, t)), gliding: t < 1 };
}

/** Fractions to whole canvas pixels, edges rounded so that neighbours meet without a gap. */
function toPixels(rect: SurfaceRect): Rect {
  const left = Math.round(rect.x * canvasWidth);
  const top = Math.round(rect.y * canvasHeight);
  return { x: left, y: top, width: Math.round((rect.x + rect.width) * canvasWidth) - left, height: Math.round((rect.y + rect.height) * canvasHeight) - top };
}

/**
 * Draws every surface: the drawing buffer is not preserved between frames, so
 * a present of one source redraws them all (one quad each; uploads happened
 * as frames arrived). A surface alone with no rectangle draws as a page with
 * one session always has.
 */
function presentAll(): void {
  const now = performance.now();
  const list = [...surfaces.values()];
  const first = list[0];
  if (!first) return;
  latencyTaken = false;
  let gliding = false;
  if (list.length > 1 || first.to !== null || first.from !== null) first.renderer.clear();
  for (const surface of list) {
    const place = placeAt(surface, now);
    gliding ||= place.gliding;
    const viewport = place.rect === null ? null : toPixels(place.rect);
    if (viewport !== null && (viewport.width <= 0 || viewport.height <= 0)) {
      surface.changed = false;
      continue;
    }
    surface.renderer.setViewport(viewport);
    surface.renderer.present();
  }
  // The next step of a glide waits for the next animation frame; never the at-once path
  // of schedulePresent, which presents within this present again (and again: a glide
  // under a backlog of frames recursed until the stack ran out).
  if (gliding) {
    presentDue = true;
    requestFrame();
  }
}

function presentIfDue(): void {
  if (!presentDue) return;
  presentDue = false;
  presentAll();
}

function requestFrame(): void {
  if (presentScheduled) return;
  presentScheduled = true;
  presentAskedAt = performance.now();
  self.requestAnimationFrame(() => {
    presentScheduled = false;
    presentIfDue();
  });
}

function schedulePresent(): void {
  presentDue = true;
  if (presentScheduled) {
    if (performance.now() - presentAskedAt > MAX_PRESENT_WAIT_MS) presentIfDue();
    return;
  }
  requestFrame();
}

function makeRenderer(id: number): Renderer {
  if (!canvas) throw new Error(`surface ${id} before init`);
  const created = createRenderer(canvas, rendererOptions);
  created.setCanvasSize(canvasWidth, canvasHeight);
  const surfaceOf = (): Surface | undefined => surfaces.get(id);
  created.onstatistics = (stats) => {
    const surface = surfaceOf();
    if (!surface?.changed) return;
    surface.changed = false;
    const withLatencies = latencyTaken ? stats : withLatency(stats);
    latencyTaken = true;
    reply({ type: 'stats', stats: withLatencies, surface: id });
  };
  // Every surface's renderer hears the canvas's context events; the page needs to hear them once.
  if (created instanceof RecoveringRenderer && id === 0) created.oncontextchange = (state) => reply({ type: 'context', state });
  return created;
}

/** The surface, made on first use (a room's slot whose session starts). */
function surfaceFor(id: number): Surface {
  let surface = surfaces.get(id);
  if (!surface) {
    surface = { renderer: makeRenderer(id), from: null, to: null, glideStartedAt: 0, glideMs: 0, changed: false, placed: id === 0 };
    surfaces.set(id, surface);
  }
  return surface;
}

function handle(message: RenderWorkerRequest, from?: MessagePort, fromSurface = 0): void {
  if (message.type === 'init') {
    for (const surface of surfaces.values()) surface.renderer.destroy();
    surfaces.clear();
    canvas = message.canvas;
    rendererOptions = message.options;
    canvasWidth = message.width;
    canvasHeight = message.height;
    const main = surfaceFor(0);
    reply({ type: 'ready', kind: main.renderer.kind, warning: main.renderer.warning });
    return;
  }
  if (message.type === 'attach-port') {
    const port = message.port;
    const surface = message.surface ?? 0;
    // A slot's new session (a take-over) replaces the old one's port: the old one's late frames are not the new picture.
    sessionPorts.get(surface)?.close();
    sessionPorts.set(surface, port);
    port.onmessage = (event: MessageEvent<RenderWorkerRequest>) => {
      if (sessionPorts.get(surface) === port) safely(event.data, port, surface);
    };
    return;
  }
  if (message.type === 'snapshot') {
    snapshot(message.id);
    return;
  }
  if (!canvas) throw new Error(`${message.type} before init`);
  switch (message.type) {
    case 'canvas-size':
      canvasWidth = message.width;
      canvasHeight = message.height;
      for (const surface of surfaces.values()) {
        surface.renderer.setCanvasSize(message.width, message.height);
        surface.changed = true;
      }
      schedulePresent();
      break;
    case 'surface-rect': {
      const surface = surfaceFor(message.surface);
      const now = performance.now();
      const fresh = !surface.placed;
      surface.placed = true;
      // A glide starts from wherever the surface is now, mid-glide included; a new surface appears in place.
      surface.from = fresh ? message.rect : placeAt(surface, now).rect;
      surface.to = message.rect;
      surface.glideStartedAt = now;
      surface.glideMs = fresh ? 0 : message.transitionMs;
      surface.changed = true;
      schedulePresent();
      break;
    }
    case 'surface-remove': {
      // Its session's port goes with it: a frame still on its way would otherwise make the surface
      // again (surfaceFor), unsized and unplaced, and draw it over the whole canvas ("update before setDesktopSize").
      sessionPorts.get(message.surface)?.close();
      sessionPorts.delete(message.surface);
      const surface = surfaces.get(message.surface);
      if (!surface) break;
      if (message.surface === 0) {
        // Surface 0 stays (its renderer answers for the page's context events); its picture goes, and it fills the canvas again.
        surface.renderer.setDesktopSize(0, 0);
        surface.renderer.setPointer(null);
        surface.from = surface.to = null;
        surface.glideMs = 0;
        surface.placed = false;
      } else {
        surface.renderer.destroy();
        surfaces.delete(message.surface);
      }
      schedulePresent();
      break;
    }
    default:
      forSurface(message, surfaceFor(fromSurface), fromSurface, from);
  }
}

/** A message from a session (through its port) or the page about one surface's picture. */
function forSurface(message: RenderWorkerRequest, surface: Surface, id: number, from?: MessagePort): void {
  const renderer = surface.renderer;
  surface.changed = true;
  switch (message.type) {
    case 'desktop-size':
      renderer.setDesktopSize(message.width, message.height);
      if (id === 0) stripProbe.setDesktopSize(message.width, message.height);
      schedulePresent();
      break;
    case 'frame':
      if (message.receivedAt !== undefined) oldestReceivedAt = Math.min(oldestReceivedAt ?? Infinity, message.receivedAt);
      renderer.update(message);
      // before the pixels go back to the decoder
      if (id === 0) stripProbe.onFrame(message);
      reply({ type: 'frame-consumed', id: message.id }, from);
      if (message.presentNow === true) {
        presentDue = false;
        presentAll();
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
    default:
      break;
  }
}

/**
 * Draws the picture now (every surface, as composited) and copies the canvas
 * in the same task: the drawing buffer is not preserved
 * (preserveDrawingBuffer false), so only a copy made before the compositor
 * takes the frame holds it.
 */
function snapshot(id: number): void {
  if (!canvas || surfaces.size === 0) {
    reply({ type: 'snapshot', id, bitmap: null });
    return;
  }
  presentDue = false;
  presentAll();
  createImageBitmap(canvas).then(
    (bitmap) => self.postMessage({ type: 'snapshot', id, bitmap } satisfies RenderWorkerReply, [bitmap]),
    () => reply({ type: 'snapshot', id, bitmap: null }),
  );
}

function safely(message: RenderWorkerRequest, from?: MessagePort, surface = 0): void {
  try {
    handle(message, from, surface);
  } catch (error) {
    reply({ type: 'error', message: error instanceof Error ? error.message : String(error) });
  }
}

self.onmessage = (event: MessageEvent<RenderWorkerRequest>) => safely(event.data);
