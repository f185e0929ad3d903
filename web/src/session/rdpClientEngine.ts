// The seam where the wasm FreeRDP client plugs in. The engine runs inside the
// session worker; it is handed a transport (whole PDUs to and from the
// gateway's data socket) and a sink for what it decodes. Nothing here knows
// WebGL; nothing in render/ knows RDP.
import type { PixelFormat, PointerShape, Rect } from '../render/frame.js';
import type { Credentials, GatewayDataMessage, Target } from '@lanterna/protocol';

export interface RdpSessionSettings {
  readonly target: Target;
  readonly credentials?: Credentials;
  /** The size the client asks the server for (the display's pixels). */
  readonly desktopWidth: number;
  readonly desktopHeight: number;
  /** Desktop scale factor in percent and the device scale factor ([MS-RDPBCGR] 2.2.1.3.2). */
  readonly desktopScale?: number;
  readonly deviceScale?: number;
  /** Free-form settings from the `project` message. */
  readonly extra?: Record<string, unknown>;
  /** Join the audio output channel (rdpsnd) and hand its waves to RdpFrameSink.onAudio. */
  readonly audio?: boolean;
  /** With audio: the page decodes Opus, so the client takes it too (waves with encoding 'opus'). */
  readonly audioOpus?: boolean;
}

/** One wave of the server's sound (wasm/README.md, "Sound"): 16-bit PCM, or one Opus packet for the page to decode. */
export type RdpAudioWave =
  | {
    /** Interleaved little-endian int16. */
    readonly samples: Int16Array;
    readonly format: { readonly encoding: 'pcm'; readonly channels: number; readonly sampleRate: number };
  }
  | {
    /** One Opus packet as the server sent it ([RFC 6716]). */
    readonly packet: Uint8Array;
    /** The frames it holds at 48 kHz (its TOC byte's count). */
    readonly frames: number;
    readonly format: { readonly encoding: 'opus'; readonly channels: number; readonly sampleRate: number };
  };

/** The data socket as the engine sees it. */
export interface RdpTransport {
  /** Sends one or more whole PDUs; the buffer is transferred, do not reuse it. */
  send(pdus: ArrayBuffer): void;
  /** Ends the session politely (the gateway answers `ended`). */
  close(): void;
  /** Binary frames from the gateway, each holding whole PDUs. */
  onpdus: ((frame: ArrayBuffer) => void) | null;
  /** The data socket's JSON messages: `secured` (with the key CredSSP binds to), `ended`, `error`. */
  onmessage: ((message: GatewayDataMessage) => void) | null;
}

export type RdpEngineEvent =
  | { readonly type: 'connected' }
  | { readonly type: 'disconnected'; readonly reason: string }
  | { readonly type: 'error'; readonly message: string }
  /** Decode cost of one frame; latency when the engine can tell (e.g. frame acknowledgements). */
  | { readonly type: 'decoded'; readonly decodeMs: number; readonly latencyMs?: number }
  /** The server opened (or closed) RDPEI: multi-touch goes through sendTouch while it is open (issue 30). */
  | { readonly type: 'touch-offered'; readonly offered: boolean };

/** One change of a touch contact (RDPEI, [MS-RDPEI] 3.1.1.1). */
export type TouchKind = 'down' | 'move' | 'up' | 'cancel';

export interface RdpFrameSink {
  /**
   * End of one paint. `pixels` views the whole framebuffer (SharedArrayBuffer
   * memory of the wasm heap); the engine must not write to the rectangles
   * until `release` is called.
   */
  onFrame(rects: readonly Rect[], pixels: Uint8Array, width: number, height: number, stride: number, format: PixelFormat, release: () => void): void;
  onPointer(shape: PointerShape | null): void;
  onPointerMove(x: number, y: number): void;
  onEvent(event: RdpEngineEvent): void;
  /**
   * One wave to play (settings.audio); returns the ms until it is heard, which
   * the client's Wave Confirm reports to the server. Called on the engine's
   * thread and must not wait.
   */
  onAudio?(wave: RdpAudioWave): number;
}

export interface RdpClientEngine {
  connect(settings: RdpSessionSettings, transport: RdpTransport, sink: RdpFrameSink): Promise<void>;
  disconnect(): void;
  /**
   * Asks the server for a new desktop size without reconnecting (Display
   * Control); false when the server has no such channel (the page letterboxes).
   */
  requestSize?(width: number, height: number): boolean;
  /**
   * One pointer event as RDP mouse input (FreeRDP's PTR_FLAGS_*, desktop
   * pixels; issue 30); false when it was not sent. The gateway drops it unless
   * the presenter allowed control.
   */
  sendMouse?(flags: number, x: number, y: number): boolean;
  /**
   * One change of touch contact `id` (the page's pointer id) through RDPEI, at
   * a desktop pixel, with pressure 0–1024 where the panel gives one; false
   * when not sent (the server has no RDPEI open: send mouse input instead).
   */
  sendTouch?(kind: TouchKind, id: number, x: number, y: number, pressure?: number): boolean;
  /** The page could not play `count` waves it took (an Opus packet its decoder refused): the session counts them (droppedAudio). */
  audioDropped?(count: number): void;
}

/** What the wasm bundle's ES module must export. */
export interface RdpEngineModule {
  createEngine(): Promise<RdpClientEngine>;
}
