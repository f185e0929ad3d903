// Entry of the presenter page (/present): choose a display, type the PIN on
// it, and share this computer's screen from the browser (screenShare.ts: the
// page is the RDP server), or, under "Other ways", give the presenter's
// computer (address and sign-in, or a Remote Assistance invitation); then
// start and stop the projection. Every outcome is said in words from the
// protocol package's tables.
import {
  sentenceForCode,
  sentenceForPresenterCode,
  sentenceForProjectionEnd,
  waitInWords,
  type PresenterRefusal,
  type PresenterSocket,
  type ProjectionRequestBody,
  type ProjectionStarted,
  type ProjectionStatus,
} from '@lanterna/protocol';
import { DisplayPicker } from './displayPicker.js';
import { parseEndpoint } from './endpoint.js';
import { laserPoints, listDisplays, projectionStatus, setProjectionTouch, startProjection, stopProjection, UNREACHABLE } from './presenterClient.js';
import { LaserView } from './laserView.js';
import { captureSize, pickScreen, ScreenShare, shareUnavailableReason, warmShareWorker, type ShareEngine } from './screenShare.js';
import type { ShareEnd, ShareFigures, ShareSoundCodec, ShareSoundState, ShareWorkerReply } from './shareWorkerProtocol.js';
import { fetchWhiteboard, InkPictureView, ProjectionInk } from './inkReceiver.js';
import { waitForModerator } from './moderatorWait.js';

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
const nameInput = byId('name', HTMLInputElement);
const takeOverBox = byId('take-over-box', HTMLParagraphElement);
const takeOver = byId('take-over', HTMLInputElement);
const startButton = byId('start', HTMLButtonElement);
const shareButton = byId('share', HTMLButtonElement);
const shareNote = byId('share-note', HTMLParagraphElement);
const shareFigures = byId('share-figures', HTMLParagraphElement);
const shareSound = byId('share-sound', HTMLParagraphElement);
const muteButton = byId('mute', HTMLButtonElement);
const sharePreview = byId('share-preview', HTMLVideoElement);
const sharePreviewBox = byId('share-preview-box', HTMLElement);
const otherWays = byId('other-ways', HTMLDetailsElement);
const stopButton = byId('stop', HTMLButtonElement);
const outcome = byId('outcome', HTMLParagraphElement);
const statusPanel = byId('status-panel', HTMLElement);
const addressFields = byId('address-fields', HTMLDivElement);
const touchBox = byId('touch-box', HTMLLabelElement);
const touchSwitch = byId('touch', HTMLInputElement);
const touchNote = byId('touch-note', HTMLParagraphElement);
const laserView = new LaserView(sharePreview, byId('share-preview-frame', HTMLDivElement));
const invitationFields = byId('invitation-fields', HTMLDivElement);

// Ink saved at the display over this page's projection, and a display's whiteboard (issue 30).
const projectionInk = new ProjectionInk(new InkPictureView(byId('ink-box', HTMLElement), byId('ink-picture', HTMLImageElement), byId('ink-download', HTMLAnchorElement)));
const whiteboardView = new InkPictureView(byId('whiteboard-box', HTMLElement), byId('whiteboard-picture', HTMLImageElement), byId('whiteboard-download', HTMLAnchorElement));
const whiteboardNote = byId('whiteboard-note', HTMLParagraphElement);

const picker = new DisplayPicker(byId('display-list', HTMLUListElement), byId('displays-note', HTMLParagraphElement), new URLSearchParams(window.location.search).get('display'));

function say(text: string, tone: Tone): void {
  statusPanel.hidden = false;
  outcome.textContent = text;
  outcome.dataset.tone = tone;
  // On a phone the panel sits above the form: bring what was said into view.
  const box = statusPanel.getBoundingClientRect();
  if (box.top < 0 || box.bottom > window.innerHeight) statusPanel.scrollIntoView({ block: 'nearest' });
}

/**
 * A display whose every place is taken (several presenters in an open room)
 * refuses `display-busy`: the page then offers to take a place over (the
 * gateway replaces the source on screen longest, never the room's host), and
 * the next request asks so. The choice goes with the display it was made for.
 */
function offerTakeOver(refusal: PresenterRefusal): void {
  if (refusal.code !== 'display-busy') return;
  takeOverBox.hidden = false;
  takeOverBox.dataset.display = picker.selected?.id ?? '';
}

/** `takeOver` when the presenter ticked it for this display. */
function takeOverAsk(displayId: string): { takeOver?: true } {
  return !takeOverBox.hidden && takeOver.checked && takeOverBox.dataset.display === displayId ? { takeOver: true } : {};
}

function refusalWords(refusal: PresenterRefusal): string {
  if (refusal.code === UNREACHABLE) return 'The gateway cannot be reached. Check your network connection and try again.';
  if (refusal.code === 'display-busy' && /every slot/.test(refusal.message)) {
    return takeOver.checked && !takeOverBox.hidden
      ? 'Every place on that display is taken, and none can be taken over (the room\'s host keeps its place).'
      : 'Every place on that display is taken. Wait until someone stops, or tick "replace the source that has been on it longest" and press Share again.';
  }
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

/** Where the page keeps the name the presenter gave, for the next time. */
const NAME_KEY = 'lanterna.presenterName';
try {
  nameInput.value = localStorage.getItem(NAME_KEY) ?? '';
} catch {
  // storage refused (a private window's policy): the field starts empty
}

/** The label the display shows over this source (several presenters in a room), when one was given; kept for the next time. */
function presenterName(): { name?: string } {
  const name = nameInput.value.trim().slice(0, 100);
  try {
    localStorage.setItem(NAME_KEY, name);
  } catch {
    // not kept: asked again next time
  }
  return name === '' ? {} : { name };
}

/** The request from the form, or the sentence that says what is missing. */
async function request(): Promise<ProjectionRequestBody | string> {
  const typedPin = pin.value.trim();
  if (kind() === 'invitation') {
    const file = invitation.files?.[0];
    if (!file) return 'Choose the invitation file (.msrcIncident) your computer made.';
    return { pin: typedPin, ...presenterName(), assistance: { invitation: await file.text(), password: invitationPassword.value } };
  }
  const target = parseEndpoint(endpoint.value);
  if ('error' in target) return target.error;
  const user = username.value.trim();
  return { pin: typedPin, ...presenterName(), target, ...(user === '' ? {} : { credentials: { username: user, password: password.value } }) };
}

// The projection this page started: its display, stop token, and the state last read.
let running: { started: ProjectionStarted; displayName: string; timer: ReturnType<typeof setTimeout> | null } | null = null;

function showRunning(active: boolean): void {
  if (!active) showTouch(null);
  stopButton.hidden = !active;
  startButton.disabled = active;
  shareButton.disabled = active;
}

/** "declined by the moderator (admin@10.0.0.2)"; words that already name who decided ("ended by admin@…") stay as they are. */
function withActor(words: string, by: string | undefined): string {
  return by === undefined || words.includes(by) ? words : `${words} (${by})`;
}

/**
 * How a display stands once this presenter's source has left it: free, or —
 * other presenters still showing beside where it was — with a free place.
 */
type Freed = 'is free again' | 'has a free place again';

/**
 * Whether other sources remain on the display once this one has ended: its
 * own end is awaited first (at most 2 s; a stop reaches the relay and the
 * store a moment after the page), then the public list says whether the
 * display still shows something.
 */
async function freedAfter(displayId: string, stopToken: string): Promise<Freed> {
  for (let tries = 0; tries < 10; tries++) {
    const status = await projectionStatus(displayId, stopToken);
    if (!status.ok || status.value.state === 'ended') break;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  const listing = await listDisplays();
  const state = listing.ok ? listing.value.displays.find((listed) => listed.id === displayId)?.state : undefined;
  return state === 'presenting' ? 'has a free place again' : 'is free again';
}

function describe(status: ProjectionStatus, displayName: string, freed: Freed = 'is free again'): { text: string; tone: Tone; done: boolean } {
  const { request } = status;
  // Where the request stands in the room (several presenters, moderation: docs/presenter-api.md) says more than the session's state.
  if (request?.state === 'declined' || request?.state === 'withdrawn') {
    return { text: `${displayName}: ${withActor(request.reason ?? request.state, request.by)}.`, tone: request.state === 'declined' ? 'error' : 'info', done: true };
  }
  if (request?.state === 'ended' && request.by !== undefined && request.by !== 'gateway' && request.by !== 'presenter') {
    return { text: `${displayName}: ${withActor(request.reason ?? 'ended', request.by)}.`, tone: 'info', done: true };
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
      return { text: status.endReason === 'stopped' ? `Stopped. ${displayName} ${freed}.` : `${displayName}: ${why}`, tone: status.endReason === 'stopped' ? 'info' : 'error', done: true };
    }
  }
}

/**
 * The switch that lets people at the display control this computer (issue
 * 30), off by default, shown while a computer's projection is on screen; the
 * gateway's word (the status) is what it shows. null hides it.
 */
function showTouch(allowed: boolean | null): void {
  touchBox.hidden = allowed === null;
  touchNote.hidden = allowed === null;
  if (allowed === null) return;
  if (!touchSwitch.disabled) touchSwitch.checked = allowed;
  touchNote.textContent = allowed
    ? 'On: a touch or click on your picture at the display moves your pointer and clicks. Turn it off to stop that at once.'
    : 'Off: the display only shows your screen; nothing done there reaches your computer.';
}

touchSwitch.addEventListener('change', () => {
  const current = running;
  if (!current) return;
  const wanted = touchSwitch.checked;
  touchSwitch.disabled = true;
  void setProjectionTouch(current.started.displayId, current.started.stopToken, wanted).then((changed) => {
    touchSwitch.disabled = false;
    if (running !== current) return;
    if (changed.ok) return showTouch(changed.value.touch === true);
    touchSwitch.checked = !wanted;
    say(refusalWords(changed.refusal), 'error');
  });
});

async function follow(): Promise<void> {
  const current = running;
  if (!current) return;
  const status = await projectionStatus(current.started.displayId, current.started.stopToken);
  if (running !== current) return;
  if (!status.ok) {
    say(status.refusal.code === 'no-projection' ? `${current.displayName}: ${sentenceForPresenterCode('no-projection')}` : refusalWords(status.refusal), 'error');
    if (status.refusal.code !== UNREACHABLE) return finish();
  } else {
    const stopped = status.value.state === 'ended' && status.value.endReason === 'stopped';
    const words = describe(status.value, current.displayName, stopped ? await freedAfter(current.started.displayId, current.started.stopToken) : undefined);
    if (running !== current) return;
    say(words.text, words.tone);
    showTouch(status.value.state === 'active' ? status.value.touch === true : null);
    if (words.done) return finish();
  }
  const settled = status.ok && status.value.state === 'active';
  if (settled) await projectionInk.check(current.started.displayId, current.started.stopToken);
  if (running !== current) return;
  current.timer = setTimeout(() => void follow(), settled ? RUNNING_POLL_MS : STARTING_POLL_MS);
}

function finish(): void {
  if (running?.timer) clearTimeout(running.timer);
  running = null;
  showRunning(false);
  void refreshDisplays();
}

startButton.addEventListener('click', () => {
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
    const started = await startProjection(display.id, { ...body, ...takeOverAsk(display.id) });
    if (!started.ok) {
      startButton.disabled = false;
      if (started.refusal.code === 'pin-wrong' || started.refusal.code === 'pin-locked') pin.select();
      offerTakeOver(started.refusal);
      return say(refusalWords(started.refusal), 'error');
    }
    pin.value = '';
    takeOver.checked = false;
    takeOverBox.hidden = true;
    running = { started: started.value, displayName: display.name, timer: null };
    showRunning(true);
    say(`Starting on ${display.name}…`, 'busy');
    void refreshDisplays();
    await follow();
  })();
});

byId('whiteboard-get', HTMLButtonElement).addEventListener('click', () => {
  void (async () => {
    const display = picker.selected;
    const typed = pin.value.replace(/\s+/g, '');
    whiteboardNote.hidden = false;
    whiteboardNote.dataset.tone = 'error';
    if (!display) return void (whiteboardNote.textContent = 'Choose a display first.');
    if (typed === '') return void (whiteboardNote.textContent = 'Type the PIN shown on the display above.');
    whiteboardNote.dataset.tone = 'info';
    whiteboardNote.textContent = `Getting ${display.name}'s whiteboard…`;
    const got = await fetchWhiteboard(display.id, typed);
    if (!got.ok) return void (whiteboardNote.textContent = got.sentence);
    whiteboardNote.textContent = `${display.name}'s whiteboard.`;
    whiteboardView.show(got.png);
  })();
});

// --- Share my screen -------------------------------------------------------

/** Where the presenter's wasm RDP server is (engine.json, written by the build); null when this gateway has none. */
const shareEngine: Promise<ShareEngine | null> = (async () => {
  const manifestUrl = new URL('/engine.json', window.location.href);
  try {
    const response = await fetch(manifestUrl, { cache: 'no-store' });
    const manifest = (await response.json()) as { presenter?: unknown };
    if (typeof manifest.presenter !== 'string') return null;
    const presenterUrl = new URL(manifest.presenter, manifestUrl);
    return { presenterUrl: presenterUrl.href, buildUrl: new URL('../build/', presenterUrl).href };
  } catch {
    return null;
  }
})();

/** `?codec=planar` forces the lossless fallback (a display or network where H.264 misbehaves; tests). */
const shareCodec = new URLSearchParams(window.location.search).get('codec') === 'planar' ? 'planar' : 'auto';

// The share this page runs, and its display's name.
let sharing: { share: ScreenShare; displayId: string; displayName: string; stopToken: string; stream: MediaStream; inkPoll: ReturnType<typeof setInterval> } | null = null;

const shareWorkerUrl = new URL('./share.worker.js', import.meta.url);
/** A share worker loading the RDP server while the PIN is typed, for the next Share. */
let warmWorker: Worker | null = null;

/** The warm worker for this share (a new one if none), and none kept: the next is warmed by the next PIN. */
function takeShareWorker(engine: ShareEngine): Worker {
  const worker = warmWorker ?? warmShareWorker(shareWorkerUrl, engine);
  warmWorker = null;
  return worker;
}

const shareNoteText = shareNote.textContent;
const unavailable = shareUnavailableReason();
if (unavailable !== null) {
  shareButton.disabled = true;
  shareNote.textContent = unavailable;
  shareNote.dataset.tone = 'error';
  otherWays.open = true;
}
pin.addEventListener('input', () => {
  if (unavailable !== null || sharing !== null || warmWorker !== null) return;
  void shareEngine.then((engine) => {
    if (engine !== null && sharing === null && warmWorker === null) warmWorker = warmShareWorker(shareWorkerUrl, engine);
  });
});
void shareEngine.then((engine) => {
  if (engine !== null || unavailable !== null) return;
  shareButton.disabled = true;
  shareNote.textContent = 'This gateway was installed without the sharing engine, so it cannot show a browser\'s screen. Use one of the other ways below.';
  shareNote.dataset.tone = 'error';
  otherWays.open = true;
});

/** Instrumentation hook for tests and benchmarks outside the page (they listen on window), as the display page has. */
function announce(detail: ShareWorkerReply | { type: 'ended-words'; text: string } | { type: 'waiting-for-moderator' } | { type: 'accepted'; slot: number | undefined }): void {
  window.dispatchEvent(new CustomEvent('lanterna:share', { detail }));
}

function figuresWords(active: Extract<ShareWorkerReply, { type: 'active' }>, figures: ShareFigures | null): string {
  const codec = active.codec === 'h264' ? 'H.264' : 'lossless, slower';
  const head = `${active.width}×${active.height} · ${codec}`;
  if (figures === null) return `${head} · at most ${active.maxFps} pictures a second`;
  // "0 pictures" reads as broken: a still screen sends nothing, and a slow display holds the next picture back
  if (figures.capturedPerSecond === 0) return `${head} · your screen is still, nothing to send (at most ${active.maxFps} pictures a second)`;
  // a lowered bitrate is a softer picture: say why, so nobody blames the display
  const lowered = figures.bitrate && figures.bitrate.target < figures.bitrate.ceiling * 0.9
    ? ` · quality lowered to ${(figures.bitrate.target / 1e6).toFixed(1)} Mbit/s: the network to the display is slower than your screen changes`
    : '';
  if (figures.picturesPerSecond === 0) return `${head} · the display is slow to show pictures: only the newest waits for it${lowered}`;
  const rate = figures.bytesPerSecond >= 1e6 ? `${(figures.bytesPerSecond / 1e6).toFixed(1)} MB/s` : `${Math.round(figures.bytesPerSecond / 1e3)} kB/s`;
  const pictures = `${figures.picturesPerSecond} picture${figures.picturesPerSecond === 1 ? '' : 's'}`;
  return `${head} · ${pictures} a second shown (at most ${active.maxFps}) · ${rate}${lowered}`;
}

/** While a share runs the form asks for nothing: one share at a time, stopped from the panel. */
function lockForm(locked: boolean): void {
  pin.disabled = locked;
  nameInput.disabled = locked;
  shareButton.textContent = locked ? 'Sharing…' : 'Share my screen';
  shareNote.textContent = locked ? 'You are sharing now. Press "Stop sharing" to end it, or to share something else.' : shareNoteText;
}

function endWords(end: ShareEnd | { readonly by: 'browser' }, displayName: string, freed: Freed): { text: string; tone: Tone } {
  switch (end.by) {
    case 'presenter':
      return { text: `Stopped. ${displayName} ${freed}.`, tone: 'info' };
    case 'browser':
      return { text: `You stopped sharing from the browser. ${displayName} ${freed}.`, tone: 'info' };
    case 'gateway':
      if (end.reason === 'stopped') return { text: `An administrator stopped your presentation on ${displayName}. It ${freed}.`, tone: 'info' };
      if (end.reason === 'client-closed') return { text: `${displayName} closed the presentation (its page was closed or reloaded).`, tone: 'error' };
      if (end.reason === 'server-closed') return { text: `Stopped. ${displayName} ${freed}.`, tone: 'info' };
      return { text: `${displayName}: ${sentenceForProjectionEnd(end.reason)}`, tone: 'error' };
    case 'error':
      return { text: `${displayName} stopped showing your screen: ${sentenceForCode(end.code)} (${end.message})`, tone: 'error' };
    case 'lost':
      return { text: `Sharing stopped: ${end.message}.`, tone: 'error' };
  }
}

/**
 * Words for a share the gateway ended when someone in the room decided it
 * (its request `ended` by a moderator or a take-over: "replaced by "Bob"
 * (presenter@…)", or an administrator's end); undefined when it ended by
 * itself, which endWords says.
 */
async function roomEndWords(current: { displayId: string; displayName: string; stopToken: string }): Promise<{ text: string; tone: Tone } | undefined> {
  const status = await projectionStatus(current.displayId, current.stopToken);
  const request = status.ok ? status.value.request : undefined;
  if (!status.ok || request?.state !== 'ended' || request.by === undefined || request.by === 'gateway' || request.by === 'presenter') return undefined;
  // An administrator's end (the admin API or page) says so whatever the relay saw first (the display may close its
  // data socket before the relay's stop lands: "client-closed").
  if (request.by.startsWith('admin') && /^ended by /.test(request.reason ?? '')) {
    return { text: `An administrator stopped your presentation on ${current.displayName}. It ${await freedAfter(current.displayId, current.stopToken)}.`, tone: 'info' };
  }
  return describe(status.value, current.displayName);
}

function endShare(end: ShareEnd | { readonly by: 'browser' }): void {
  const current = sharing;
  if (!current) return;
  sharing = null;
  clearInterval(current.inkPoll);
  laserView.stop();
  const generation = ++shareGeneration;
  void (async () => {
    // Someone in the room ended it (a moderator, a take-over): the request says who, in more words than the relay's end can.
    const words = (end.by === 'gateway' ? await roomEndWords(current) : undefined)
      ?? endWords(end, current.displayName, end.by === 'error' || end.by === 'lost' ? 'is free again' : await freedAfter(current.displayId, current.stopToken));
    if (generation !== shareGeneration) return;
    say(words.text, words.tone);
    announce({ type: 'ended-words', text: words.text });
  })();
  shareFigures.hidden = true;
  shareSound.hidden = true;
  muteButton.hidden = true;
  offerFormAgain();
}

async function share(): Promise<void> {
  if (running || sharing || waiting) return;
  const display = picker.selected;
  if (!display) return say('Choose a display first.', 'error');
  const typedPin = pin.value.trim();
  if (typedPin === '') {
    pin.focus();
    return say(sentenceForPresenterCode('pin-required'), 'error');
  }
  const engine = await shareEngine;
  if (engine === null) return say('This gateway was installed without the sharing engine. Use one of the other ways below.', 'error');
  shareButton.disabled = true;
  // the browser's picker first, while the click still counts as the person's gesture
  say('Choose what to share in your browser\'s window…', 'busy');
  let stream: MediaStream;
  try {
    stream = await pickScreen();
  } catch (error) {
    shareButton.disabled = false;
    const cancelled = error instanceof DOMException && error.name === 'NotAllowedError';
    return say(cancelled ? 'Nothing is shared: the browser\'s window was closed without a choice.' : `The browser could not share a screen: ${error instanceof Error ? error.message : String(error)}`, cancelled ? 'info' : 'error');
  }
  say(`Asking the gateway to show your screen on ${display.name}…`, 'busy');
  // the capture's first frame says its size while the gateway answers
  const sizing = captureSize(stream);
  const started = await startProjection(display.id, { pin: typedPin, ...presenterName(), ...takeOverAsk(display.id), source: 'browser' });
  const waits = started.ok && started.value.presenter === undefined && started.value.state === 'waiting';
  if (!started.ok || (started.value.presenter === undefined && !waits)) {
    for (const track of stream.getTracks()) track.stop();
    shareButton.disabled = false;
    if (!started.ok && (started.refusal.code === 'pin-wrong' || started.refusal.code === 'pin-locked')) pin.select();
    if (!started.ok) offerTakeOver(started.refusal);
    return say(started.ok ? 'The gateway answered without a presenter socket: it may be an older version.' : refusalWords(started.refusal), 'error');
  }
  pin.value = '';
  takeOver.checked = false;
  takeOverBox.hidden = true;
  const { stopToken } = started.value;
  if (started.value.presenter !== undefined) return beginShare({ displayId: display.id, displayName: display.name, stopToken, stream, size: await sizing, presenter: started.value.presenter, engine, slot: started.value.slot });
  await waitThenShare({ displayId: display.id, displayName: display.name, stopToken, stream, sizing, engine }, started.value.position);
}

/** Counts shares begun and ended: words that arrive after the next share began are not said over it. */
let shareGeneration = 0;

// A share waiting for a moderated room's moderator: its capture, kept, and how to stop waiting.
let waiting: { displayId: string; displayName: string; stopToken: string; stream: MediaStream; abort: AbortController } | null = null;

function waitingWords(displayName: string, position: number | undefined): string {
  return `Waiting for ${displayName}'s moderator${position ? ` (place ${String(position)} in the queue)` : ''}… Your screen is shared as soon as the moderator accepts.`;
}

/** Shows the capture and waits for the moderator; accepted, the share starts with the capture the person already chose (no second picker). */
async function waitThenShare(ask: { displayId: string; displayName: string; stopToken: string; stream: MediaStream; sizing: Promise<{ width: number; height: number }>; engine: ShareEngine }, position: number | undefined): Promise<void> {
  const { displayName, stream } = ask;
  const abort = new AbortController();
  shareGeneration += 1;
  const current = { displayId: ask.displayId, displayName, stopToken: ask.stopToken, stream, abort };
  waiting = current;
  showSharePanel(stream, 'Stop waiting');
  shareNote.textContent = 'Waiting for the moderator. Press "Stop waiting" to take your request back.';
  say(waitingWords(displayName, position), 'busy');
  announce({ type: 'waiting-for-moderator' });
  // the browser's "Stop sharing" while waiting takes the request back
  const ended = (): void => stopWaiting('browser');
  for (const track of stream.getVideoTracks()) track.addEventListener('ended', ended, { once: true });
  const decision = await waitForModerator(ask.displayId, ask.stopToken, abort.signal, (status) => say(waitingWords(displayName, status.request?.position), 'busy'));
  for (const track of stream.getVideoTracks()) track.removeEventListener('ended', ended);
  if (waiting !== current) return;
  waiting = null;
  if (decision.kind === 'accepted') {
    announce({ type: 'accepted', slot: decision.status.request?.slot });
    return beginShare({ displayId: ask.displayId, displayName, stopToken: ask.stopToken, stream, size: await ask.sizing, presenter: decision.presenter, engine: ask.engine, slot: decision.status.request?.slot });
  }
  const words = decision.kind === 'over'
    ? describe(decision.status, displayName)
    : { text: decision.kind === 'lost' ? `${displayName}: ${refusalWords(decision.refusal)}` : `You stopped waiting for ${displayName}.`, tone: 'info' as Tone };
  endWaiting(current, words.text, words.tone);
}

/** The share panel shown with the chosen capture (waiting for the moderator, or sharing), its stop button named for what it stops, the form locked. */
function showSharePanel(stream: MediaStream, stopLabel: 'Stop waiting' | 'Stop sharing'): void {
  sharePreview.srcObject = stream;
  sharePreviewBox.hidden = false;
  void sharePreview.play().catch(() => undefined);
  stopButton.textContent = stopLabel;
  showRunning(true);
  lockForm(true);
}

/** The share panel put away and the form offered again (after a share, or a wait that ended without one). */
function offerFormAgain(): void {
  sharePreviewBox.hidden = true;
  sharePreview.srcObject = null;
  stopButton.disabled = false;
  stopButton.textContent = 'Stop presenting';
  showRunning(false);
  lockForm(false);
  void refreshDisplays();
}

/** The wait is over without a share: the capture is given back and the form offered again. */
function endWaiting(current: { stream: MediaStream }, text: string, tone: Tone): void {
  for (const track of current.stream.getTracks()) track.stop();
  say(text, tone);
  announce({ type: 'ended-words', text });
  offerFormAgain();
}

/** The presenter (the page's button, or the browser's bar) takes its waiting request back. */
function stopWaiting(by: 'page' | 'browser'): void {
  const current = waiting;
  if (!current) return;
  waiting = null;
  current.abort.abort();
  stopButton.disabled = true;
  void stopProjection(current.displayId, current.stopToken).then((stopped) => {
    // accepted meanwhile, the stop ended the source it had just become: either way nothing is shown now
    const gone = stopped.ok || stopped.refusal.code === 'no-projection';
    const text = !gone
      ? refusalWords(stopped.refusal)
      : by === 'browser' ? `You stopped sharing from the browser: your request to ${current.displayName} was taken back.` : `You stopped waiting: your request to ${current.displayName} was taken back.`;
    endWaiting(current, text, gone ? 'info' : 'error');
  });
}

/** The share itself, once the gateway gave the page its presenter socket (at once in an open room, on acceptance in a moderated one). */
function beginShare(ask: { displayId: string; displayName: string; stopToken: string; stream: MediaStream; size: { width: number; height: number }; presenter: PresenterSocket; engine: ShareEngine; slot?: number | undefined }): void {
  const { displayName, stream, presenter, engine, stopToken } = ask;
  shareGeneration += 1;
  let active: Extract<ShareWorkerReply, { type: 'active' }> | null = null;
  const shareSession = new ScreenShare(stream, { socketUrl: presenter.socketUrl, token: presenter.token, engine, codec: shareCodec, size: ask.size, shown: presenter.desktop }, takeShareWorker(engine), {
    onwaiting: () => {
      say(`Waiting for ${displayName} to connect…`, 'busy');
      announce({ type: 'waiting' });
    },
    onactive: (info) => {
      active = info;
      say(`${displayName} is connected: sending your screen…`, 'busy');
      shareFigures.hidden = false;
      shareFigures.textContent = figuresWords(info, null) + (info.fallbackReason === undefined ? '' : ` — ${info.fallbackReason}`);
      announce(info);
    },
    onfirstpicture: () => {
      // where it stands in a room of several sources: which place (the first needs no number)
      say(`${displayName} is showing your screen${ask.slot !== undefined && ask.slot > 0 ? ` (place ${String(ask.slot + 1)})` : ''}.`, 'ok');
      announce({ type: 'first-picture' });
    },
    onsound: (state, codec) => {
      soundCodec = codec ?? soundCodec;
      showSound(state, displayName);
      announce({ type: 'sound', state, ...(codec === undefined ? {} : { codec }) });
    },
    onfigures: (figures) => {
      if (active) shareFigures.textContent = figuresWords(active, figures) + (active.fallbackReason === undefined ? '' : ` — ${active.fallbackReason}`);
      announce({ type: 'figures', figures });
    },
    onended: (end) => endShare(end),
  });
  const inkPoll = setInterval(() => void projectionInk.check(ask.displayId, stopToken), RUNNING_POLL_MS);
  laserView.start((after, waitMs) => laserPoints(ask.displayId, stopToken, after, waitMs));
  sharing = { share: shareSession, displayId: ask.displayId, displayName, stopToken, stream, inkPoll };
  soundMuted = false;
  soundCodec = null;
  showSound(shareSession.hasSound ? 'starting' : 'none', displayName);
  showSharePanel(stream, 'Stop sharing');
  say(`Connecting to ${displayName}…`, 'busy');
  void refreshDisplays();
}

/** The sound line and the mute button, for where the share's sound stands ('none': the share has no sound). */
let soundState: ShareSoundState | 'none' = 'none';
/** Whether the presenter has muted: the state the worker reports next agrees (a mute before the sound starts is kept). */
let soundMuted = false;
/** The format the display's client chose for this share's sound, once it did. */
let soundCodec: ShareSoundCodec | null = null;

function showSound(state: ShareSoundState | 'none', displayName: string): void {
  soundState = state;
  shareSound.hidden = false;
  shareSound.textContent = soundWords(state, displayName);
  muteButton.hidden = state === 'none' || state === 'refused';
  const muted = state === 'muted';
  muteButton.setAttribute('aria-pressed', String(muted));
  muteButton.textContent = muted ? 'Unmute sound' : 'Mute sound';
}

function soundWords(state: ShareSoundState | 'none', displayName: string): string {
  switch (state) {
    case 'none':
      return 'No sound: only the picture is shown. To send sound, share a tab and tick "Also share tab audio" in the browser\'s window.';
    case 'starting':
      return `Sound: connecting to ${displayName}…`;
    case 'playing':
      return `Sound: ${displayName} plays what you share${soundCodec === null ? '' : soundCodec === 'opus' ? ' (Opus)' : ' (PCM)'}.`;
    case 'muted':
      return `Sound muted: ${displayName} shows the picture only.`;
    case 'refused':
      return `No sound: ${displayName} did not accept the sound format.`;
  }
}

muteButton.addEventListener('click', () => {
  if (!sharing) return;
  soundMuted = !soundMuted;
  sharing.share.mute(soundMuted);
  // the worker confirms with its state; the page answers at once
  const next = soundMuted ? 'muted' : soundState === 'muted' ? 'playing' : soundState;
  showSound(next, sharing.displayName);
});

form.addEventListener('submit', (event) => {
  event.preventDefault();
  void share();
});
stopButton.addEventListener('click', () => {
  if (waiting) {
    stopWaiting('page');
    return;
  }
  if (sharing) {
    stopButton.disabled = true;
    sharing.share.stop();
    return;
  }
  const current = running;
  if (!current) return;
  stopButton.disabled = true;
  void stopProjection(current.started.displayId, current.started.stopToken).then(async (stopped) => {
    stopButton.disabled = false;
    if (running !== current) return;
    if (stopped.ok || stopped.refusal.code === 'no-projection') {
      const freed = await freedAfter(current.started.displayId, current.started.stopToken);
      if (running !== current) return;
      say(`Stopped. ${current.displayName} ${freed}.`, 'info');
      finish();
    } else {
      say(refusalWords(stopped.refusal), 'error');
    }
  });
});

void refreshDisplays();
setInterval(() => void refreshDisplays(), LIST_EVERY_MS);
