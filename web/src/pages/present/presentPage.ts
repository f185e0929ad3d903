// Entry of the presenter page (/present): choose a display, give the
// presenter's computer (address and sign-in, or a Remote Assistance
// invitation) and the PIN on the display, then start and stop the projection.
// Every outcome is said in words from the protocol package's tables.
import {
  sentenceForPresenterCode,
  sentenceForProjectionEnd,
  waitInWords,
  type PresenterRefusal,
  type ProjectionRequestBody,
  type ProjectionStarted,
  type ProjectionStatus,
} from '@lanterna/protocol';
import { DisplayPicker } from './displayPicker.js';
import { parseEndpoint } from './endpoint.js';
import { listDisplays, projectionStatus, startProjection, stopProjection, UNREACHABLE } from './presenterClient.js';

/** How often the list of displays is read again. */
const LIST_EVERY_MS = 5000;
/** How often a projection's state is read while it starts, and once it runs. */
const STARTING_POLL_MS = 1000;
const RUNNING_POLL_MS = 4000;

type Tone = 'ok' | 'busy' | 'error' | 'info';

function byId<T extends HTMLElement>(id: string, kind: new () => T): T {
  const element = document.getElementById(id);
  if (!(element instanceof kind)) throw new Error(`present.html lacks #${id}`);
  return element;
}

const form = byId('form', HTMLFormElement);
const endpoint = byId('endpoint', HTMLInputElement);
const username = byId('username', HTMLInputElement);
const password = byId('password', HTMLInputElement);
const invitation = byId('invitation', HTMLInputElement);
const invitationPassword = byId('invitation-password', HTMLInputElement);
const pin = byId('pin', HTMLInputElement);
const startButton = byId('start', HTMLButtonElement);
const stopButton = byId('stop', HTMLButtonElement);
const outcome = byId('outcome', HTMLParagraphElement);
const statusPanel = byId('status-panel', HTMLElement);
const addressFields = byId('address-fields', HTMLDivElement);
const invitationFields = byId('invitation-fields', HTMLDivElement);

const picker = new DisplayPicker(byId('display-list', HTMLUListElement), byId('displays-note', HTMLParagraphElement), new URLSearchParams(window.location.search).get('display'));

function say(text: string, tone: Tone): void {
  statusPanel.hidden = false;
  outcome.textContent = text;
  outcome.dataset.tone = tone;
  // On a phone the panel sits above the form: bring what was said into view.
  const box = statusPanel.getBoundingClientRect();
  if (box.top < 0 || box.bottom > window.innerHeight) statusPanel.scrollIntoView({ block: 'nearest' });
}

function refusalWords(refusal: PresenterRefusal): string {
  if (refusal.code === UNREACHABLE) return 'The gateway cannot be reached. Check your network connection and try again.';
  let words = sentenceForPresenterCode(refusal.code);
  if (refusal.retryAfterSeconds !== undefined) words += ` Try again in ${waitInWords(refusal.retryAfterSeconds)}.`;
  if (refusal.code === 'pin-wrong' && refusal.attemptsLeft !== undefined) {
    words += refusal.attemptsLeft === 0 ? '' : ` ${refusal.attemptsLeft} more ${refusal.attemptsLeft === 1 ? 'try' : 'tries'} before a pause.`;
  }
  return words;
}

async function refreshDisplays(): Promise<void> {
  const listing = await listDisplays();
  if (listing.ok) picker.update(listing.value.displays);
  else picker.showProblem(refusalWords(listing.refusal));
}

function kind(): 'address' | 'invitation' {
  return form.querySelector<HTMLInputElement>('input[name="kind"]:checked')?.value === 'invitation' ? 'invitation' : 'address';
}

for (const radio of form.querySelectorAll<HTMLInputElement>('input[name="kind"]')) {
  radio.addEventListener('change', () => {
    addressFields.hidden = kind() !== 'address';
    invitationFields.hidden = kind() !== 'invitation';
  });
}

/** The request from the form, or the sentence that says what is missing. */
async function request(): Promise<ProjectionRequestBody | string> {
  const typedPin = pin.value.trim();
  if (kind() === 'invitation') {
    const file = invitation.files?.[0];
    if (!file) return 'Choose the invitation file (.msrcIncident) your computer made.';
    return { pin: typedPin, assistance: { invitation: await file.text(), password: invitationPassword.value } };
  }
  const target = parseEndpoint(endpoint.value);
  if ('error' in target) return target.error;
  const user = username.value.trim();
  return { pin: typedPin, target, ...(user === '' ? {} : { credentials: { username: user, password: password.value } }) };
}

// The projection this page started: its display, stop token, and the state last read.
let running: { started: ProjectionStarted; displayName: string; timer: ReturnType<typeof setTimeout> | null } | null = null;

function showRunning(active: boolean): void {
  stopButton.hidden = !active;
  startButton.disabled = active;
}

function describe(status: ProjectionStatus, displayName: string): { text: string; tone: Tone; done: boolean } {
  const { request } = status;
  // Where the request stands in the room (several presenters, moderation: docs/presenter-api.md) says more than the session's state.
  if (request?.state === 'declined' || request?.state === 'withdrawn') {
    return { text: `${displayName}: ${request.reason ?? request.state}${request.by ? ` (${request.by})` : ''}.`, tone: request.state === 'declined' ? 'error' : 'info', done: true };
  }
  if (request?.state === 'ended' && request.by !== undefined && request.by !== 'gateway' && request.by !== 'presenter') {
    return { text: `${displayName}: ${request.reason ?? 'ended'} (${request.by}).`, tone: 'info', done: true };
  }
  switch (status.state) {
    case 'waiting':
      return { text: `Waiting for ${displayName}'s moderator${request?.position ? ` (place ${String(request.position)} in the queue)` : ''}…`, tone: 'busy', done: false };
    case 'minted':
      return { text: `Starting on ${displayName}: the display is being told…`, tone: 'busy', done: false };
    case 'claimed':
      return { text: `${displayName} is connecting to your computer…`, tone: 'busy', done: false };
    case 'active':
      return { text: `${displayName} is showing your screen${request?.slot !== undefined && request.slot > 0 ? ` (place ${String(request.slot + 1)})` : ''}.`, tone: 'ok', done: false };
    case 'ended': {
      const why = sentenceForProjectionEnd(status.endReason ?? 'stopped');
      return { text: status.endReason === 'stopped' ? `Stopped. ${displayName} is free again.` : `${displayName}: ${why}`, tone: status.endReason === 'stopped' ? 'info' : 'error', done: true };
    }
  }
}

async function follow(): Promise<void> {
  const current = running;
  if (!current) return;
  const status = await projectionStatus(current.started.displayId, current.started.stopToken);
  if (running !== current) return;
  if (!status.ok) {
    say(status.refusal.code === 'no-projection' ? `${current.displayName}: ${sentenceForPresenterCode('no-projection')}` : refusalWords(status.refusal), 'error');
    if (status.refusal.code !== UNREACHABLE) return finish();
  } else {
    const words = describe(status.value, current.displayName);
    say(words.text, words.tone);
    if (words.done) return finish();
  }
  const settled = status.ok && status.value.state === 'active';
  current.timer = setTimeout(() => void follow(), settled ? RUNNING_POLL_MS : STARTING_POLL_MS);
}

function finish(): void {
  if (running?.timer) clearTimeout(running.timer);
  running = null;
  showRunning(false);
  void refreshDisplays();
}

form.addEventListener('submit', (event) => {
  event.preventDefault();
  void (async () => {
    const display = picker.selected;
    if (!display) return say('Choose a display first.', 'error');
    const body = await request();
    if (typeof body === 'string') return say(body, 'error');
    if (body.pin === undefined || body.pin === '') {
      pin.focus();
      return say(sentenceForPresenterCode('pin-required'), 'error');
    }
    startButton.disabled = true;
    say(`Asking the gateway to show your screen on ${display.name}…`, 'busy');
    const started = await startProjection(display.id, body);
    if (!started.ok) {
      startButton.disabled = false;
      if (started.refusal.code === 'pin-wrong' || started.refusal.code === 'pin-locked') pin.select();
      return say(refusalWords(started.refusal), 'error');
    }
    pin.value = '';
    running = { started: started.value, displayName: display.name, timer: null };
    showRunning(true);
    say(`Starting on ${display.name}…`, 'busy');
    void refreshDisplays();
    await follow();
  })();
});

stopButton.addEventListener('click', () => {
  const current = running;
  if (!current) return;
  stopButton.disabled = true;
  void stopProjection(current.started.displayId, current.started.stopToken).then((stopped) => {
    stopButton.disabled = false;
    if (running !== current) return;
    if (stopped.ok || stopped.refusal.code === 'no-projection') {
      say(`Stopped. ${current.displayName} is free again.`, 'info');
      finish();
    } else {
      say(refusalWords(stopped.refusal), 'error');
    }
  });
});

void refreshDisplays();
setInterval(() => void refreshDisplays(), LIST_EVERY_MS);
