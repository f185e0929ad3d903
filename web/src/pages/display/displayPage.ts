// Entry of the kiosk display page (/display/<id>): control socket, idle
// screen, and its projections: one per slot of the room (several presenters
// side by side, issue 29), each its own session, data socket and decoder,
// drawn into its own part of the canvas at the rectangle of the gateway's
// `layout` message.
import { RenderWorkerClient } from '../../render/renderWorkerClient.js';
import { ControlChannel, type ControlState } from '../../session/controlChannel.js';
import { desktopForPanel, GATEWAY_FEATURES, KIOSK_FEATURES, MAX_ROOM_SLOTS, outputFromQuery, panelFromWindow, sentenceForCode, sentenceForEngineEnd, slotPixels, slotRects } from '@lanterna/protocol';
import type { Desktop, DesktopPreference, DisplayMessage, LayoutMessage, Panel, ProjectMessage, SlotRect } from '@lanterna/protocol';
import { SessionHost, type SessionEvent } from '../../session/sessionHost.js';
import type { EngineManifest } from '../../session/sessionWorkerProtocol.js';
import type { TouchKind } from '../../session/rdpClientEngine.js';
import { DisplayScreen } from './displayScreen.js';
import { readDisplayLocation, socketUrl } from './displayLocation.js';
import { Hud } from './hud.js';
import { FiguresReporter } from './figuresReporter.js';
import { startKioskHeartbeat } from './kioskHeartbeat.js';
import { showRendererWarning } from './rendererWarning.js';
import { DisplaySound } from './displaySound.js';
import { installInk } from './ink/installInk.js';
import { layoutEntry, SlotLabels } from './slotLabels.js';
import { RemoteTouch, type TouchTarget } from './remoteTouch.js';
import { TouchMarks } from './touchMarks.js';

const clientName = 'lanterna-web/0.1';
const screen = new DisplayScreen();
const place = readDisplayLocation(window.location, window.localStorage, window.history);
const nameKey = `lanterna.display.${place.displayId}.name`;
screen.setName(window.localStorage.getItem(nameKey) ?? place.displayId);

const hud = new Hud(document.body, place.hud);
// Sound starts with the page: its muted icon says at once when the browser refuses it.
const sound = new DisplaySound(window.location.search);
// The sessions' figures go to the gateway on the control socket (made below, when the page has a token).
let control: ControlChannel | null = null;
/** A reporter per source: each session's figures name its own session; the one that plays the sound reports it. */
function newFigures(withSound: boolean): FiguresReporter {
  return new FiguresReporter(
    { sendFigures: (message) => control?.sendFigures(message) ?? false, sound: () => (withSound ? sound.report() : null) },
    // Instrumentation hook: what this display told the gateway (tests compare the admin's live view with it).
    (message) => window.dispatchEvent(new CustomEvent('lanterna:figures', { detail: message })),
  );
}
window.addEventListener('keydown', (event) => {
  if (event.key === 'h' && !event.ctrlKey && !event.altKey && !event.metaKey) hud.toggle();
});

/** How long a source glides to its new place when one joins or leaves (the labels glide with it). */
const GLIDE_MS = 300;
const labels = new SlotLabels(document.body, GLIDE_MS);

/** One projection on the page: a room's slot (0 on a display with one source). */
interface Source {
  readonly slot: number;
  readonly project: ProjectMessage;
  readonly host: SessionHost;
  readonly figures: FiguresReporter;
  /** The desktop it asked of the server, last. */
  desktop: { width: number; height: number };
  /** Its picture is up. */
  showing: boolean;
  /** Why it cannot show anything (its label says so while others show). */
  notice: string | null;
  /** The same for the idle screen after it ends. */
  endNotice: string | null;
  /** Whether it plays the page's sound (one source does: the sound queue has one writer). */
  readonly sound: boolean;
  /** The desktop the server sends (touch maps onto it); null before the first picture. */
  desktopSize: { width: number; height: number } | null;
}
const sources = new Map<number, Source>();
/** The room as the gateway last described it (null: a gateway that keeps one source per display). */
let layout: LayoutMessage | null = null;

// The renderer lives in its own worker (see web/README.md for the measurements).
function devicePixels(): { width: number; height: number } {
  const ratio = window.devicePixelRatio || 1;
  return { width: Math.round(window.innerWidth * ratio), height: Math.round(window.innerHeight * ratio) };
}
const initial = devicePixels();
screen.canvas.width = initial.width;
screen.canvas.height = initial.height;
const renderer = new RenderWorkerClient(screen.canvas, new URL('./render.worker.js', import.meta.url), { preferCanvas2D: place.preferCanvas2D, syncTiming: place.gpuSync }, {
  onready: (kind, warning) => {
    hud.setRenderer(kind);
    showRendererWarning(screen.banners, warning);
  },
  onstatistics: (stats, surface) => {
    const source = sources.get(surface);
    hud.onRender(stats, surface);
    source?.figures.onPresent(stats.rects > 0);
    // Instrumentation hook for benchmarks and tests outside the page (they listen on window); `slot`: whose picture.
    window.dispatchEvent(new CustomEvent('lanterna:render', { detail: { ...stats, slot: surface } }));
    // its first present with pixels of the session (a surface placed or re-laid out presents before any frame came)
    if (source && !source.showing && stats.rects > 0) {
      source.showing = true;
      screen.showPicture();
      showLabels();
    }
  },
  onerror: (message) => showRendererWarning(screen.banners, `The picture cannot be drawn: ${message}`),
  oncontextchange: (state) => {
    // The picture stays frozen meanwhile; the renderer redraws it when the context returns.
    hud.setRenderer(state === 'lost' ? 'webgl2 (context lost, waiting)' : 'webgl2 (context restored)');
    showRendererWarning(screen.banners, state === 'lost' ? 'The graphics were reset; the picture will come back in a moment.' : null);
  },
});// Ink over the picture, or a whiteboard on the idle screen (issue 30; ink/). With several
// sources the picture saved is the whole composition, given to the newest source's presenter.
const ink = installInk(document.body, { displayId: place.displayId, token: place.token, snapshot: () => renderer.snapshot() });
new RemoteTouch(screen.canvas, { targets: () => touchTargets(), inkOpen: () => !ink.root.hidden });

// The panel (docs/kiosk-protocol.md "The panel and the desktop"): reported to
// the gateway, and the desktop each session asks for: the panel, or in a room
// with several sources its slot's pixels. A change (window resize, rotation,
// a new layout) is reported once it has settled, and a running session asks
// the server to follow over Display Control; one without it stays letterboxed.
const PANEL_SETTLE_MS = 400;
let desktopPreference: DesktopPreference = {};
/** The physical output, where the kiosk launcher read it (xrandr) and put it in the address. */
const panelOutput = outputFromQuery(new URLSearchParams(location.search).get('output'));
function currentPanel(): Panel {
  return panelFromWindow(window.innerWidth, window.innerHeight, window.devicePixelRatio || 1, panelOutput);
}

/** Where a source sits (fractions of the panel): the layout's word, else where the gateway will put it; null: a display with one source. */
function rectFor(slot: number, sessionId: string): SlotRect | null {
  if (layout === null) return null;
  const entry = layoutEntry(layout.slots, sessionId);
  if (entry) return { slot, x: entry.x, y: entry.y, width: entry.width, height: entry.height };
  // Its project came before the layout that places it: the same rule the gateway applies (protocol's slotRects).
  const occupied = [...layout.slots.map((entry) => entry.slot).filter((other) => other !== slot), slot];
  return slotRects(layout.layout, occupied, layout.large).find((rect) => rect.slot === slot) ?? null;
}

/** The desktop a source asks for: its slot's pixels when it shares the panel, else the panel (with the admin's preference). */
function desktopFor(rect: SlotRect | null): Desktop {
  const panel = currentPanel();
  const sharing = rect !== null && rect.width > 0 && rect.height > 0 && (rect.width < 1 || rect.height < 1);
  if (!sharing) return desktopForPanel(panel, desktopPreference);
  // A fixed desktop size is for the whole panel; its scale still applies.
  return desktopForPanel(slotPixels(rect, panel), desktopPreference.scale === undefined ? {} : { scale: desktopPreference.scale });
}

/** Each source follows the panel and the layout: its place on the canvas, and (Display Control) its desktop. */
function placeSources(glideMs: number): void {
  for (const source of sources.values()) {
    const rect = rectFor(source.slot, source.project.sessionId);
    renderer.setSurfaceRect(source.slot, rect === null ? null : { x: rect.x, y: rect.y, width: rect.width, height: rect.height }, glideMs);
    const desktop = desktopFor(rect);
    // A hidden source keeps its size: it is not drawn until the layout shows it again.
    const hidden = rect !== null && (rect.width === 0 || rect.height === 0);
    if (!hidden && (desktop.width !== source.desktop.width || desktop.height !== source.desktop.height)) {
      source.desktop = { width: desktop.width, height: desktop.height };
      source.host.requestSize(desktop.width, desktop.height);
    }
  }
  showLabels();
}

/** Whether the source's presenter lets people here control the computer (the gateway's `layout` says; its relay enforces it). */
function touchAllowed(source: Source): boolean {
  return layout !== null && layoutEntry(layout.slots, source.project.sessionId)?.touch === true;
}

// Touch to the presenter's computer (issue 30): a mark on each source whose presenter allowed it, and the touches themselves.
const touchMarks = new TouchMarks(document.body);
function touchTargets(): TouchTarget[] {
  return [...sources.values()].map((source) => ({
    slot: source.slot,
    rect: rectFor(source.slot, source.project.sessionId),
    desktop: source.desktopSize,
    allowed: touchAllowed(source),
    send: (flags: number, x: number, y: number) => source.host.sendMouse(flags, x, y),
    multiTouch: source.host.touchOffered
      ? (kind: TouchKind, id: number, x: number, y: number, pressure?: number) => source.host.sendTouch(kind, id, x, y, pressure)
      : undefined,
    laser: source.project.source === 'browser'
      ? (x: number, y: number, down: boolean) => {
          control?.sendLaser({ type: 'laser', sessionId: source.project.sessionId, x, y, down });
          pointedAt(source.slot);
        }
      : undefined,
  }));
}

/**
 * Over a browser presenter's picture the laser's mark says what a touch does
 * only while someone points (and LASER_MARK_MS after), so nothing of the
 * display's own covers what is presented the rest of the time.
 */
const LASER_MARK_MS = 8000;
const pointedUntil = new Map<number, number>();
let laserMarkTimer: ReturnType<typeof setTimeout> | null = null;
function pointedAt(slot: number): void {
  const fresh = (pointedUntil.get(slot) ?? 0) < performance.now();
  pointedUntil.set(slot, performance.now() + LASER_MARK_MS);
  if (fresh) showTouchMarks();
  if (laserMarkTimer !== null) clearTimeout(laserMarkTimer);
  laserMarkTimer = setTimeout(() => { laserMarkTimer = null; showTouchMarks(); }, LASER_MARK_MS + 50);
}

function showTouchMarks(): void {
  const marks = [];
  for (const source of sources.values()) {
    const pointing = source.project.source === 'browser' && (pointedUntil.get(source.slot) ?? 0) > performance.now();
    if (!touchAllowed(source) && !pointing) continue;
    const rect = rectFor(source.slot, source.project.sessionId) ?? { x: 0, y: 0, width: 1, height: 1 };
    if (rect.width === 0 || rect.height === 0) continue;
    const label = layout === null ? undefined : layoutEntry(layout.slots, source.project.sessionId)?.label;
    marks.push({ slot: source.slot, name: label !== undefined && label !== '' ? label : source.project.target.name, rect, kind: source.project.source === 'browser' ? 'laser' as const : 'control' as const });
  }
  touchMarks.show(marks);
}

function showLabels(): void {
  showTouchMarks();
  const states = [];
  for (const entry of layout?.slots ?? []) {
    const source = sources.get(entry.slot);
    const status = source?.project.sessionId !== entry.sessionId ? 'Connecting…'
      : source.notice ?? (source.showing ? null : `Connecting to ${source.project.target.name}…`);
    states.push({ slot: entry.slot, label: entry.label, rect: entry, status });
  }
  labels.show(states);
  // The HUD's line per source names it as its label does.
  hud.setSources([...sources.values()].map((source) => ({
    slot: source.slot, traffic: source.host.traffic,
    label: layout?.slots.find((entry) => entry.slot === source.slot)?.label ?? source.project.target.name,
  })));
}

let panelTimer: ReturnType<typeof setTimeout> | null = null;
function panelChanged(): void {
  control?.sendPanel(currentPanel());
  placeSources(0);
}
window.addEventListener('resize', () => {
  const size = devicePixels();
  renderer.setCanvasSize(size.width, size.height);
  if (panelTimer !== null) clearTimeout(panelTimer);
  panelTimer = setTimeout(() => { panelTimer = null; panelChanged(); }, PANEL_SETTLE_MS);
});

let engineUrl: string | null = null;
const engineReady = fetch(new URL('./engine.json', import.meta.url))
  .then(async (response) => (response.ok ? ((await response.json()) as EngineManifest) : { available: false }))
  .then((manifest) => {
    if (manifest.available && manifest.module !== undefined) engineUrl = new URL(manifest.module, new URL('./engine.json', import.meta.url)).href;
  })
  .catch(() => undefined);

let countdown: ReturnType<typeof setInterval> | null = null;
let online = false;
let controlKind = 'starting';
startKioskHeartbeat(() => ({ control: controlKind, presenting: sources.size > 0 }));

/** The name and location from `welcome`, or from `display` when an admin changes them while the page is open. */
function showDisplay(display: DisplayMessage['display']): void {
  desktopPreference = display.desktop ?? {};
  window.localStorage.setItem(nameKey, display.name);
  screen.setName(display.name);
  screen.setLocation(display.location ?? null);
}

function showControlState(state: ControlState): void {
  if (countdown !== null) clearInterval(countdown);
  countdown = null;
  online = state.kind === 'online';
  controlKind = state.kind;
  // A PIN from before a lost connection may have rotated meanwhile: show none until the gateway sends one.
  if (!online) screen.setRoom(null);
  switch (state.kind) {
    case 'connecting':
      screen.setConnection(state.attempt > 1 ? 'Reconnecting to the gateway…' : 'Connecting to the gateway…', 'busy');
      break;
    case 'online':
      showDisplay(state.welcome.display);
      ink.setSaving(state.welcome.features?.includes(GATEWAY_FEATURES.inkSave) === true);
      control?.sendPanel(currentPanel());
      screen.setConnection('Ready — waiting for a presenter', 'ok');
      screen.setProblem(null);
      break;
    case 'waiting': {
      const tick = (): void => {
        const seconds = Math.max(1, Math.ceil((state.retryAt - Date.now()) / 1000));
        screen.setConnection(`Reconnecting to the gateway in ${seconds} s…`, state.lastError === null ? 'warn' : 'error');
      };
      tick();
      countdown = setInterval(tick, 250);
      screen.setProblem(state.lastError === null ? 'The connection to the gateway was lost.' : sentenceForCode(state.lastError));
      endAll();
      break;
    }
    case 'stopped':
      screen.setConnection('Stopped — reload this page to take the display back', 'error');
      screen.setProblem(sentenceForCode(state.lastError));
      endAll();
      break;
  }
}

/** Whether any other source's picture is up (then a new one says "connecting" on its label, not over the whole panel). */
/**
 * Sessions that ended on their own lately: the gateway's `stop` for one may
 * come after its data socket already closed (the relay ends the session and
 * the control socket says who ended it: two sockets, no order between them),
 * and its words still belong on the idle screen.
 */
const endedLately: string[] = [];

function othersShowing(slot: number): boolean {
  return [...sources.values()].some((source) => source.slot !== slot && source.showing);
}

function onSessionEvent(event: SessionEvent, source: Source): void {
  const { project } = source;
  switch (event.kind) {
    case 'engine-missing':
      source.notice = `The RDP decoder is not loaded yet, so “${project.target.name}” cannot be shown on this display.`;
      source.endNotice = `Could not show “${project.target.name}”: the RDP decoder is not loaded yet (${event.message}).`;
      if (!othersShowing(source.slot)) screen.setSessionProblem(source.notice);
      showLabels();
      break;
    case 'connected':
      break;
    case 'desktop':
      source.desktopSize = { width: event.width, height: event.height };
      break;
    case 'resize-asked':
      // Instrumentation hook: tests see whether the server was asked to follow or the picture stays letterboxed.
      window.dispatchEvent(new CustomEvent('lanterna:resize', { detail: { width: event.width, height: event.height, sent: event.sent, slot: source.slot } }));
      break;
    case 'rtt':
      hud.onRoundTrip(event.ms);
      break;
    case 'decoded':
      hud.onDecode(event.decodeMs, event.latencyMs, source.slot);
      // bytesIn: what the data socket has brought so far (benchmarks compare codecs by it)
      window.dispatchEvent(new CustomEvent('lanterna:decode', { detail: { decodeMs: event.decodeMs, bytesIn: source.host.traffic.bytesIn, slot: source.slot } }));
      break;
    case 'failed':
      source.notice = `Showing “${project.target.name}” failed: ${event.message}`;
      source.endNotice = source.notice;
      if (!othersShowing(source.slot)) screen.setSessionProblem(source.notice);
      showLabels();
      break;
    case 'ended': {
      endedLately.push(project.sessionId);
      if (endedLately.length > MAX_ROOM_SLOTS * 2) endedLately.shift();
      const engineSentence = event.engineReason === null ? null : sentenceForEngineEnd(event.engineReason);
      const explanation = event.errorCode !== null ? sentenceForCode(event.errorCode) : engineSentence;
      const words = source.endNotice ?? (explanation === null ? null : `Last presentation: ${explanation}`);
      // The others go on; its slot is freed (the gateway's next layout re-lays the room out).
      forget(source);
      if (sources.size === 0) {
        screen.setProblem(words);
        if (online) screen.setConnection('Ready — waiting for a presenter', 'ok');
      }
      break;
    }
  }
}

/** Removes a source from the page: its surface, its figures, and the idle screen when it was the last. */
function forget(source: Source): void {
  if (sources.get(source.slot) !== source) return;
  sources.delete(source.slot);
  const newest = [...sources.values()].at(-1);
  ink.setSurface(newest ? { kind: 'session', sessionId: newest.project.sessionId } : { kind: 'whiteboard' });
  source.figures.stop();
  renderer.removeSurface(source.slot);
  if (source.sound) hud.setTraffic(null);
  if (sources.size === 0) {
    screen.showRoomBadge(false);
    hud.setTraffic(null);
    screen.showIdle();
  } else {
    screen.showRoomBadge([...sources.values()].some((other) => other.project.signage === true));
    // A source still connecting when the only picture went: its overlay comes back.
    if (!othersShowing(-1)) {
      const next = [...sources.values()][0];
      if (next) screen.showSession(`Connecting to ${next.project.target.name}…`, `${next.project.target.host}:${next.project.target.port}`);
    }
  }
  showLabels();
}

function endSource(source: Source): void {
  source.host.dispose();
  forget(source);
}

function endAll(): void {
  for (const source of [...sources.values()]) endSource(source);
  screen.showIdle();
}

/** The newest project per slot: one that arrives while an older one waits for the engine wins. */
const newestProject = new Map<number, ProjectMessage>();

async function startSession(project: ProjectMessage): Promise<void> {
  const slot = Math.min(Math.max(project.slot ?? 0, 0), MAX_ROOM_SLOTS - 1);
  newestProject.set(slot, project);
  // A take-over: the slot's old session goes first.
  const old = sources.get(slot);
  if (old) endSource(old);
  if (!othersShowing(slot)) {
    screen.setProblem(null);
    screen.showSession(`Connecting to ${project.target.name}…`, `${project.target.host}:${project.target.port}`);
  }
  await engineReady;
  // The slot was taken over again while the engine loaded: the newest project wins.
  if (newestProject.get(slot) !== project) return;
  const rect = rectFor(slot, project.sessionId);
  const desktop = desktopFor(rect);
  renderer.setSurfaceRect(slot, rect === null ? null : { x: rect.x, y: rect.y, width: rect.width, height: rect.height }, 0);
  // Instrumentation hook: what this session asks of the server.
  window.dispatchEvent(new CustomEvent('lanterna:desktop', { detail: { ...desktop, slot } }));
  // The sound queue has one writer: the first source plays its sound, later ones are silent while it runs.
  const withSound = sound.output !== null && ![...sources.values()].some((other) => other.sound);
  const figures = newFigures(withSound);
  const host = new SessionHost(
    {
      project,
      dataUrl: socketUrl(window.location, `/v1/sessions/${encodeURIComponent(project.sessionId)}/data`),
      sessionWorkerUrl: new URL('./session.worker.js', import.meta.url),
      engineUrl,
      renderer,
      surface: slot,
      desktopWidth: desktop.width,
      desktopHeight: desktop.height,
      desktopScale: desktop.desktopScale,
      deviceScale: desktop.deviceScale,
      engineOptions: place.engineOptions,
      ...(withSound ? { audioRing: sound.output.ring } : {}),
    },
    (event) => {
      const current = sources.get(slot);
      if (current?.project === project) onSessionEvent(event, current);
    },
  );
  const source: Source = { slot, project, host, figures, desktop: { width: desktop.width, height: desktop.height }, showing: false, notice: null, endNotice: null, sound: withSound, desktopSize: null };
  sources.set(slot, source);
  ink.setSurface({ kind: 'session', sessionId: project.sessionId });
  // Over the display's own signage the room PIN stays readable (a presenter must be able to take over); over a presenter's screen, nothing.
  screen.showRoomBadge([...sources.values()].some((other) => other.project.signage === true));
  if (withSound || sources.size === 1) hud.setTraffic(host.traffic);
  figures.start(project.sessionId, host.traffic);
  showLabels();
}

/** The room as it stands: each source glides to its new place and asks for its new size. */
function onLayout(message: LayoutMessage): void {
  layout = message;
  screen.setRoomMode(message.mode, MAX_ROOM_SLOTS);
  placeSources(GLIDE_MS);
  // Instrumentation hook: tests wait for the page to have applied a layout.
  window.dispatchEvent(new CustomEvent('lanterna:layout', { detail: message }));
}

if (place.token === null) {
  controlKind = 'no-token';
  screen.setConnection('Not connected', 'error');
  screen.setProblem('This display has no token. Open the display link from the administrator (it ends with #token=…).');
} else {
  control = new ControlChannel(
    {
      url: socketUrl(window.location, `/v1/displays/${encodeURIComponent(place.displayId)}/control`),
      token: place.token,
      client: clientName,
      features: [KIOSK_FEATURES.room, KIOSK_FEATURES.signage, KIOSK_FEATURES.display, KIOSK_FEATURES.sound, KIOSK_FEATURES.slots],
    },
    {
      onstate: showControlState,
      onproject: (project) => void startSession(project),
      onstop: (stop) => {
        for (const [slot, waiting] of newestProject) if (waiting.sessionId === stop.sessionId) newestProject.delete(slot);
        const source = [...sources.values()].find((entry) => entry.project.sessionId === stop.sessionId);
        if (!source && !endedLately.includes(stop.sessionId)) return;
        if (source) endSource(source);
        // The gateway's words for who ended it ("stopped by an administrator"): the room sees why the picture went.
        if (sources.size === 0) screen.setProblem(stop.reason === '' ? 'The presentation was stopped.' : `Last presentation: ${stop.reason}.`, 'info');
      },
      onroom: (room) => screen.setRoom(room),
      ondisplay: (message) => showDisplay(message.display),
      onsound: (message) => sound.setLevel(message),
      onlayout: onLayout,
    },
  );
  control.start();
}
