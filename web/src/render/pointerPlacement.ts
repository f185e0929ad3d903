import type { Letterbox } from './letterbox.js';
import type { Rect } from './frame.js';

/** Where the pointer image lands on the canvas, hotspot on the pointer position. */
export function placePointer(
  box: Letterbox,
  pointerX: number,
  pointerY: number,
  shape: { width: number; height: number; hotspotX: number; hotspotY: number },
): Rect {
  return {
    x: box.x + (pointerX - shape.hotspotX) * box.scale,
    y: box.y + (pointerY - shape.hotspotY) * box.scale,
    width: shape.width * box.scale,
    height: shape.height * box.scale,
  };
}
