// The display page's screens: idle (name, location, the room PIN with the
// presenter page's address and its QR code, how to project, connection
// state) and session (connecting to a presenter, or why it failed). Text
// only; the decisions about what to say live in displayPage.ts.
import { qrSvg } from './qrSvg.js';

export type Tone = 'ok' | 'busy' | 'warn' | 'error';

function byId(id: string): HTMLElement {
  const element = document.getElementById(id);
  if (!element) throw new Error(`display.html lacks #${id}`);
  return element;
}

function canvasById(id: string): HTMLCanvasElement {
  const element = byId(id);
  if (!(element instanceof HTMLCanvasElement)) throw new Error(`#${id} is not a canvas`);
  return element;
}

function setProblem(element: HTMLElement, text: string | null): void {
  element.hidden = text === null;
  element.textContent = text ?? '';
}

export class DisplayScreen {
  private readonly idle = byId('idle');
  private readonly name = byId('display-name');
  private readonly location = byId('display-location');
  private readonly room = byId('room');
  private readonly roomPin = byId('room-pin');
  private readonly roomUrl = byId('room-url');
  private readonly roomQr = byId('room-qr');
  private readonly roomQrCode = byId('room-qr-code');
  private shownUrl: string | null = null;
  private readonly badge = byId('signage-room');
  private readonly badgeName = byId('signage-name');
  private readonly badgePin = byId('signage-pin');
  private readonly badgeUrl = byId('signage-url');
  private readonly roomMode = byId('room-mode');
  private readonly badgeMode = byId('signage-mode');
  private badgeWanted = false;
  private hasRoom = false;
  private readonly how = byId('how');
  private readonly status = byId('status');
  private readonly statusText = byId('status-text');
  private readonly problem = byId('problem');
  private readonly session = byId('session');
  private readonly sessionTitle = byId('session-title');
  private readonly sessionDetail = byId('session-detail');
  private readonly sessionProblem = byId('session-problem');
  readonly canvas = canvasById('desktop');
  readonly banners = byId('banners');

  setName(name: string): void {
    this.name.textContent = name;
    this.badgeName.textContent = name;
    document.title = `${name} · Lanterna`;
    for (const ref of this.how.querySelectorAll('.name-ref')) ref.textContent = `“${name}”`;
  }

  setLocation(location: string | null): void {
    this.location.hidden = location === null || location === '';
    this.location.textContent = location ?? '';
  }

  /** The room PIN and the presenter page (in words and as a QR code); null hides them (unknown, or maybe stale). */
  setRoom(room: { pin: string; presenterUrl: string } | null): void {
    const idle = this.idle;
    idle.dataset.room = room === null ? 'off' : 'on';
    this.room.hidden = room === null;
    this.roomQr.hidden = room === null;
    this.hasRoom = room !== null;
    this.updateBadge();
    if (room === null) return;
    for (const element of [this.roomPin, this.badgePin]) {
      // Grouped as people read it aloud; the groups are elements, so the text is still the bare digits.
      element.replaceChildren(...pinGroups(room.pin).map((group) => {
        const span = document.createElement('span');
        span.textContent = group;
        return span;
      }));
      element.setAttribute('aria-label', `PIN ${room.pin.split('').join(' ')}`);
    }
    if (this.shownUrl !== room.presenterUrl) {
      this.shownUrl = room.presenterUrl;
      this.roomUrl.textContent = typedAddress(room.presenterUrl);
      const address = document.createElement('strong');
      address.textContent = typedAddress(room.presenterUrl);
      this.badgeUrl.replaceChildren('Present here: ', address);
      this.roomQrCode.replaceChildren(qrSvg(room.presenterUrl, `QR code of ${room.presenterUrl}`));
    }
  }

  /**
   * How the room takes presenters (the `layout` message's mode, from a gateway
   * that keeps several sources per display): open — up to `slots` side by
   * side; moderated — requests wait for the moderator's approval. Null: a
   * display with one source, nothing to add.
   */
  setRoomMode(mode: 'open' | 'moderated' | null, slots: number): void {
    const idleText = mode === 'moderated'
      ? 'Requests to present need the moderator’s approval: yours appears once it is accepted.'
      : mode === 'open' ? `Up to ${slots} people can present side by side: each enters the PIN.` : null;
    const badgeText = mode === 'moderated' ? 'Requests need the moderator’s approval' : null;
    this.roomMode.hidden = idleText === null;
    this.roomMode.textContent = idleText ?? '';
    this.idle.dataset.mode = mode ?? 'single';
    this.badgeMode.hidden = badgeText === null;
    this.badgeMode.textContent = badgeText ?? '';
  }

  /**
   * The corner badge with the name, the PIN and the presenter page, over the
   * display's own signage (whose picture hides the idle screen); shown only
   * while a PIN is known. Never asked for over a presenter's projection.
   */
  showRoomBadge(wanted: boolean): void {
    this.badgeWanted = wanted;
    this.updateBadge();
  }

  private updateBadge(): void {
    this.badge.hidden = !(this.badgeWanted && this.hasRoom);
  }

  setConnection(text: string, tone: Tone): void {
    this.statusText.textContent = text;
    this.status.dataset.tone = tone;
  }

  /** `info`: how the last presentation ended when nothing went wrong (an administrator or the presenter stopped it), in a quieter box. */
  setProblem(text: string | null, tone: 'error' | 'info' = 'error'): void {
    setProblem(this.problem, text);
    this.problem.dataset.tone = tone;
  }

  showIdle(): void {
    this.session.hidden = true;
    this.idle.hidden = false;
  }

  showSession(title: string, detail: string): void {
    this.sessionTitle.textContent = title;
    this.sessionDetail.textContent = detail;
    this.session.classList.remove('failed');
    setProblem(this.sessionProblem, null);
    this.idle.hidden = true;
    this.session.hidden = false;
  }

  setSessionProblem(text: string): void {
    this.session.classList.add('failed');
    setProblem(this.sessionProblem, text);
  }

  /** The presenter's picture is up: no overlay at all. */
  showPicture(): void {
    this.idle.hidden = true;
    this.session.hidden = true;
  }
}

/** 6 digits as 3 + 3, longer PINs in threes; up to 4 digits as one group. */
function pinGroups(pin: string): string[] {
  if (pin.length <= 4) return [pin];
  return pin.match(/.{1,3}/g) ?? [pin];
}

/** What a person types: the page's address without the display preselection the QR code carries. */
function typedAddress(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.origin}${parsed.pathname}`;
  } catch {
    return url;
  }
}
