// The admin page's Rooms card (issue 29): for each online display, its room
// — who may present (anyone with the PIN, or only whom the moderator
// accepts), the layout and which source is large, the sources on screen
// (end one, make one large) and the requests waiting (accept into a free
// place or in place of a source, decline). A room is drawn again only when
// what the gateway says about it changed, so a menu being opened is not
// replaced under the pointer by the next poll.
import type { DisplayView, RoomChange, RoomView } from './adminClient.js';
import { formatAgo } from './adminFormat.js';

/** What the card asks the page to do; the page runs it, says how it went and polls again. */
export interface RoomActions {
  change(display: DisplayView, change: RoomChange, words: string): void;
  accept(display: DisplayView, requestId: string, slot: number | undefined, words: string): void;
  /** `reason`: the moderator's words for the presenter's page (empty: none). */
  decline(display: DisplayView, requestId: string, words: string, reason: string): void;
  end(display: DisplayView, slot: number, words: string): void;
}

export const LAYOUT_WORDS: Readonly<Record<string, string>> = {
  'grid': '2×2 grid (two side by side)',
  'side-by-side': 'side by side',
  'one-large': 'one large, the others small',
  'full': 'only the large one',
};

const MODE_WORDS = { open: 'anyone with the PIN joins', moderated: 'only whom a moderator accepts' } as const;

function make<K extends keyof HTMLElementTagNameMap>(tag: K, text?: string, className?: string): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (text !== undefined) node.textContent = text;
  if (className) node.className = className;
  return node;
}

function select(name: string, options: readonly (readonly [string, string])[], value: string, onChange: (value: string) => void): HTMLLabelElement {
  const label = make('label', undefined, 'room-control');
  label.append(document.createTextNode(name));
  const menu = make('select');
  menu.name = name;
  for (const [optionValue, words] of options) {
    const option = make('option', words);
    option.value = optionValue;
    option.selected = optionValue === value;
    menu.append(option);
  }
  menu.addEventListener('change', () => onChange(menu.value));
  label.append(menu);
  return label;
}

function actionButton(label: string, onClick: () => void, className: string, accessibleName: string): HTMLButtonElement {
  const b = make('button', label, className);
  b.type = 'button';
  b.setAttribute('aria-label', accessibleName);
  b.addEventListener('click', onClick);
  return b;
}

/** A table with headings; cells carry their heading as data-label (the narrow layout shows it beside each value). */
function table(headings: readonly string[], rows: readonly HTMLTableCellElement[][], className: string): HTMLTableElement {
  const tableElement = make('table', undefined, className);
  const head = make('thead');
  const headRow = make('tr');
  for (const heading of headings) {
    const th = make('th');
    th.scope = 'col';
    if (heading === '') th.append(make('span', 'Actions', 'visually-hidden'));
    else th.textContent = heading;
    headRow.append(th);
  }
  head.append(headRow);
  const body = make('tbody');
  for (const cells of rows) {
    const row = make('tr');
    cells.forEach((td, index) => { td.dataset.label = headings[index] ?? ''; });
    row.append(...cells);
    body.append(row);
  }
  tableElement.append(head, body);
  return tableElement;
}

function td(text: string, className?: string): HTMLTableCellElement {
  return make('td', text, className);
}

export class RoomsCard {
  private readonly drawn = new Map<string, string>();

  constructor(private readonly list: HTMLElement, private readonly empty: HTMLElement, private readonly actions: RoomActions) {}

  render(rooms: readonly { display: DisplayView; room: RoomView }[]): void {
    this.empty.hidden = rooms.length > 0;
    const keep = new Set(rooms.map(({ display }) => display.id));
    for (const child of [...this.list.children]) {
      const id = (child as HTMLElement).dataset.display ?? '';
      if (!keep.has(id)) {
        child.remove();
        this.drawn.delete(id);
      }
    }
    rooms.forEach(({ display, room }, index) => {
      // The ages ("2 min ago") change every poll: what is drawn depends on them only to the minute.
      const key = JSON.stringify([display.name, room, Math.floor(Date.now() / 60_000)]);
      const box = [...this.list.children].find((child) => (child as HTMLElement).dataset.display === display.id);
      if (box && this.drawn.get(display.id) === key) return;
      const next = this.room(display, room);
      if (box) box.replaceWith(next);
      else this.list.insertBefore(next, this.list.children[index] ?? null);
      this.drawn.set(display.id, key);
    });
  }

  private room(display: DisplayView, room: RoomView): HTMLElement {
    const box = make('section', undefined, 'room');
    box.dataset.display = display.id;
    const showing = room.slots.filter((slot) => slot.rect.width > 0);
    box.append(make('h3', `${display.name}: ${room.slots.length} of ${room.capacity} ${room.capacity === 1 ? 'place' : 'places'} showing${room.queue.length > 0 ? `, ${room.queue.length} waiting` : ''}`));
    const controls = make('div', undefined, 'room-controls');
    controls.append(
      select('Who may present', (['open', 'moderated'] as const).map((mode) => [mode, MODE_WORDS[mode]] as const), room.mode, (value) => {
        const mode = value === 'moderated' ? 'moderated' : 'open';
        this.actions.change(display, { mode }, `${display.name}: ${MODE_WORDS[mode]}.`);
      }),
      select('Layout', Object.entries(LAYOUT_WORDS), room.layout, (layout) => this.actions.change(display, { layout }, `${display.name}: ${LAYOUT_WORDS[layout] ?? layout}.`)),
      select('Large', [...Array(room.capacity).keys()].map((slot) => [String(slot), `place ${String(slot + 1)}${this.labelIn(room, slot)}`] as const), String(room.large), (value) => {
        this.actions.change(display, { large: Number(value) }, `${display.name}: place ${String(Number(value) + 1)} is the large one.`);
      }),
    );
    box.append(controls);

    const sourceRows = room.slots.map((slot) => {
      const actions = td('', 'actions');
      const isLarge = slot.slot === room.large;
      if (!isLarge && room.slots.length > 1) actions.append(actionButton('Make large', () => this.actions.change(display, { large: slot.slot }, `${display.name}: "${slot.label}" is the large one.`), 'quiet', `Make "${slot.label}" large on ${display.name}`));
      actions.append(actionButton('End', () => this.actions.end(display, slot.slot, `${display.name}: "${slot.label}" ended.`), 'danger', `End "${slot.label}" on ${display.name}`));
      const shown = showing.includes(slot) ? (isLarge && room.slots.length > 1 && (room.layout === 'one-large' || room.layout === 'full') ? 'large' : 'shown') : 'hidden by the layout';
      const since = td(slot.since === undefined ? '' : formatAgo(slot.since), 'nowrap');
      return [td(`place ${String(slot.slot + 1)}`, 'nowrap'), td(`${slot.label}${slot.host ? ' (host)' : ''}`), td(shown), since, actions];
    });
    if (sourceRows.length > 0) box.append(table(['Place', 'Source', 'On screen', 'Since', ''], sourceRows, 'room-sources'));
    else box.append(make('p', 'Nothing is shown.', 'empty'));

    if (room.queue.length > 0) {
      const free = room.capacity - room.slots.length;
      const rows = room.queue.map((request) => {
        const actions = td('', 'actions');
        const into: (readonly [string, string])[] = [...(free > 0 ? [['', 'a free place'] as const] : []), ...room.slots.filter((slot) => !slot.host).map((slot) => [String(slot.slot), `place ${String(slot.slot + 1)}, replacing "${slot.label}"`] as const)];
        const where = select('Into', into, '', () => undefined);
        where.classList.add('accept-into');
        const menu = where.querySelector('select');
        // what the presenter's page says beside "declined" ("one at a time, please"), optional
        const reason = make('input', undefined, 'decline-reason');
        reason.type = 'text';
        reason.maxLength = 200;
        reason.placeholder = 'Reason (optional)';
        reason.setAttribute('aria-label', `Reason for declining "${request.label}"`);
        actions.append(
          where,
          actionButton('Accept', () => {
            const value = menu?.value ?? '';
            const slot = value === '' ? undefined : Number(value);
            this.actions.accept(display, request.requestId, slot, `${display.name}: "${request.label}" accepted${slot === undefined ? '' : ` into place ${String(slot + 1)}`}.`);
          }, '', `Accept "${request.label}" on ${display.name}`),
          reason,
          actionButton('Decline', () => this.actions.decline(display, request.requestId, `${display.name}: "${request.label}" declined.`, reason.value.trim()), 'danger', `Decline "${request.label}" on ${display.name}`),
        );
        const from = `${request.target === 'browser' ? 'shares from a browser' : request.target}${request.requestedBy?.address ? ` · ${request.requestedBy.address}` : ''}${request.takeOver === true ? ' · asks to take a place over' : ''}`;
        return [td(String(request.position ?? ''), 'num'), td(request.label), td(from), td(formatAgo(request.at), 'nowrap'), actions];
      });
      box.append(make('h4', 'Waiting for a moderator'), table(['#', 'Who', 'How', 'Asked', ''], rows, 'room-queue'));
    }
    return box;
  }

  private labelIn(room: RoomView, slot: number): string {
    const label = room.slots.find((entry) => entry.slot === slot)?.label;
    return label === undefined ? '' : ` ("${label}")`;
  }
}
