// Entry of the kiosk display page (/display/<id>): control socket, idle
// screen, and one projection at a time.
import { RenderWorkerClient } from '../../render/renderWorkerClient.js';
import { ControlChannel, type ControlState } from '../../session/controlChannel.js';
import { desktopForPanel, GATEWAY_FEATURES, KIOSK_FEATURES, panelFromWindow, sentenceForCode, sentenceForEngineEnd } from '@lanterna/protocol';
import type { DesktopPreference, DisplayMessage, Panel, ProjectMessage } from '@lanterna/protocol';
import { SessionHost, type SessionEvent } from '../../session/sessionHost.js';
import type { EngineManifest } from '../../session/sessionWorkerProtocol.js';
import { DisplayScreen } from './displayScreen.js';
import { readDisplayLocation, socketUrl } from './displayLocation.js';
import { Hud } from './hud.js';
import { FiguresReporter } from './figuresReporter.js';
import { startKioskHeartbeat } from './kioskHeartbeat.js';
import { showRendererWarning } from './rendererWarning.js';
import { DisplaySound } from './displaySound.js';
import { installInk } from './ink/installInk.js';

const clientName = 'lanterna-web/0.1';
const screen = new DisplayScreen();
const place = readDisplayLocation(window.location, window.localStorage, window.history);
const nameKey = `lanterna.display.${place.displayId}.name`;
screen.setName(window.localStorage.getItem(nameKey) ?? place.displayId);

const hud = new Hud(document.body, place.hud);
// Sound starts with the page: its muted icon says at once when the browser refuses it.
const sound = new DisplaySound(window.location.search);
// The session's figures go to the gateway on the control socket (made below, when the page has a token).
let control: ControlChannel | null = null;
const figures = new FiguresReporter(
  { sendFigures: (message) => control?.sendFigures(message) ?? false, sound: () => sound.report() },
  // Instrumentation hook: what this display told the gateway (tests compare the admin's live view with it).
  (message) => window.dispatchEvent(new CustomEvent('lanterna:figures', { detail: message })),
);
window.addEventListener('keydown', (event) => {
  if (event.key === 'h' && !event.ctrlKey && !event.altKey && !event.metaKey) hud.toggle();
});

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
  onstatistics: (stats) => {
    hud.onRender(stats);
    figures.onPresent();
    // Instrumentation hook for benchmarks and tests outside the page (they listen on window).
    window.dispatchEvent(new CustomEvent('lanterna:render', { detail: stats }));
    if (session) screen.showPicture();
  },
  onerror: (message) => showRendererWarning(screen.banners, `The picture cannot be drawn: ${message}`),
  oncontextchange: (state) => {
    // The picture stays frozen meanwhile; the renderer redraws it when the context returns.
    hud.setRenderer(state === 'lost' ? 'webgl2 (context lost, waiting)' : 'webgl2 (context restored)');
    showRendererWarning(screen.banners, state === 'lost' ? 'The graphics were reset; the picture will come back in a moment.' : null);
  },
});
// Ink over the picture, or a whiteboard on the idle screen (issue 30; ink/).
const ink = installInk(document.body, { displayId: place.displayId, token: place.token, snapshot: () => renderer.snapshot() });
// The panel (docs/kiosk-protocol.md "The panel and the desktop"): reported to
// the gateway, and the desktop each session asks for. A change (window resize,
// rotation) is reported once it has settled, and a running session asks the
// server to follow over Display Control; one without it stays letterboxed.
const PANEL_SETTLE_MS = 400;
let desktopPreference: DesktopPreference = {};
let sessionDesktop: { width: number; height: number } | null = null;
function currentPanel(): Panel {
  return panelFromWindow(window.innerWidth, window.innerHeight, window.devicePixelRatio || 1);
}
let panelTimer: ReturnType<typeof setTimeout> | null = null;
function panelChanged(): void {
  const panel = currentPanel();
  control?.sendPanel(panel);
  const desktop = desktopForPanel(panel, desktopPreference);
  if (session && sessionDesktop && (desktop.width !== sessionDesktop.width || desktop.height !== sessionDesktop.height)) {
    sessionDesktop = { width: desktop.width, height: desktop.height };
    session.requestSize(desktop.width, desktop.height);
  }
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

let session: SessionHost | null = null;
let sessionId: string | null = null;
let countdown: ReturnType<typeof setInterval> | null = null;
let online = false;
let controlKind = 'starting';
startKioskHeartbeat(() => ({ control: controlKind, presenting: session !== null }));

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
      endSession();
      break;
    }
    case 'stopped':
      screen.setConnection('Stopped — reload this page to take the display back', 'error');
      screen.setProblem(sentenceForCode(state.lastError));
      endSession();
      break;
  }
}

// Why the current session could not show anything; kept on the idle screen after it ends.
let sessionNotice: string | null = null;

function onSessionEvent(event: SessionEvent, project: ProjectMessage): void {
  switch (event.kind) {
    case 'engine-missing':
      sessionNotice = `Could not show “${project.target.name}”: the RDP decoder is not loaded yet (${event.message}).`;
      screen.setSessionProblem(`The RDP decoder is not loaded yet, so “${project.target.name}” cannot be shown on this display.`);
      break;
    case 'connected':
      break;
    case 'resize-asked':
      // Instrumentation hook: tests see whether the server was asked to follow or the picture stays letterboxed.
      window.dispatchEvent(new CustomEvent('lanterna:resize', { detail: { width: event.width, height: event.height, sent: event.sent } }));
      break;
    case 'rtt':
      hud.onRoundTrip(event.ms);
      break;
    case 'decoded':
      hud.onDecode(event.decodeMs, event.latencyMs);
      // bytesIn: what the data socket has brought so far (benchmarks compare codecs by it)
      window.dispatchEvent(new CustomEvent('lanterna:decode', { detail: { decodeMs: event.decodeMs, bytesIn: session?.traffic.bytesIn ?? 0 } }));
      break;
    case 'failed':
      sessionNotice = `Showing “${project.target.name}” failed: ${event.message}`;
      screen.setSessionProblem(sessionNotice);
      break;
    case 'ended': {
      session = null;
      sessionId = null;
      ink.setSurface({ kind: 'whiteboard' });
      figures.stop();
      screen.showRoomBadge(false);
      hud.setTraffic(null);
      screen.showIdle();
      const engineSentence = event.engineReason === null ? null : sentenceForEngineEnd(event.engineReason);
      const explanation = event.errorCode !== null ? sentenceForCode(event.errorCode) : engineSentence;
      screen.setProblem(sessionNotice ?? (explanation === null ? null : `Last presentation: ${explanation}`));
      sessionNotice = null;
      if (online) screen.setConnection('Ready — waiting for a presenter', 'ok');
      break;
    }
  }
}

function endSession(): void {
  if (session) ink.setSurface({ kind: 'whiteboard' });
  session?.dispose();
  session = null;
  sessionId = null;
  figures.stop();
  screen.showRoomBadge(false);
  hud.setTraffic(null);
  screen.showIdle();
}

async function startSession(project: ProjectMessage): Promise<void> {
  endSession();
  sessionNotice = null;
  screen.showSession(`Connecting to ${project.target.name}…`, `${project.target.host}:${project.target.port}`);
  // Over the display's own signage the room PIN stays readable (a presenter must be able to take over); over a presenter's screen, nothing.
  screen.showRoomBadge(project.signage === true);
  await engineReady;
  const desktop = desktopForPanel(currentPanel(), desktopPreference);
  sessionDesktop = { width: desktop.width, height: desktop.height };
  // Instrumentation hook: what this session asks of the server.
  window.dispatchEvent(new CustomEvent('lanterna:desktop', { detail: desktop }));
  sessionId = project.sessionId;
  ink.setSurface({ kind: 'session', sessionId: project.sessionId });
  const host = new SessionHost(
    {
      project,
      dataUrl: socketUrl(window.location, `/v1/sessions/${encodeURIComponent(project.sessionId)}/data`),
      sessionWorkerUrl: new URL('./session.worker.js', import.meta.url),
      engineUrl,
      renderer,
      desktopWidth: desktop.width,
      desktopHeight: desktop.height,
      desktopScale: desktop.desktopScale,
      deviceScale: desktop.deviceScale,
      engineOptions: place.engineOptions,
      ...(sound.output ? { audioRing: sound.output.ring } : {}),
    },
    (event) => {
      if (session === host) onSessionEvent(event, project);
    },
  );
  session = host;
  hud.setTraffic(host.traffic);
  figures.start(project.sessionId, host.traffic);
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
      features: [KIOSK_FEATURES.room, KIOSK_FEATURES.signage, KIOSK_FEATURES.display, KIOSK_FEATURES.sound],
    },
    {
      onstate: showControlState,
      onproject: (project) => void startSession(project),
      onstop: (stop) => {
        if (stop.sessionId !== sessionId) return;
        endSession();
        // The gateway's words for who ended it ("stopped by an administrator"): the room sees why the picture went.
        screen.setProblem(stop.reason === '' ? 'The presentation was stopped.' : `Last presentation: ${stop.reason}.`, 'info');
      },
      onroom: (room) => screen.setRoom(room),
      ondisplay: (message) => showDisplay(message.display),
      onsound: (message) => sound.setLevel(message),
    },
  );
  control.start();
}
