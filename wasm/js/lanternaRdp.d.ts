// Types for lanternaRdp.js: the wasm FreeRDP client's JS API.

export type SessionEndReason =
  | 'closed' | 'stopped' | 'wrong-password' | 'auth-failed' | 'connection-reset'
  | 'protocol-error' | 'timeout' | 'negotiation-failed' | 'server-ended' | 'internal'
  | 'video-unsupported' | 'video-decode-failed' | 'out-of-memory';

export declare const REASONS: Readonly<Record<number, SessionEndReason>>;

export interface SessionEnd {
  readonly reason: SessionEndReason;
  /** FreeRDP's last error code (freerdp/error.h), 0 when none. */
  readonly code: number;
  /** The gateway's `error` message, when it sent one (gatewaySession.js). */
  readonly gateway?: { readonly phase?: string; readonly code: string; readonly message: string };
  /** The gateway's `ended` reason, when it sent one. */
  readonly gatewayEnded?: string;
}

export type Codec = 'planar' | 'remotefx' | 'progressive' | 'avc420' | 'avc444';
/** Bytes of one pixel in memory: B,G,R,X (FreeRDP's fastest) or R,G,B,X. X is not alpha. */
export type PixelLayout = 'bgrx' | 'rgbx';

export interface SessionOptions {
  readonly username?: string;
  readonly password?: string;
  readonly domain?: string;
  /**
   * A Remote Assistance invitation (.msrcIncident XML) and its password, instead of credentials.
   * createSession throws RdpSessionError 'invalid-invitation' (malformed, missing fields, DTDs or
   * entities, over 12 KiB) or 'wrong-password' (a type 2 ticket that does not decrypt).
   */
  readonly assistance?: { readonly invitation: string; readonly password: string };
  /** The desktop size asked of the server (default 1920×1080). */
  readonly width?: number;
  readonly height?: number;
  /** Desktop scale factor in percent (100–500), sent in the client core data and with each resize. */
  readonly desktopScale?: number;
  /** Device scale factor: 100, 140 or 180. */
  readonly deviceScale?: number;
  /** Colour depth asked of the server (default 32); GFX sessions are 32 whatever this says. */
  readonly colorDepth?: 16 | 24 | 32;
  /** Graphics pipeline (RDPEGFX) on or off (default on). */
  readonly gfx?: boolean;
  /**
   * Codecs advertised (default all five). AVC420/AVC444 (GFX H.264) are advertised only when
   * `videoDecoder` says this environment can decode them; otherwise they are left out quietly.
   */
  readonly codecs?: readonly Codec[];
  /** What this environment's VideoDecoder can decode (h264Decoders.js probeAvcSupport); absent: no AVC. */
  readonly videoDecoder?: AvcSupport;
  /** Desktop effects to ask for; false turns one off to save bandwidth. */
  readonly performance?: { readonly wallpaper?: boolean; readonly fullWindowDrag?: boolean; readonly menuAnimations?: boolean; readonly themes?: boolean };
  readonly pixelLayout?: PixelLayout;
  /** The RDP thread waits for frameDone() before drawing again (default true). */
  readonly waitFrameAck?: boolean;
  /** How long it waits for frameDone() before drawing anyway (default 1000 ms). */
  readonly frameAckTimeoutMs?: number;
  /** Deadline for the whole connection sequence (default 20000 ms). */
  readonly connectTimeoutMs?: number;
  /**
   * Raw FreeRDP settings by name (e.g. { FreeRDP_RedirectClipboard: true }), applied after
   * everything above; for replays that must match a recorded client, and experiments.
   */
  readonly freerdpSettings?: Readonly<Record<string, string | number | boolean>>;
  /** The server name FreeRDP carries (logs, NLA SPN); default "lanterna-gateway". */
  readonly serverName?: string;
  /**
   * Sound (default off): the audio output channel (rdpsnd, static or dynamic, as the server
   * opens it) with onaudio as its device: the server's PCM formats, handed on as 16-bit.
   */
  readonly audio?: boolean;
  /**
   * With audio: the page decodes Opus (WebCodecs AudioDecoder), so the client also takes Opus
   * (FreeRDP's tag 0x704F, 48 kHz, 1–2 channels, one packet per wave) and hands each packet on
   * as it is (OpusWave). Default off: PCM only.
   */
  readonly audioOpus?: boolean;
  /** How long a wave waits for onaudio to return before the channel goes on (default 500 ms). */
  readonly audioAckTimeoutMs?: number;
}

/** One wave of sound as the server sent it: PCM (`samples`, a copy) or an Opus packet (`packet`, a copy). */
export type AudioWave = PcmWave | OpusWave;

interface WaveTimes {
  /** Waves of this session, from 1, in the server's order. */
  readonly seq: number;
  /** The server's wTimeStamp (ms, modulo 65536) of the wave. */
  readonly timestamp: number;
  /** The server's dwAudioTimeStamp (Wave2 PDUs; 0 for Wave PDUs). */
  readonly audioTimestamp: number;
  /** The server's block number (cBlockNo), 0–255. */
  readonly block: number;
  /** Frames the wave holds (Opus: at 48 kHz, from the packet's TOC byte). */
  readonly frames: number;
}

/** One Opus packet ([RFC 6716]), as the server sent it: the page decodes it. */
export interface OpusWave extends WaveTimes {
  readonly format: { readonly encoding: 'opus'; readonly channels: number; readonly sampleRate: 48000 };
  readonly packet: Uint8Array;
}

/** One wave of sound as the server sent it, as 16-bit PCM. `samples` is a copy. */
export interface PcmWave extends WaveTimes {
  readonly format: { readonly encoding: 'pcm'; readonly channels: number; readonly sampleRate: number; readonly bitsPerSample: 16 };
  /** Interleaved samples, frames × channels. */
  readonly samples: Int16Array;
}

/** One end of paint. `pixels` views the wasm heap (no copy): valid until frameDone(). */
export interface Frame {
  readonly seq: number;
  readonly width: number;
  readonly height: number;
  /** Bytes per row. */
  readonly stride: number;
  readonly layout: PixelLayout;
  /** The whole surface: stride × height bytes. */
  readonly pixels: Uint8Array;
  /** Coalesced dirty rectangles, flat: x, y, w, h, x, y, w, h, … */
  readonly rects: Int32Array;
}

export type PointerUpdate =
  | { readonly kind: 'shape'; readonly width: number; readonly height: number; readonly hotX: number; readonly hotY: number; /** R,G,B,A rows */ readonly rgba: Uint8Array }
  | { readonly kind: 'hidden' }
  | { readonly kind: 'default' }
  | { readonly kind: 'position'; readonly x: number; readonly y: number };

export declare class RdpSessionError extends Error {
  readonly code: SessionEndReason | 'invalid-invitation';
}

export declare class RdpSession {
  readonly handle: number;
  readonly state: 'new' | 'connecting' | 'connected' | 'ended';
  readonly desktop: { width: number; height: number };
  /** Frames delivered so far. */
  readonly frames: number;
  /** Frames whose acknowledgement came after the deadline. */
  readonly lateFrameAcks: number;
  /** Waves delivered so far (options.audio). */
  readonly waves: number;
  /** Waves whose onaudio returned after audioAckTimeoutMs. */
  readonly lateAudioAcks: number;
  /** rdpsnd PDUs the client dropped (malformed, too long, past its queue's bound) and waves its device could not take. */
  readonly droppedAudio: number;
  /** The page could not play `count` waves onaudio took (an Opus packet its decoder refused): counted in droppedAudio. */
  audioDropped(count?: number): void;
  /** Resolves with the end, like ondisconnected. */
  readonly closed: Promise<SessionEnd>;
  /** Whether AVC420/AVC444 were advertised, and why not when they were asked for and left out. */
  readonly avc: { readonly avc420: boolean; readonly avc444: boolean; readonly reason?: string };

  /** Bytes to send to the gateway as one binary frame (whole PDUs). */
  onsend: (bytes: Uint8Array) => void;
  /** Display Control: asks the server for this size; false when it has no such channel (letterbox). */
  requestSize(width: number, height: number, desktopScale?: number, deviceScale?: number): boolean;
  onconnected: (desktop: { width: number; height: number }) => void;
  onresize: (desktop: { width: number; height: number }) => void;
  /** Return a promise to hold the RDP thread until it settles; otherwise it is released on return. */
  onframe: (frame: Frame) => void | Promise<unknown>;
  onpointer: (pointer: PointerUpdate) => void;
  /** Whether the server has RDPEI (multi-touch) open: sendTouch works only then. */
  readonly touchOffered: boolean;
  /** The server opened (true) or closed (false) RDPEI. */
  ontouchoffered: (offered: boolean) => void;
  /**
   * One change of a touch contact through RDPEI (id: the page's pointer id; x, y: desktop
   * pixels; pressure 0–1024 where known). False when not connected, not offered, or the
   * queue is full: send mouse input instead.
   */
  sendTouch(kind: 'down' | 'move' | 'up' | 'cancel', id: number, x: number, y: number, pressure?: number): boolean;
  /**
   * A wave (options.audio), in order, one at a time: the channel waits until this returns.
   * Return the ms until the wave will be heard (a player's queue), or nothing (0): the
   * client's Wave Confirm tells the server the moment of return plus that delay.
   */
  onaudio: (wave: AudioWave) => void | number;
  ondisconnected: (end: SessionEnd) => void;

  /** Starts FreeRDP's connection on its own thread; the first onsend is the X.224 Connection Request. */
  start(): void;
  /** The gateway's `secured.publicKey` (the certificate's SubjectPublicKey), base64 or bytes. */
  secured(publicKey: string | Uint8Array): void;
  /** One binary frame from the gateway. */
  receive(bytes: Uint8Array | ArrayBuffer): void;
  /** The gateway socket closed: FreeRDP reads what it has, then ends. */
  endOfInput(): void;
  /** Ends the session; ondisconnected follows with reason 'stopped'. */
  stop(): void;
  /** The renderer is done with the surface (called for you unless onframe returned a promise). */
  frameDone(): void;
}

export declare class LanternaRdp {
  /** @param factory createLanternaRdp from the Emscripten build (lanterna-rdp.js) */
  static load(factory: (options: object) => Promise<unknown>, moduleOptions?: object, options?: { logLevel?: string }): Promise<LanternaRdp>;
  readonly module: unknown;
  /** Totals over every H.264 decoder of the module: pictures decoded, ms spent (decode to picture in the heap), … */
  readonly h264: { readonly stats: { pictures: number; decodeMs: number; skipped: number; failures: number; decoders: number } };
  createSession(options?: SessionOptions): RdpSession;
  /** Stops every session, waits for them to end (at most deadlineMs, 5 s), then ends every thread of the module; call when done with it in Node. */
  close(deadlineMs?: number): Promise<void>;
}

/** probeAvcSupport's answer: may AVC420/AVC444 be advertised here, and why not. */
export interface AvcSupport {
  readonly avc420: boolean;
  readonly avc444: boolean;
  readonly reason: string;
}
