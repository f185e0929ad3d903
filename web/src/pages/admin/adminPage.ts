// The admin page (/admin): displays (add, rename, move, delete, new token),
// live sessions (polled every 2 s; end one), certificate pins (clear a changed
// one) and the audit log. No framework: the DOM is built with createElement
// and textContent (no HTML strings), so nothing a display's name holds can
// become markup; no inline script or style (the gateway's CSP forbids them).
import { AdminApiError, AdminClient, type AuditView, type DisplayView, type PinView, type RoomView, type SessionView } from './adminClient.js';
import { RoomsCard } from './roomsCard.js';
import { actionWord, detailText, displayStateText, formatAgo, formatBytes, formatDuration, formatRate, formatTime, panelText, parseDesktopSize, shortFingerprint } from './adminFormat.js';

const TOKEN_KEY = 'lanterna.adminToken';
const POLL_MS = 2000;

function element<T extends HTMLElement = HTMLElement>(id: string, type?: new () => T): T {
  const found = document.getElementById(id);
  if (!found || (type && !(found instanceof type))) throw new Error(`the page has no #${id}`);
  return found as T;
}

function cell(text: string, className?: string): HTMLTableCellElement {
  const td = document.createElement('td');
  td.textContent = text;
  if (className) td.className = className;
  return td;
}

function button(label: string, onClick: () => void, className = 'quiet', accessibleName?: string): HTMLButtonElement {
  const b = document.createElement('button');
  b.type = 'button';
  b.textContent = label;
  b.className = className;
  if (accessibleName) b.setAttribute('aria-label', accessibleName);
  b.addEventListener('click', onClick);
  return b;
}

function state(text: string, tone: 'ok' | 'warn' | 'error' | 'idle'): HTMLSpanElement {
  const span = document.createElement('span');
  span.className = 'state';
  span.dataset.tone = tone;
  span.textContent = text;
  return span;
}

/**
 * Puts the rows in the table, each cell labelled with its column's heading
 * (data-label): on a narrow screen the CSS shows rows as stacked cards and
 * prints the label beside each value.
 */
function fill(tableId: string, rows: HTMLTableRowElement[]): void {
  const table = element(tableId);
  const headings = [...table.querySelectorAll('thead th')].map((th) => (th.querySelector('.visually-hidden') ? '' : th.textContent.trim()));
  for (const row of rows) {
    [...row.cells].forEach((td, index) => { td.dataset.label = headings[index] ?? ''; });
  }
  (table.querySelector('tbody') ?? table).replaceChildren(...rows);
}

class AdminPage {
  private client: AdminClient | undefined;
  private timer: number | undefined;
  private editing: string | undefined;
  private auditBefore: number | undefined;
  private auditNext: number | undefined;
  private displays: DisplayView[] = [];
  private readonly rooms = new RoomsCard(element('rooms'), element('rooms-empty'), {
    change: (display, change, words) => { void this.act(words, () => this.client?.changeRoom(display.id, change) ?? Promise.resolve()); },
    accept: (display, requestId, slot, words) => { void this.act(words, () => this.client?.acceptRequest(display.id, requestId, slot) ?? Promise.resolve()); },
    decline: (display, requestId, words, reason) => { void this.act(words, () => this.client?.declineRequest(display.id, requestId, reason) ?? Promise.resolve()); },
    end: (display, slot, words) => { void this.act(words, () => this.client?.endSource(display.id, slot) ?? Promise.resolve()); },
  });

  start(): void {
    element<HTMLFormElement>('sign-in-form').addEventListener('submit', (event) => {
      event.preventDefault();
      const token = element<HTMLInputElement>('token').value.trim();
      void this.signIn(token);
    });
    element('sign-out').addEventListener('click', () => this.signOut());
    element<HTMLFormElement>('display-form').addEventListener('submit', (event) => {
      event.preventDefault();
      void this.saveDisplay();
    });
    element('display-cancel').addEventListener('click', () => this.resetDisplayForm());
    element('secret-done').addEventListener('click', () => { element('secret').hidden = true; });
    element('audit-older').addEventListener('click', () => { this.auditBefore = this.auditNext; void this.refreshAudit(); });
    element('audit-newest').addEventListener('click', () => { this.auditBefore = undefined; void this.refreshAudit(); });
    const saved = sessionStorage.getItem(TOKEN_KEY);
    if (saved) void this.signIn(saved);
    else element('token').focus();
  }

  private async signIn(token: string): Promise<void> {
    const client = new AdminClient(token);
    try {
      await client.displays();
    } catch (error) {
      const message = error instanceof AdminApiError && error.status === 401 ? 'That token is not the admin token.' : this.words(error);
      element('sign-in-error').textContent = message;
      element('sign-in-error').hidden = false;
      sessionStorage.removeItem(TOKEN_KEY);
      return;
    }
    sessionStorage.setItem(TOKEN_KEY, token);
    this.client = client;
    element('sign-in').hidden = true;
    element('sign-in-error').hidden = true;
    element('console').hidden = false;
    element('sign-out').hidden = false;
    await this.refreshAll();
    // Polled: displays, sessions and pins each time; the audit log while its newest page is shown.
    this.timer = window.setInterval(() => {
      void Promise.all([this.refreshLive(), this.refreshPins(), this.auditBefore === undefined ? this.refreshAudit() : Promise.resolve()]);
    }, POLL_MS);
  }

  private signOut(): void {
    sessionStorage.removeItem(TOKEN_KEY);
    window.clearInterval(this.timer);
    this.client = undefined;
    element('console').hidden = true;
    element('sign-out').hidden = true;
    element('sign-in').hidden = false;
    element<HTMLInputElement>('token').value = '';
    element('token').focus();
    this.say('Signed out.');
  }

  private say(text: string, tone: 'info' | 'error' = 'info'): void {
    const status = element('status');
    status.textContent = text;
    status.dataset.tone = tone;
  }

  private words(error: unknown): string {
    if (error instanceof AdminApiError) {
      if (error.status === 401) { this.signOut(); return 'The admin token is no longer accepted: sign in again.'; }
      return error.message;
    }
    return `The gateway did not answer (${error instanceof Error ? error.message : String(error)}).`;
  }

  /** Runs an action, says how it went, refreshes what it changed. */
  private async act(what: string, action: () => Promise<unknown>): Promise<void> {
    try {
      await action();
      this.say(what);
    } catch (error) {
      this.say(this.words(error), 'error');
    }
    await this.refreshAll();
  }

  private async refreshAll(): Promise<void> {
    await Promise.all([this.refreshLive(), this.refreshPins(), this.refreshAudit()]);
  }

  private async refreshLive(): Promise<void> {
    const client = this.client;
    if (!client) return;
    try {
      const [{ displays }, { sessions }] = await Promise.all([client.displays(), client.sessions()]);
      // Each online display's room (a page with slots shows up to four sources): how full it is, who waits.
      const online = displays.filter((display) => display.online);
      const views = await Promise.all(online.map(async (display) => ({ display, room: await client.room(display.id).catch((): RoomView | undefined => undefined) })));
      const rooms = new Map(views.map(({ display, room }) => [display.id, room && { capacity: room.capacity, sources: room.slots.length }] as const));
      this.displays = displays;
      this.renderDisplays(displays, rooms);
      this.rooms.render(views.flatMap(({ display, room }) => (room ? [{ display, room }] : [])));
      this.renderSessions(sessions);
      if (element('status').dataset.tone === 'error' && element('status').textContent.startsWith('The gateway did not answer')) this.say('Connected again.');
    } catch (error) {
      this.say(this.words(error), 'error');
    }
  }

  private async refreshPins(): Promise<void> {
    if (!this.client) return;
    try {
      this.renderPins((await this.client.pins()).pins);
    } catch (error) {
      this.say(this.words(error), 'error');
    }
  }

  private async refreshAudit(): Promise<void> {
    if (!this.client) return;
    try {
      const page = await this.client.audit(this.auditBefore);
      this.auditNext = page.next;
      this.renderAudit(page.entries);
    } catch (error) {
      this.say(this.words(error), 'error');
    }
  }

  private renderDisplays(displays: DisplayView[], rooms: ReadonlyMap<string, { capacity: number; sources: number } | undefined>): void {
    fill('displays', displays.map((display) => {
      const row = document.createElement('tr');
      const words = displayStateText(display.online, display.sessionId, rooms.get(display.id));
      const online = state(words.text, words.tone);
      const stateCell = document.createElement('td');
      stateCell.append(online);
      const actions = document.createElement('td');
      actions.className = 'actions';
      if (display.managedBy === 'api') {
        actions.append(
          button('Edit', () => this.editDisplay(display), 'quiet', `Edit ${display.name}`),
          button('New token', () => { void this.rotate(display); }, 'quiet', `New token for ${display.name}`),
          button('Delete', () => { void this.deleteDisplay(display); }, 'danger', `Delete ${display.name}`),
        );
      } else {
        actions.textContent = 'Change it in the configuration file';
        actions.classList.add('hint');
        actions.classList.remove('actions');
        actions.classList.add('note');
      }
      // may wrap (the panel, then → the desktop): with the sound column the table must fit 1280 px
      const panel = cell(panelText(display));
      panel.dataset.figure = 'panel';
      row.append(cell(display.name), cell(display.id), cell(display.location ?? ''), panel, stateCell, this.soundControls(display), cell(display.managedBy === 'api' ? 'this page' : 'configuration'), actions);
      return row;
    }));
  }

  /** Volume in 10 % steps and mute, for any display (the configuration file does not set sound). */
  private soundControls(display: DisplayView): HTMLTableCellElement {
    const sound = display.sound ?? { volume: 100, muted: false };
    const td = cell('', 'sound');
    td.dataset.figure = 'volume';
    // One group in the cell (a table cell, or a card's value below 960 px): the level with its − and +
    // stay on one line; Mute goes on the next when the column is narrow.
    const group = document.createElement('span');
    group.className = 'sound-controls';
    const level = document.createElement('span');
    level.className = 'steps';
    level.textContent = sound.muted ? `muted (${sound.volume} %)` : `${sound.volume} %`;
    const set = (change: { volume?: number; muted?: boolean }, words: string): void => {
      void this.act(words, () => this.client?.setSound(display.id, change) ?? Promise.resolve());
    };
    level.append(
      button('−', () => set({ volume: Math.max(0, sound.volume - 10) }, `${display.name}: volume ${Math.max(0, sound.volume - 10)} %.`), 'quiet', `Quieter on ${display.name}`),
      button('+', () => set({ volume: Math.min(100, sound.volume + 10) }, `${display.name}: volume ${Math.min(100, sound.volume + 10)} %.`), 'quiet', `Louder on ${display.name}`),
    );
    group.append(level, button(sound.muted ? 'Unmute' : 'Mute', () => set({ muted: !sound.muted }, `${display.name}: sound ${sound.muted ? 'on' : 'muted'}.`), 'quiet', `${sound.muted ? 'Unmute' : 'Mute'} ${display.name}`));
    td.append(group);
    return td;
  }

  private renderSessions(sessions: SessionView[]): void {
    const names = new Map(this.displays.map((display) => [display.id, display.name]));
    element('sessions-empty').hidden = sessions.length > 0;
    fill('sessions', sessions.map((session) => {
      const row = document.createElement('tr');
      const tone = session.state === 'active' ? 'ok' : 'warn';
      const words = session.state === 'active' ? 'relaying' : session.state === 'claimed' ? 'connecting' : 'waiting for the display';
      const stateCell = document.createElement('td');
      stateCell.append(state(words, tone));
      const by = session.requestedBy ? ` (${session.requestedBy.kind}${session.requestedBy.address ? ` ${session.requestedBy.address}` : ''})` : '';
      const bytes = session.stats ? `${formatBytes(session.stats.bytesToDisplay + session.stats.bytesToServer)} · ${formatBytes(session.stats.bytesPerSecond)}/s` : '—';
      // Frames per second as the display reports them (its `figures`: presents that brought new pixels);
      // a display page too old to count them reports presents only, pointer moves included, and the title says so.
      // The relay's message count is another thing and says so.
      const shown = cell(session.shown ? formatRate(session.shown.framesPerSecond ?? session.shown.presentsPerSecond) : '—', 'num');
      shown.dataset.figure = 'frames';
      shown.title = !session.shown
        ? 'The display has not reported what it shows (an older display page, or the session is starting).'
        : `${session.shown.framesPerSecond === undefined
          ? `The display drew ${formatRate(session.shown.presentsPerSecond)} times a second (an older display page: pointer moves included)`
          : `The display showed ${formatRate(session.shown.framesPerSecond)} new pictures a second in ${formatRate(session.shown.presentsPerSecond)} draws (the others moved the pointer)`} and received ${formatRate(session.shown.messagesPerSecond)} messages (${formatBytes(session.shown.bytesPerSecond)}) a second, in its last report.`;
      const messages = cell(session.stats ? formatRate(session.stats.messagesPerSecond ?? session.stats.framesPerSecond) : '—', 'num');
      messages.dataset.figure = 'messages';
      const data = cell(bytes, 'num nowrap');
      data.dataset.figure = 'bytes';
      const duration = cell(formatDuration(session.durationMs), 'num nowrap');
      duration.dataset.figure = 'duration';
      // Whether the display plays the session's sound, as it reported over its last interval.
      const heard = session.shown?.sound;
      const soundCell = document.createElement('td');
      soundCell.dataset.figure = 'sound';
      if (!heard) soundCell.textContent = '—';
      else if (heard.state === 'blocked') soundCell.append(state('blocked by the browser', 'error'));
      else if (heard.state === 'unavailable') soundCell.append(state('cannot play sound', 'error'));
      else soundCell.append(heard.playing ? state('playing', 'ok') : state('silent', 'idle'));
      if (heard) soundCell.title = `The display's sound queue and output add ${Math.round(heard.delayMs)} ms.`;
      const actions = document.createElement('td');
      actions.className = 'actions';
      actions.append(button('End', () => { void this.endSession(session, names.get(session.displayId) ?? session.displayId); }, 'danger', `End the session on ${names.get(session.displayId) ?? session.displayId}`));
      row.append(
        cell(names.get(session.displayId) ?? session.displayId), cell(`${session.presenter}${by}`), stateCell,
        duration, data, shown, messages, soundCell, actions,
      );
      return row;
    }));
  }

  private renderPins(pins: PinView[]): void {
    element('pins-empty').hidden = pins.length > 0;
    fill('pins', pins.map((pin) => {
      const row = document.createElement('tr');
      const pinned = cell(shortFingerprint(pin.fingerprint), 'fingerprint nowrap');
      pinned.title = pin.fingerprint;
      const changed = pin.changed ? cell(`${shortFingerprint(pin.changed.seen)} (${formatTime(pin.changed.at)})`, 'changed fingerprint') : cell('');
      if (pin.changed) changed.title = pin.changed.seen;
      const actions = document.createElement('td');
      actions.className = 'actions';
      actions.append(button(pin.changed ? 'Accept the new certificate' : 'Forget', () => { void this.clearPin(pin); }, pin.changed ? 'danger' : 'quiet', `Clear the pin of ${pin.key}`));
      const seen = cell(pin.lastUsedAt === undefined ? 'not yet' : formatAgo(pin.lastUsedAt), 'nowrap');
      seen.title = pin.lastUsedAt === undefined ? 'No session has reached this server since the gateway began noting when pins are used.' : `Last used by a session at ${formatTime(pin.lastUsedAt)}`;
      row.append(cell(pin.key, 'nowrap'), pinned, seen, changed, actions);
      return row;
    }));
  }

  private renderAudit(entries: AuditView[]): void {
    element<HTMLButtonElement>('audit-older').disabled = this.auditNext === undefined;
    element<HTMLButtonElement>('audit-newest').disabled = this.auditBefore === undefined;
    fill('audit', entries.map((entry) => {
      const row = document.createElement('tr');
      row.append(cell(formatTime(entry.at), 'nowrap'), cell(entry.actor), cell(actionWord(entry.action)), cell(entry.displayId ?? '', 'nowrap'), cell(detailText(entry.action, entry.detail), 'detail'));
      return row;
    }));
  }

  private editDisplay(display: DisplayView): void {
    this.editing = display.id;
    const form = element<HTMLFormElement>('display-form');
    (form.elements.namedItem('name') as HTMLInputElement).value = display.name;
    (form.elements.namedItem('location') as HTMLInputElement).value = display.location ?? '';
    const { width, height, scale } = display.desktop ?? {};
    (form.elements.namedItem('desktop-size') as HTMLInputElement).value = width !== undefined && height !== undefined ? `${width}×${height}` : '';
    (form.elements.namedItem('desktop-scale') as HTMLInputElement).value = scale === undefined ? '' : String(scale);
    element('display-id-field').hidden = true;
    element('display-form-title').textContent = `Edit ${display.name}`;
    element('display-submit').textContent = 'Save changes';
    element('display-cancel').hidden = false;
    (form.elements.namedItem('name') as HTMLInputElement).focus();
  }

  private resetDisplayForm(): void {
    this.editing = undefined;
    element<HTMLFormElement>('display-form').reset();
    element('display-id-field').hidden = false;
    element('display-form-title').textContent = 'Add a display';
    element('display-submit').textContent = 'Add display';
    element('display-cancel').hidden = true;
  }

  private async saveDisplay(): Promise<void> {
    const client = this.client;
    if (!client) return;
    const form = element<HTMLFormElement>('display-form');
    const value = (name: string): string => (form.elements.namedItem(name) as HTMLInputElement).value.trim();
    const editing = this.editing;
    const size = parseDesktopSize(value('desktop-size'));
    if (size === undefined) {
      this.say('The desktop size is two numbers like 1920×1080, or blank for the panel\'s own.', 'error');
      return;
    }
    const scale = value('desktop-scale') === '' ? undefined : Number(value('desktop-scale'));
    const desktop = { ...(size ?? {}), ...(scale === undefined ? {} : { scale }) };
    if (editing) {
      await this.act(`Saved ${value('name')}.`, () => client.updateDisplay(editing, { name: value('name'), location: value('location'), desktop: Object.keys(desktop).length > 0 ? desktop : null }));
      this.resetDisplayForm();
      return;
    }
    try {
      const created = await client.createDisplay({ name: value('name'), ...(value('location') ? { location: value('location') } : {}), ...(value('id') ? { id: value('id') } : {}), ...(Object.keys(desktop).length > 0 ? { desktop } : {}) });
      this.showSecret(`Display “${created.display.name}” added. Its token is shown only now: open this address on the display (it keeps the token and removes it from the address bar).`, created.display.id, created.token);
      this.resetDisplayForm();
      this.say(`Added ${created.display.name}.`);
    } catch (error) {
      this.say(this.words(error), 'error');
    }
    await this.refreshAll();
  }

  private showSecret(text: string, displayId: string, token: string): void {
    element('secret-text').textContent = text;
    element('secret-url').textContent = `${location.origin}/display/${encodeURIComponent(displayId)}#token=${encodeURIComponent(token)}`;
    element('secret').hidden = false;
    element('secret-done').focus();
  }

  private async rotate(display: DisplayView): Promise<void> {
    const client = this.client;
    if (!client || !confirm(`Give ${display.name} a new token? The display disconnects until it is opened with the new address.`)) return;
    try {
      const { token } = await client.rotateToken(display.id);
      this.showSecret(`${display.name} has a new token, shown only now. Open this address on the display:`, display.id, token);
      this.say(`New token for ${display.name}.`);
    } catch (error) {
      this.say(this.words(error), 'error');
    }
    await this.refreshAll();
  }

  private async deleteDisplay(display: DisplayView): Promise<void> {
    const client = this.client;
    if (!client || !confirm(`Delete ${display.name}? Its presentation stops and its token stops working.`)) return;
    await this.act(`Deleted ${display.name}.`, () => client.deleteDisplay(display.id));
  }

  private async endSession(session: SessionView, displayName: string): Promise<void> {
    const client = this.client;
    if (!client || !confirm(`End the presentation on ${displayName}?`)) return;
    await this.act(`Ended the session on ${displayName}.`, () => client.endSession(session.sessionId));
  }

  private async clearPin(pin: PinView): Promise<void> {
    const client = this.client;
    const question = pin.changed
      ? `Accept the new certificate of ${pin.key}? Only do this if you know the presenter's computer really got a new certificate.`
      : `Forget the pin of ${pin.key}? Its next session pins whatever certificate it shows.`;
    if (!client || !confirm(question)) return;
    await this.act(`Cleared the pin of ${pin.key}.`, () => client.clearPin(pin.key));
  }
}

new AdminPage().start();
