// Runs one projection on the page: the data socket, the session worker that
// hosts the engine, and the ports that connect them to the render worker.
import type { RenderWorkerClient } from '../render/renderWorkerClient.js';
import { codeForClose } from '@lanterna/protocol';
import { parseGatewayDataMessage, type ProjectMessage } from '@lanterna/protocol';
import type { TouchKind } from './rdpClientEngine.js';
import type { SessionWorkerReply, SessionWorkerRequest } from './sessionWorkerProtocol.js';

export type SessionEvent =
  | { readonly kind: 'engine-missing'; readonly message: string }
  | { readonly kind: 'connected' }
  /** The desktop the server sends (its size), first and at each change. */
  | { readonly kind: 'desktop'; readonly width: number; readonly height: number }
  | { readonly kind: 'decoded'; readonly decodeMs: number; readonly latencyMs?: number }
  /** Round trip to the gateway over the data socket. */
  | { readonly kind: 'rtt'; readonly ms: number }
  /** errorCode: the gateway's; engineReason: the wasm client's typed end, when it ended the session. */
  | { readonly kind: 'ended'; readonly reason: string; readonly errorCode: string | null; readonly engineReason: string | null }
  | { readonly kind: 'failed'; readonly message: string }
  /** A panel change was asked of the server (sent) or not (no Display Control: letterboxed). */
  | { readonly kind: 'resize-asked'; readonly width: number; readonly height: number; readonly sent: boolean };

export interface SessionHostOptions {
  readonly project: ProjectMessage;
  readonly dataUrl: string;
  readonly sessionWorkerUrl: URL | string;
  readonly engineUrl: string | null;
  readonly renderer: RenderWorkerClient;
  readonly desktopWidth: number;
  readonly desktopHeight: number;
  readonly desktopScale?: number;
  readonly deviceScale?: number;
  /** The display's own engine settings; they win over the project message's. */
  readonly engineOptions?: Readonly<Record<string, unknown>>;
  /** Which of the render worker's surfaces the session paints (its slot in a room); 0 when absent. */
  readonly surface?: number;
  /** The page's sound queue (web/src/audio/audioOutput.ts); absent: the session joins no audio channel. */
  readonly audioRing?: SharedArrayBuffer;
}

/** The data socket's running totals, as the session worker last reported them. */
export interface SessionTraffic {
  bytesIn: number;
  pdusIn: number;
  messagesIn: number;
}

export class SessionHost {
  readonly traffic: SessionTraffic = { bytesIn: 0, pdusIn: 0, messagesIn: 0 };
  /** The server has RDPEI open: touch goes as multi-touch (sendTouch), not as mouse input. */
  touchOffered = false;
  private readonly worker: Worker;
  private finished = false;
  private lastErrorCode: string | null = null;
  private endReason: string | null = null;

  constructor(options: SessionHostOptions, private readonly onevent: (event: SessionEvent) => void) {
    const renderPorts = new MessageChannel();
    options.renderer.attachPort(renderPorts.port1, options.surface ?? 0);
    this.worker = new Worker(options.sessionWorkerUrl, { type: 'classic', name: 'lanterna-session' });
    this.worker.onmessage = (event: MessageEvent<SessionWorkerReply>) => this.receive(event.data);
    this.worker.onerror = (event) => this.onevent({ kind: 'failed', message: event.message || 'the session worker failed' });
    const { project } = options;
    const start: SessionWorkerRequest = {
      type: 'start',
      settings: {
        target: project.target,
        ...(project.credentials ? { credentials: project.credentials } : {}),
        desktopWidth: options.desktopWidth,
        desktopHeight: options.desktopHeight,
        ...(options.desktopScale !== undefined ? { desktopScale: options.desktopScale } : {}),
        ...(options.deviceScale !== undefined ? { deviceScale: options.deviceScale } : {}),
        extra: { ...project.settings, ...options.engineOptions },
      },
      engineUrl: options.engineUrl,
      dataUrl: options.dataUrl,
      sessionToken: project.sessionToken,
      renderPort: renderPorts.port2,
      ...(options.audioRing ? { audioRing: options.audioRing } : {}),
    };
    this.worker.postMessage(start, [renderPorts.port2]);
  }

  /** The panel changed: asks the server for this desktop size (Display Control). */
  requestSize(width: number, height: number): void {
    if (!this.finished) this.worker.postMessage({ type: 'resize', width, height } satisfies SessionWorkerRequest);
  }

  /** Touch or mouse as RDP mouse input (FreeRDP's PTR_FLAGS_* at a desktop pixel; issue 30). */
  sendMouse(flags: number, x: number, y: number): void {
    if (!this.finished) this.worker.postMessage({ type: 'mouse', flags, x, y } satisfies SessionWorkerRequest);
  }

  /** One change of a touch contact through RDPEI (issue 30): only while touchOffered. */
  sendTouch(kind: TouchKind, id: number, x: number, y: number, pressure?: number): void {
    if (!this.finished && this.touchOffered) {
      this.worker.postMessage({ type: 'touch', kind, id, x, y, ...(pressure !== undefined ? { pressure } : {}) } satisfies SessionWorkerRequest);
    }
  }

  /** Ends the session politely; the gateway closes the data socket after `ended`. */
  stop(): void {
    this.worker.postMessage({ type: 'stop' } satisfies SessionWorkerRequest);
  }

  /** Drops everything at once (page leaving, gateway said stop). */
  dispose(): void {
    this.finished = true;
    // Ending the worker closes its socket; the gateway ends the server leg.
    this.worker.terminate();
  }

  private receive(reply: SessionWorkerReply): void {
    switch (reply.type) {
      case 'engine-missing':
        this.onevent({ kind: 'engine-missing', message: reply.message });
        break;
      case 'engine-loaded':
        break;
      case 'resize-asked':
        this.onevent({ kind: 'resize-asked', width: reply.width, height: reply.height, sent: reply.sent });
        break;
      case 'connected':
        this.onevent({ kind: 'connected' });
        break;
      case 'touch-offered':
        this.touchOffered = reply.offered;
        break;
      case 'desktop-size':
        this.onevent({ kind: 'desktop', width: reply.width, height: reply.height });
        break;
      case 'decoded':
        this.onevent({ kind: 'decoded', decodeMs: reply.decodeMs, ...(reply.latencyMs !== undefined ? { latencyMs: reply.latencyMs } : {}) });
        break;
      case 'disconnected':
        // A gateway error explains more than the engine's view of the same end. So does the
        // gateway's `ended: stopped` (someone stopped it; the control socket's `stop` says who):
        // the engine saw only its transport close and would call it a lost connection.
        this.finish(this.lastErrorCode, reply.reason, this.endReason === 'stopped' ? null : reply.reason);
        break;
      case 'error':
        this.onevent({ kind: 'failed', message: reply.message });
        break;
      case 'data-text':
        // The page peeks at the data socket's JSON only to learn why a session ended.
        this.peek(reply.text);
        break;
      case 'data-closed':
        this.finish(this.lastErrorCode ?? codeForClose(reply.code), this.endReason ?? `closed (${reply.code})`);
        break;
      case 'rtt':
        this.onevent({ kind: 'rtt', ms: reply.ms });
        break;
      case 'traffic':
        this.traffic.bytesIn = reply.bytesIn;
        this.traffic.pdusIn = reply.pdusIn;
        this.traffic.messagesIn = reply.messagesIn;
        break;
    }
  }

  private peek(text: string): void {
    // The worker reports unreadable messages.
    const parsed = parseGatewayDataMessage(text);
    if (!parsed.ok) return;
    const message = parsed.message;
    if (message.type === 'error') this.lastErrorCode = message.code;
    else if (message.type === 'ended') this.endReason = message.reason;
  }

  private finish(errorCode: string | null, reason: string, engineReason: string | null = null): void {
    if (this.finished) return;
    this.finished = true;
    this.worker.terminate();
    this.onevent({ kind: 'ended', reason, errorCode, engineReason });
  }
}
