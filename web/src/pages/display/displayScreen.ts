// The display page's screens: idle (name, how to project, connection state)
// and session (connecting to a presenter, or why it failed). Text only; the
// decisions about what to say live in displayPage.ts.

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
    document.title = `${name} · Lanterna`;
    for (const ref of this.how.querySelectorAll('.name-ref')) ref.textContent = `“${name}”`;
  }

  setConnection(text: string, tone: Tone): void {
    this.statusText.textContent = text;
    this.status.dataset.tone = tone;
  }

  setProblem(text: string | null): void {
    setProblem(this.problem, text);
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
