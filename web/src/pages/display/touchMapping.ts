// Where a touch on the display page lands on a presenter's desktop (issue 30):
// through the source's slot (several sources on one display, the `layout`
// message's rectangle) and the letterbox inside it (a desktop that is not
// the slot's size), with exactly the render worker's arithmetic — its
// toPixels rounding of the slot and render/letterbox.ts — so a finger on a
// pixel of the picture is that pixel of the desktop. Pure.
import { computeLetterbox } from '../../render/letterbox.js';

export interface Size {
  readonly width: number;
  readonly height: number;
}

/** A slot's place on the panel, as fractions (null: the whole canvas, a display with one source). */
export interface SlotFraction {
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
}

/** The slot's rectangle in canvas pixels, rounded as render.worker.ts rounds it. */
export function slotArea(canvas: Size, rect: SlotFraction | null): { x: number; y: number; width: number; height: number } {
  if (rect === null) return { x: 0, y: 0, width: canvas.width, height: canvas.height };
  const left = Math.round(rect.x * canvas.width);
  const top = Math.round(rect.y * canvas.height);
  return { x: left, y: top, width: Math.round((rect.x + rect.width) * canvas.width) - left, height: Math.round((rect.y + rect.height) * canvas.height) - top };
}

/** Whether a canvas point lies in the slot's rectangle. */
export function inSlot(point: { x: number; y: number }, canvas: Size, rect: SlotFraction | null): boolean {
  const area = slotArea(canvas, rect);
  return point.x >= area.x && point.x < area.x + area.width && point.y >= area.y && point.y < area.y + area.height;
}

/**
 * The desktop pixel under a canvas point (canvas pixels, fractions allowed),
 * or null when the point is outside the picture (another slot, or the
 * letterbox's bars). Desktop pixel d covers canvas [box.x + d·k, box.x + (d+1)·k)
 * with k = box.width / desktop.width.
 */
export function desktopPoint(point: { x: number; y: number }, canvas: Size, rect: SlotFraction | null, desktop: Size): { x: number; y: number } | null {
  const area = slotArea(canvas, rect);
  if (area.width <= 0 || area.height <= 0 || desktop.width <= 0 || desktop.height <= 0) return null;
  const fitted = computeLetterbox(area.width, area.height, desktop.width, desktop.height);
  const left = area.x + fitted.x;
  const top = area.y + fitted.y;
  if (point.x < left || point.y < top || point.x >= left + fitted.width || point.y >= top + fitted.height) return null;
  const x = Math.floor(((point.x - left) * desktop.width) / fitted.width);
  const y = Math.floor(((point.y - top) * desktop.height) / fitted.height);
  return { x: Math.min(Math.max(x, 0), desktop.width - 1), y: Math.min(Math.max(y, 0), desktop.height - 1) };
}

/** Where a canvas point lies on the picture as fractions of it (0..1), or null off the picture: a browser presenter's laser (issue 30). */
export function pictureFraction(point: { x: number; y: number }, canvas: Size, rect: SlotFraction | null, desktop: Size): { x: number; y: number } | null {
  const area = slotArea(canvas, rect);
  if (area.width <= 0 || area.height <= 0 || desktop.width <= 0 || desktop.height <= 0) return null;
  const fitted = computeLetterbox(area.width, area.height, desktop.width, desktop.height);
  const x = (point.x - area.x - fitted.x) / fitted.width;
  const y = (point.y - area.y - fitted.y) / fitted.height;
  return x >= 0 && x < 1 && y >= 0 && y < 1 ? { x, y } : null;
}

/** A pointer event's place in canvas pixels: the canvas may be drawn at another size than its pixels (device pixel ratio). */
export function canvasPoint(clientX: number, clientY: number, box: { left: number; top: number; width: number; height: number }, canvas: Size): { x: number; y: number } {
  return {
    x: box.width > 0 ? ((clientX - box.left) * canvas.width) / box.width : 0,
    y: box.height > 0 ? ((clientY - box.top) * canvas.height) / box.height : 0,
  };
}
