// The list of displays on the presenter page: one button per display with
// its name, location and state; offline displays cannot be chosen. The
// choice survives the list's refreshes.
import type { ListedDisplay } from '@lanterna/protocol';

const STATE_WORDS: Readonly<Record<ListedDisplay['state'], string>> = {
  idle: 'Free',
  presenting: 'In use',
  offline: 'Off',
};

export class DisplayPicker {
  private displays: readonly ListedDisplay[] = [];
  private chosen: string | null;

  constructor(
    private readonly list: HTMLElement,
    private readonly note: HTMLElement,
    /** A display named in the page's address (the idle screen's QR code), chosen once it appears. */
    preselected: string | null,
  ) {
    this.chosen = preselected;
  }

  get selected(): ListedDisplay | undefined {
    return this.displays.find((display) => display.id === this.chosen);
  }

  showProblem(text: string): void {
    this.note.textContent = text;
    this.note.hidden = false;
  }

  update(displays: readonly ListedDisplay[]): void {
    this.displays = displays;
    const online = displays.filter((display) => display.state !== 'offline').length;
    this.note.hidden = online > 0;
    this.note.textContent = displays.length === 0 ? 'This gateway has no displays.' : 'No display is switched on right now.';
    this.list.replaceChildren(...displays.map((display) => this.item(display)));
  }

  private item(display: ListedDisplay): HTMLLIElement {
    const button = document.createElement('button');
    button.type = 'button';
    button.className = 'display';
    button.dataset.id = display.id;
    button.disabled = display.state === 'offline';
    button.setAttribute('aria-pressed', String(display.id === this.chosen));
    const name = document.createElement('span');
    name.className = 'display-name';
    name.textContent = display.name;
    const badge = document.createElement('span');
    badge.className = 'badge';
    badge.dataset.state = display.state;
    badge.textContent = STATE_WORDS[display.state];
    button.append(name, badge);
    if (display.location !== undefined) {
      const location = document.createElement('span');
      location.className = 'display-location';
      location.textContent = display.location;
      button.append(location);
    }
    button.addEventListener('click', () => {
      this.chosen = display.id;
      for (const other of this.list.querySelectorAll('button.display')) other.setAttribute('aria-pressed', String(other === button));
    });
    const item = document.createElement('li');
    item.append(button);
    return item;
  }
}
