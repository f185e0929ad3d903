// The mark on a source whose presenter lets people at the display control
// the computer (issue 30): "Touch controls Alice's computer", small, in the
// slot's lower left corner, for as long as the permission is on. It never
// takes a touch (the picture under it does).
export interface TouchMarkState {
  readonly slot: number;
  /** Whose computer: the presenter's name, else the computer's. */
  readonly name: string;
  /** Fractions of the panel (the whole panel for a display with one source). */
  readonly rect: { readonly x: number; readonly y: number; readonly width: number; readonly height: number };
  /** control: touch moves the computer's pointer; laser: a browser presenter's picture, where a touch is a pointer drawn at both sides. */
  readonly kind: 'control' | 'laser';
}

export class TouchMarks {
  private readonly layer: HTMLElement;
  private readonly marks = new Map<number, HTMLElement>();

  constructor(parent: HTMLElement) {
    this.layer = document.createElement('div');
    this.layer.id = 'touch-marks';
    this.layer.className = 'touch-marks';
    parent.append(this.layer);
  }

  show(states: readonly TouchMarkState[]): void {
    const keep = new Set(states.map((state) => state.slot));
    for (const [slot, mark] of this.marks) {
      if (keep.has(slot)) continue;
      mark.remove();
      this.marks.delete(slot);
    }
    for (const state of states) {
      let mark = this.marks.get(state.slot);
      if (!mark) {
        mark = document.createElement('p');
        mark.className = 'touch-mark';
        mark.dataset.slot = String(state.slot);
        this.layer.append(mark);
        this.marks.set(state.slot, mark);
      }
      mark.style.left = `${state.rect.x * 100}%`;
      mark.style.bottom = `${(1 - state.rect.y - state.rect.height) * 100}%`;
      mark.dataset.kind = state.kind;
      mark.textContent = state.kind === 'control'
        ? `Touch controls ${possessive(state.name)} computer`
        : `Touch points on ${possessive(state.name)} screen (a browser cannot be controlled)`;
    }
  }
}

function possessive(name: string): string {
  if (name === '') return 'the presenter’s';
  return /s$/i.test(name) ? `${name}’` : `${name}’s`;
}
