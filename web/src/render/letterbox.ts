import type { Rect } from './frame.js';

export interface Letterbox extends Rect {
  /** Canvas pixels per desktop pixel. */
  readonly scale: number;
}

/**
 * Where the desktop lands on the canvas: as large as fits with its own aspect,
 * centred, whole canvas pixels so that 1:1 stays exact.
 */
export function computeLetterbox(canvasWidth: number, canvasHeight: number, desktopWidth: number, desktopHeight: number): Letterbox {
  if (desktopWidth <= 0 || desktopHeight <= 0 || canvasWidth <= 0 || canvasHeight <= 0) {
    return { x: 0, y: 0, width: 0, height: 0, scale: 0 };
  }
  const scale = Math.min(canvasWidth / desktopWidth, canvasHeight / desktopHeight);
  const width = Math.min(canvasWidth, Math.round(desktopWidth * scale));
  const height = Math.min(canvasHeight, Math.round(desktopHeight * scale));
  return {
    x: Math.floor((canvasWidth - width) / 2),
    y: Math.floor((canvasHeight - height) / 2),
    width,
    height,
    scale,
  };
}
