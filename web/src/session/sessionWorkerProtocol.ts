// Messages between the page and the session worker (which hosts the engine).
import type { RdpSessionSettings, TouchKind } from './rdpClientEngine.js';

/** Written by the build next to the pages: where the wasm engine is, if it was built. */
export interface EngineManifest {
  readonly available: boolean;
  /** Module URL, relative to the manifest. */
  readonly module?: string;
  /** The presenter page's RDP server (lanternaPresenter.js), relative to the manifest, when it was built. */
  readonly presenter?: string;
}

export type SessionWorkerRequest =
  | {
      readonly type: 'start';
      readonly settings: RdpSessionSettings;
      readonly engineUrl: string | null;
      /** The session's data socket, which the worker opens itself (see dataChannel.ts). */
      readonly dataUrl: string;
      readonly sessionToken: string;
      /** Frames and pointer updates go straight to the render worker. */
      readonly renderPort: MessagePort;
      /** The sound queue the page's AudioWorklet plays (web/src/audio/playbackRing.ts); absent: no sound. */
      readonly audioRing?: SharedArrayBuffer;
    }
  /** The panel changed: ask the server to follow (Display Control). */
  | { readonly type: 'resize'; readonly width: number; readonly height: number }
  /** Touch or mouse on the picture as RDP mouse input (issue 30): FreeRDP's PTR_FLAGS_* at a desktop pixel. */
  | { readonly type: 'mouse'; readonly flags: number; readonly x: number; readonly y: number }
  /** Multi-touch through RDPEI, while the server offers it (issue 30): one change of a contact at a desktop pixel. */
  | { readonly type: 'touch'; readonly kind: TouchKind; readonly id: number; readonly x: number; readonly y: number; readonly pressure?: number }
  | { readonly type: 'stop' };

export type SessionWorkerReply =
  | { readonly type: 'engine-missing'; readonly message: string }
  | { readonly type: 'engine-loaded' }
  /** What became of a resize: sent to the server, or not (no Display Control: letterboxed). */
  | { readonly type: 'resize-asked'; readonly width: number; readonly height: number; readonly sent: boolean }
  | { readonly type: 'connected' }
  /** The server opened (or closed) RDPEI: touch may go as multi-touch (issue 30). */
  | { readonly type: 'touch-offered'; readonly offered: boolean }
  /** The desktop the server sends, when it first comes and whenever it changes (touch maps onto it). */
  | { readonly type: 'desktop-size'; readonly width: number; readonly height: number }
  | { readonly type: 'disconnected'; readonly reason: string }
  | { readonly type: 'error'; readonly message: string }
  | { readonly type: 'decoded'; readonly decodeMs: number; readonly latencyMs?: number }
  /** A JSON message of the data socket, for the page to learn why a session ended. */
  | { readonly type: 'data-text'; readonly text: string }
  | { readonly type: 'data-closed'; readonly code: number; readonly reason: string }
  /** Round trip to the gateway over the data socket (ping/pong), for the HUD's latency. */
  | { readonly type: 'rtt'; readonly ms: number }
  /** Running totals of the data socket, a few times a second (for the HUD). */
  | { readonly type: 'traffic'; readonly bytesIn: number; readonly pdusIn: number; readonly messagesIn: number };
