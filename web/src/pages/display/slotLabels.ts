// The name label of each source in a room (several presenters on one
// display): one element per occupied slot, placed over the canvas at the
// slot's rectangle (fractions of the panel, as the `layout` message gives
// them), so that it glides with the picture when the layout changes (the
// same duration as the render worker's glide). Shown only while two or more
// sources are on screen: one source fills the panel as a display always has.
import type { LayoutSlot } from '@lanterna/protocol';

export interface SlotLabelState {
  readonly slot: number;
  readonly label: string;
  readonly rect: { readonly x: number; readonly y: number; readonly width: number; readonly height: number };
  /** A line under the name: connecting, or why it cannot be shown; null when the picture is up. */
  readonly status: string | null;
}

export class SlotLabels {
  private readonly layer: HTMLElement;
  private readonly labels = new Map<number, { box: HTMLElement; name: HTMLElement; status: HTMLElement }>();

  constructor(parent: HTMLElement, glideMs: number) {
    this.layer = document.createElement('div');
    this.layer.id = 'slot-labels';
    this.layer.className = 'slot-labels';
    this.layer.style.setProperty('--glide-ms', `${glideMs}ms`);
    parent.append(this.layer);
  }

  /** The labels as they stand now; slots not listed lose theirs. */
  show(states: readonly SlotLabelState[]): void {
    const visible = states.filter((state) => state.rect.width > 0 && state.rect.height > 0);
    const wanted = visible.length >= 2 ? visible : [];
    const keep = new Set(wanted.map((state) => state.slot));
    for (const [slot, label] of this.labels) {
      if (keep.has(slot)) continue;
      label.box.remove();
      this.labels.delete(slot);
    }
    for (const state of wanted) {
      let label = this.labels.get(state.slot);
      if (!label) {
        const box = document.createElement('div');
        box.className = 'slot-label';
        box.dataset.slot = String(state.slot);
        const tag = document.createElement('p');
        tag.className = 'slot-tag';
        const name = document.createElement('span');
        name.className = 'slot-name';
        const status = document.createElement('span');
        status.className = 'slot-status';
        tag.append(name, status);
        box.append(tag);
        this.layer.append(box);
        label = { box, name, status };
        this.labels.set(state.slot, label);
      }
      const { box, name, status } = label;
      box.style.left = `${state.rect.x * 100}%`;
      box.style.top = `${state.rect.y * 100}%`;
      box.style.width = `${state.rect.width * 100}%`;
      box.style.height = `${state.rect.height * 100}%`;
      name.textContent = state.label === '' ? `Source ${state.slot + 1}` : state.label;
      status.hidden = state.status === null;
      status.textContent = state.status ?? '';
    }
  }
}

/** The layout's entry for a session, if it has one. */
export function layoutEntry(slots: readonly LayoutSlot[], sessionId: string): LayoutSlot | undefined {
  return slots.find((slot) => slot.sessionId === sessionId);
}
