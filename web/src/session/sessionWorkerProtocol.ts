// Messages between the page and the session worker (which hosts the engine).
import type { RdpSessionSettings } from './rdpClientEngine.js';

/** Written by the build next to the pages: where the wasm engine is, if it was built. */
export interface EngineManifest {
  readonly available: boolean;
  /** Module URL, relative to the manifest. */
  readonly module?: string;
}

export type SessionWorkerRequest =
  | {
      readonly type: 'start';
      readonly settings: RdpSessionSettings;
      readonly engineUrl: string | null;
      /** Whole-PDU frames to and from the data socket (see dataChannel.ts). */
      readonly dataPort: MessagePort;
      /** Frames and pointer updates go straight to the render worker. */
      readonly renderPort: MessagePort;
    }
  | { readonly type: 'stop' };

export type SessionWorkerReply =
  | { readonly type: 'engine-missing'; readonly message: string }
  | { readonly type: 'engine-loaded' }
  | { readonly type: 'connected' }
  | { readonly type: 'disconnected'; readonly reason: string }
  | { readonly type: 'error'; readonly message: string }
  | { readonly type: 'decoded'; readonly decodeMs: number; readonly latencyMs?: number };

/** What crosses the data port. */
export type DataPortMessage =
  | { readonly type: 'pdus'; readonly data: ArrayBuffer }
  | { readonly type: 'message'; readonly text: string }
  | { readonly type: 'close' };
