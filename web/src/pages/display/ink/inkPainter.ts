// Paints ink strokes on a 2D context: the pen opaque, the highlighter
// translucent (one path per stroke, so a stroke crossing itself does not
// darken), the eraser removing what is under it (destination-out). The layer
// paints with it on screen and the saver into the PNG, so both agree.
import type { InkStroke } from './inkStrokes.js';

/** How opaque the highlighter is: the picture under it stays readable. */
export const HIGHLIGHTER_ALPHA = 0.4;

export function paintStroke(context: CanvasRenderingContext2D, stroke: InkStroke, scale = 1): void {
  const [first, ...rest] = stroke.points;
  if (!first) return;
  context.save();
  context.globalCompositeOperation = stroke.tool === 'eraser' ? 'destination-out' : 'source-over';
  context.globalAlpha = stroke.tool === 'highlighter' ? HIGHLIGHTER_ALPHA : 1;
  context.strokeStyle = stroke.tool === 'eraser' ? '#000' : stroke.color;
  context.fillStyle = context.strokeStyle;
  context.lineWidth = stroke.width * scale;
  context.lineCap = stroke.tool === 'highlighter' ? 'square' : 'round';
  context.lineJoin = 'round';
  if (rest.length === 0) {
    // A tap leaves a dot.
    context.beginPath();
    context.arc(first.x * scale, first.y * scale, (stroke.width * scale) / 2, 0, Math.PI * 2);
    context.fill();
  } else {
    context.beginPath();
    context.moveTo(first.x * scale, first.y * scale);
    for (const point of rest) context.lineTo(point.x * scale, point.y * scale);
    context.stroke();
  }
  context.restore();
}

export function paintStrokes(context: CanvasRenderingContext2D, strokes: readonly InkStroke[], scale = 1): void {
  for (const stroke of strokes) paintStroke(context, stroke, scale);
}
