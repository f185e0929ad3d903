// A simulated display that behaves like the kiosk page over time
// (web/src/session/controlChannel.ts and web/src/pages/display/displayPage.ts):
// it keeps its control socket up, reconnecting with the page's backoff after
// any loss (only "replaced" stops it for good); every `project` starts a data
// session in place of the current one; a `stop` for the current one ends it;
// when the control socket drops the current session is dropped too (the page
// goes back to its idle screen), and after a session ends the display waits
// for the gateway to project it again. While a session relays it offers its
// traffic shape. It notes, per measurement window, when it lost what it
// showed and when it relayed again, so the chaos run can time each recovery.
import type WebSocket from 'ws';
import {
  codeForClose,
  DISPLAY_WELCOME_TIMEOUT_MS,
  KIOSK_PROTOCOL_VERSION,
  readGatewayControlMessage,
  ReconnectBackoff,
  type HelloMessage,
  type ProjectMessage,
} from '@lanterna/protocol';
import { openDataSession, openKioskSocket, type SocketEndpoint } from './kioskSockets.js';
import { dataEchoChannel } from './simulatedKiosk.js';
import { PacedConnection, type WindowCounters } from './pacedConnection.js';
import type { LatencyRecorder } from './latencyHistogram.js';
import type { TrafficShape } from './trafficShapes.js';

export interface PageLikeDisplayOptions {
  baseUrl: string;
  displayId: string;
  displayToken: string;
  localAddress?: string | undefined;
  /** Deadline of each step of a data socket's handshake, and of a socket's upgrade. */
  timeoutMs: number;
  shape: TrafficShape;
  request: Buffer;
  recorder: LatencyRecorder;
  counters: WindowCounters;
}

/** What one display went through in a measurement window (times in ns of process.hrtime, shared by every process). */
export interface DisplayWindow {
  id: string;
  /** Unexpected losses: the control socket, a relaying session, a session that failed to open, or one replaced while relaying. */
  losses: number;
  lastLoss: string | undefined;
  /** The first loss in the window, and what it was. */
  firstLossNs: number | undefined;
  firstLoss: string | undefined;
  /** After the first loss: control sockets opened, the first welcome and the first projection (where the recovery's time goes). */
  attempts: number;
  welcomeNs: number | undefined;
  projectNs: number | undefined;
  /** The first response on a session opened after that loss. */
  backNs: number | undefined;
  responses: number;
  maxRoundTripNs: number;
  /** Longest time between two responses of one session. */
  maxGapNs: number;
  relaying: boolean;
}

export interface DisplayEndpoints { id: string; control: SocketEndpoint | undefined; data: SocketEndpoint | undefined }

const nowNs = (): number => Number(process.hrtime.bigint());

interface RunningSession { sessionId: string; paced: PacedConnection; endpoint: SocketEndpoint; answered: boolean; lastResponseNs: number }

export class PageLikeDisplay {
  private readonly backoff = new ReconnectBackoff();
  private control: WebSocket | undefined;
  private controlEndpoint: SocketEndpoint | undefined;
  private retryTimer: NodeJS.Timeout | undefined;
  private welcomeTimer: NodeJS.Timeout | undefined;
  private lastError: string | null = null;
  private session: RunningSession | undefined;
  /** Bumped by every project and every end, so a handshake that finishes late knows it was overtaken. */
  private generation = 0;
  private closing = false;
  private stoppedForGood = false;
  private window: DisplayWindow;
  /** Set by a loss, cleared by the next response: the next session starts at once instead of at a random phase. */
  private recovering = false;

  constructor(private readonly options: PageLikeDisplayOptions) {
    this.window = this.freshWindow();
  }

  start(): void {
    this.connect();
  }

  /** The page goes away (navigation, a kiosk restart): its sockets close politely, and it does not come back. */
  close(): void {
    this.closing = true;
    this.clearTimers();
    this.endSession();
    this.control?.close(1000);
    const control = this.control;
    if (control) setTimeout(() => control.terminate(), 2000).unref();
    this.control = undefined;
  }

  isRelaying(): boolean { return this.session?.answered ?? false; }

  isStoppedForGood(): boolean { return this.stoppedForGood; }

  endpoints(): DisplayEndpoints {
    return { id: this.options.displayId, control: this.control ? this.controlEndpoint : undefined, data: this.session?.endpoint };
  }

  /** This window's record, and a fresh one begins. */
  takeWindow(): DisplayWindow {
    const taken = { ...this.window, relaying: this.isRelaying() };
    this.window = this.freshWindow();
    return taken;
  }

  private freshWindow(): DisplayWindow {
    return {
      id: this.options.displayId, losses: 0, lastLoss: undefined, firstLossNs: undefined, firstLoss: undefined,
      attempts: 0, welcomeNs: undefined, projectNs: undefined, backNs: undefined, responses: 0, maxRoundTripNs: 0, maxGapNs: 0, relaying: false,
    };
  }

  private lost(reason: string): void {
    this.window.losses += 1;
    this.window.lastLoss = reason;
    if (this.window.firstLossNs === undefined) {
      this.window.firstLossNs = nowNs();
      this.window.firstLoss = reason;
    }
    this.recovering = true;
  }

  /** Between a loss and the first response after it. */
  private inRecovery(): boolean {
    return this.window.firstLossNs !== undefined && this.window.backNs === undefined;
  }

  private connect(): void {
    this.clearTimers();
    if (this.inRecovery()) this.window.attempts += 1;
    const { baseUrl, displayId, localAddress, timeoutMs } = this.options;
    const { socket, endpoint } = openKioskSocket(`${baseUrl}/v1/displays/${encodeURIComponent(displayId)}/control`, { timeoutMs, localAddress });
    this.control = socket;
    this.controlEndpoint = undefined;
    void endpoint.then((value) => { if (this.control === socket) this.controlEndpoint = value; }, () => undefined);
    socket.on('error', () => { /* a close follows; it decides */ });
    socket.on('open', () => {
      const hello: HelloMessage = { type: 'hello', protocol: KIOSK_PROTOCOL_VERSION, token: this.options.displayToken, client: 'lanterna-loadtest-page/0.1' };
      socket.send(JSON.stringify(hello));
      this.welcomeTimer = setTimeout(() => {
        this.lastError = 'timeout';
        socket.close(4408, 'no welcome');
      }, DISPLAY_WELCOME_TIMEOUT_MS);
    });
    socket.on('message', (data: Buffer, isBinary: boolean) => {
      if (isBinary) {
        this.lastError = 'bad-message';
        socket.close(4400, 'binary frame on control socket');
        return;
      }
      this.receive(socket, data.toString('utf8'));
    });
    socket.on('close', (code: number) => {
      if (this.control !== socket) return;
      this.control = undefined;
      clearTimeout(this.welcomeTimer);
      const reason = this.lastError ?? codeForClose(code);
      this.lastError = null;
      if (this.closing) return;
      this.lost(`control socket closed (${reason})`);
      // the page shows "reconnecting" and leaves the presentation
      this.endSession();
      if (reason === 'replaced') {
        this.stoppedForGood = true;
        this.clearTimers();
        return;
      }
      this.retryTimer = setTimeout(() => this.connect(), this.backoff.nextDelayMs());
    });
  }

  private receive(socket: WebSocket, text: string): void {
    const message = readGatewayControlMessage(text, (closeCode, reason) => { this.lastError = 'bad-message'; socket.close(closeCode, reason); });
    if (message === undefined) return;
    switch (message.type) {
      case 'welcome':
        clearTimeout(this.welcomeTimer);
        this.welcomeTimer = undefined;
        this.backoff.reset();
        if (this.inRecovery()) this.window.welcomeNs ??= nowNs();
        break;
      case 'project':
        if (this.inRecovery()) this.window.projectNs ??= nowNs();
        this.startSession(message);
        break;
      case 'stop':
        if (message.sessionId === this.session?.sessionId) this.endSession();
        break;
      case 'error':
        this.lastError = message.code;
        break;
    }
  }

  private startSession(project: ProjectMessage): void {
    if (this.session?.answered === true) this.lost('projected again while relaying');
    this.endSession();
    const generation = this.generation;
    const { baseUrl, displayId, localAddress, timeoutMs, shape, request, recorder, counters } = this.options;
    openDataSession({ baseUrl, sessionId: project.sessionId, sessionToken: project.sessionToken, cookie: displayId }, { timeoutMs, localAddress }).then(({ socket, endpoint }) => {
      if (generation !== this.generation || this.closing) { socket.terminate(); return; }
      const channel = dataEchoChannel(socket);
      const running: RunningSession = {
        sessionId: project.sessionId, endpoint, answered: false, lastResponseNs: 0,
        paced: new PacedConnection(channel, request, shape.intervalMs, recorder, counters, {
          burst: shape.burst,
          onResponse: (roundTripNs, now) => this.onResponse(running, roundTripNs, now),
          onFailure: (error) => {
            if (this.session !== running) return;
            this.session = undefined;
            this.generation += 1;
            this.lost(`session ended: ${error.message}`);
          },
        }),
      };
      this.session = running;
      running.paced.start(this.recovering ? 0 : undefined);
    }, (error: unknown) => {
      if (generation !== this.generation || this.closing) return;
      // the page shows why and waits on its idle screen for the next projection
      this.lost(`session did not open: ${error instanceof Error ? error.message : String(error)}`);
    });
  }

  private onResponse(running: RunningSession, roundTripNs: number, now: number): void {
    const window = this.window;
    window.responses += 1;
    if (roundTripNs > window.maxRoundTripNs) window.maxRoundTripNs = roundTripNs;
    if (running.answered) {
      const gap = now - running.lastResponseNs;
      if (gap > window.maxGapNs) window.maxGapNs = gap;
    }
    running.answered = true;
    running.lastResponseNs = now;
    if (this.recovering) {
      this.recovering = false;
      if (window.firstLossNs !== undefined) window.backNs ??= now;
    }
  }

  private endSession(): void {
    this.generation += 1;
    const running = this.session;
    this.session = undefined;
    running?.paced.close();
  }

  private clearTimers(): void {
    clearTimeout(this.retryTimer);
    clearTimeout(this.welcomeTimer);
    this.retryTimer = undefined;
    this.welcomeTimer = undefined;
  }
}
