// The display's control socket: hello with the display token, then welcome,
// project and stop from the gateway. Any loss reconnects with backoff and
// jitter; only "another kiosk took over" (4409) stops for good.
//
// Liveness: the gateway pings every heartbeatMs and browsers answer pings
// by themselves, but a page cannot see them, and protocol v1 has no
// application-level ping. So the page relies on the socket's close event and
// on the browser's "online" signal to retry at once.
import {
  codeForClose,
  DISPLAY_WELCOME_TIMEOUT_MS,
  GATEWAY_FEATURES,
  KIOSK_PROTOCOL_VERSION,
  KIOSK_SUBPROTOCOL,
  readGatewayControlMessage,
  ReconnectBackoff,
  type ErrorMessage,
  type FiguresMessage,
  type GatewayControlMessage,
  type HelloMessage,
  type LaserMessage,
  type PanelMessage,
  type Panel,
  type WelcomeMessage,
} from '@lanterna/protocol';

export type ControlState =
  | { readonly kind: 'connecting'; readonly attempt: number }
  | { readonly kind: 'online'; readonly welcome: WelcomeMessage }
  | { readonly kind: 'waiting'; readonly retryAt: number; readonly lastError: string | null }
  | { readonly kind: 'stopped'; readonly lastError: string };

export interface ControlChannelOptions {
  readonly url: string;
  readonly token: string;
  readonly client: string;
  /** Optional messages this display reads (KIOSK_FEATURES), announced in hello. */
  readonly features?: readonly string[];
  /** How long to wait for `welcome` after the socket opens. */
  readonly welcomeTimeoutMs?: number;
  readonly backoff?: ReconnectBackoff;
}

/**
 * The gateway's messages the channel hands to the page as they came (it
 * answers `welcome` and `error` itself); `layout` comes only after hello's
 * features named `slots`.
 */
export type PageControlMessage = Exclude<GatewayControlMessage, WelcomeMessage | ErrorMessage>;

/** One handler per page message, named for its type: onproject, onstop, onroom, ondisplay, onsound, onlayout. */
export type PageMessageHandlers = { [M in PageControlMessage as `on${M['type']}`]?: (message: M) => void };

export interface ControlChannelEvents extends PageMessageHandlers {
  onstate?: (state: ControlState) => void;
}

/** The optional messages the display sends, each only to a gateway whose welcome named its feature. */
type OptionalDisplayMessage = FiguresMessage | LaserMessage | PanelMessage;
const FEATURE_OF: { readonly [T in OptionalDisplayMessage['type']]: string } = {
  figures: GATEWAY_FEATURES.figures,
  laser: GATEWAY_FEATURES.laser,
  panel: GATEWAY_FEATURES.panel,
};

export class ControlChannel {
  private socket: WebSocket | null = null;
  private retryTimer: ReturnType<typeof setTimeout> | null = null;
  private welcomeTimer: ReturnType<typeof setTimeout> | null = null;
  private lastError: string | null = null;
  /** The optional messages the gateway reads (its welcome's features), for the socket that is open now. */
  private gatewayReads: ReadonlySet<string> = new Set();
  private attempt = 0;
  private stopped = false;
  private readonly backoff: ReconnectBackoff;
  private readonly retryNow = (): void => {
    if (this.retryTimer !== null) this.connect();
  };

  constructor(private readonly options: ControlChannelOptions, private readonly events: ControlChannelEvents) {
    this.backoff = options.backoff ?? new ReconnectBackoff();
    globalThis.addEventListener('online', this.retryNow);
  }

  start(): void {
    this.connect();
  }

  close(): void {
    this.stopped = true;
    globalThis.removeEventListener('online', this.retryNow);
    this.clearTimers();
    this.socket?.close(1000);
    this.socket = null;
  }

  /**
   * Sends the display's figures of its session, if the gateway said it reads
   * them (an older gateway would close on an unknown type); false when not sent.
   */
  sendFigures(message: FiguresMessage): boolean {
    return this.sendOptional(message);
  }

  /** A finger on a browser presenter's picture (issue 30), if the gateway reads `laser`; false when not sent. */
  sendLaser(message: LaserMessage): boolean {
    return this.sendOptional(message);
  }

  /** Sends the display's panel, if the gateway reads it (welcome's features); false when not sent. */
  sendPanel(panel: Panel): boolean {
    return this.sendOptional({ type: 'panel', panel });
  }

  /** Sends an optional message on the open socket if its gateway reads it; false when not sent. */
  private sendOptional(message: OptionalDisplayMessage): boolean {
    const socket = this.socket;
    if (!socket || socket.readyState !== WebSocket.OPEN || !this.gatewayReads.has(FEATURE_OF[message.type])) return false;
    socket.send(JSON.stringify(message));
    return true;
  }

  private connect(): void {
    this.clearTimers();
    this.attempt += 1;
    this.events.onstate?.({ kind: 'connecting', attempt: this.attempt });
    let socket: WebSocket;
    try {
      socket = new WebSocket(this.options.url, KIOSK_SUBPROTOCOL);
    } catch (error) {
      this.scheduleRetry(error instanceof Error ? error.message : String(error));
      return;
    }
    this.socket = socket;
    this.gatewayReads = new Set();
    socket.onopen = () => {
      const hello: HelloMessage = {
        type: 'hello', protocol: KIOSK_PROTOCOL_VERSION, token: this.options.token, client: this.options.client,
        ...(this.options.features ? { features: [...this.options.features] } : {}),
      };
      socket.send(JSON.stringify(hello));
      this.welcomeTimer = setTimeout(() => {
        this.lastError = 'timeout';
        socket.close(4408, 'no welcome');
      }, this.options.welcomeTimeoutMs ?? DISPLAY_WELCOME_TIMEOUT_MS);
    };
    socket.onmessage = (event: MessageEvent<unknown>) => {
      if (typeof event.data !== 'string') {
        this.lastError = 'bad-message';
        socket.close(4400, 'binary frame on control socket');
        return;
      }
      this.receive(socket, event.data);
    };
    socket.onclose = (event) => {
      if (this.socket !== socket) return;
      this.socket = null;
      const code = this.lastError ?? codeForClose(event.code);
      this.lastError = null;
      if (this.stopped) return;
      if (code === 'replaced') {
        this.stopped = true;
        this.clearTimers();
        this.events.onstate?.({ kind: 'stopped', lastError: code });
        return;
      }
      this.scheduleRetry(code);
    };
  }

  private receive(socket: WebSocket, text: string): void {
    const message = readGatewayControlMessage(text, (closeCode, reason) => { this.lastError = 'bad-message'; socket.close(closeCode, reason); });
    if (message === undefined) return;
    switch (message.type) {
      case 'welcome':
        if (this.welcomeTimer !== null) clearTimeout(this.welcomeTimer);
        this.welcomeTimer = null;
        this.backoff.reset();
        this.attempt = 0;
        this.gatewayReads = new Set(message.features ?? []);
        this.events.onstate?.({ kind: 'online', welcome: message });
        break;
      case 'error':
        this.noteError(message);
        break;
      default:
        this.handToPage(message);
    }
  }

  private handToPage(message: PageControlMessage): void {
    // the handler named for the message's type takes that message (PageMessageHandlers), which TypeScript cannot follow through the key
    const handler = this.events[`on${message.type}`] as ((message: PageControlMessage) => void) | undefined;
    handler?.call(this.events, message);
  }

  private noteError(message: ErrorMessage): void {
    this.lastError = message.code;
  }

  private scheduleRetry(lastError: string | null): void {
    const delay = this.backoff.nextDelayMs();
    const retryAt = Date.now() + delay;
    this.retryTimer = setTimeout(() => this.connect(), delay);
    this.events.onstate?.({ kind: 'waiting', retryAt, lastError });
  }

  private clearTimers(): void {
    if (this.retryTimer !== null) clearTimeout(this.retryTimer);
    if (this.welcomeTimer !== null) clearTimeout(this.welcomeTimer);
    this.retryTimer = null;
    this.welcomeTimer = null;
  }
}
