// What has been drawn on the display's ink layer (issue 30), as data: strokes
// in the layer's own pixels, and the history that undo walks back (a stroke,
// or a clear, which undo brings back). No DOM here: the painter draws it,
// the layer feeds it pointer events. Bounded: a stroke keeps at most
// MAX_POINTS points and the history MAX_ACTIONS actions (the oldest are
// folded into the base and can no longer be undone).

export type InkTool = 'pen' | 'highlighter' | 'eraser';

export interface InkPoint {
  readonly x: number;
  readonly y: number;
}

export interface InkStroke {
  readonly tool: InkTool;
  readonly color: string;
  /** Line width in layer pixels. */
  readonly width: number;
  readonly points: InkPoint[];
}

type InkAction = { readonly kind: 'stroke'; readonly stroke: InkStroke } | { readonly kind: 'clear' };

export const MAX_POINTS = 4096;
export const MAX_ACTIONS = 500;

export class InkStrokes {
  /** Strokes no undo can reach any more (history past MAX_ACTIONS). */
  private base: InkStroke[] = [];
  private readonly actions: InkAction[] = [];

  /** Strokes to paint, oldest first. */
  get visible(): readonly InkStroke[] {
    let strokes = [...this.base];
    for (const action of this.actions) {
      if (action.kind === 'stroke') strokes.push(action.stroke);
      else strokes = [];
    }
    return strokes;
  }

  get canUndo(): boolean {
    return this.actions.length > 0;
  }

  get isEmpty(): boolean {
    return this.visible.length === 0;
  }

  /** A new stroke, begun at its first point; add points to it with extend(). */
  begin(tool: InkTool, color: string, width: number, at: InkPoint): InkStroke {
    const stroke: InkStroke = { tool, color, width, points: [at] };
    this.push({ kind: 'stroke', stroke });
    return stroke;
  }

  /** False once the stroke holds MAX_POINTS points (it stops there). */
  extend(stroke: InkStroke, at: InkPoint): boolean {
    if (stroke.points.length >= MAX_POINTS) return false;
    const last = stroke.points[stroke.points.length - 1];
    // A finger at rest sends the same point again: nothing to draw.
    if (last && last.x === at.x && last.y === at.y) return true;
    stroke.points.push(at);
    return true;
  }

  clear(): void {
    if (this.isEmpty) return;
    this.push({ kind: 'clear' });
  }

  undo(): void {
    this.actions.pop();
  }

  /** Forgets everything, history included (a new picture under the ink). */
  reset(): void {
    this.base = [];
    this.actions.length = 0;
  }

  private push(action: InkAction): void {
    this.actions.push(action);
    while (this.actions.length > MAX_ACTIONS) {
      const oldest = this.actions.shift();
      if (oldest?.kind === 'stroke') this.base.push(oldest.stroke);
      else if (oldest?.kind === 'clear') this.base = [];
    }
  }
}
