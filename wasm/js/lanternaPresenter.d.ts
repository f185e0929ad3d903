// Types for lanternaPresenter.js: the presenter's RDP server (FreeRDP's peer in wasm).

export type PresenterEndReason = 'closed' | 'stopped' | 'protocol-error' | 'internal' | 'timeout';

export declare const PRESENTER_END_REASONS: Readonly<Record<number, PresenterEndReason>>;

export interface PresenterEnd {
  readonly reason: PresenterEndReason;
  /** FreeRDP's last error code (freerdp/error.h), 0 when none. */
  readonly code: number;
}

/** What the display's client confirmed once its graphics channel is up. */
export interface PresenterActive {
  readonly width: number;
  readonly height: number;
  /** The client's confirmed GFX capabilities allow AVC420 (H.264). */
  readonly avc420: boolean;
}

export type PresenterCodec = 'uncompressed' | 'planar';

export interface PresenterFrame {
  readonly x?: number;
  readonly y?: number;
  readonly width: number;
  readonly height: number;
  /** Bytes per row of `pixels` (default width × 4). */
  readonly stride?: number;
  /** B,G,R,X bytes. */
  readonly pixels: Uint8Array;
  /** How the picture travels (default 'uncompressed'); both are lossless. */
  readonly codec?: PresenterCodec;
}

/** Sound on the audio output channel (createSession's `audio`): 16-bit PCM at this rate and channel count. */
export interface PresenterAudioOptions {
  /** The static "rdpsnd" channel or the dynamic AUDIO_PLAYBACK_DVC. */
  readonly channel: 'static' | 'dynamic';
  /** 8000–192000 Hz. */
  readonly sampleRate: number;
  /** 1 or 2. */
  readonly channels: number;
  /**
   * The page can encode Opus (WebCodecs AudioEncoder): Opus (FreeRDP's tag 0x704F, 48 kHz, these
   * channels) is offered before the PCM, and a client that lists it gets sendAudioPacket's packets.
   */
  readonly opus?: boolean;
}

export interface PresenterAudioReady {
  readonly sampleRate: number;
  readonly channels: number;
  /** The client's rdpsnd version (8 and up: Wave2 PDUs, one per sendAudio piece). */
  readonly clientVersion: number;
  readonly channel: 'static' | 'dynamic';
  /** What the client chose: 'opus' (send sendAudioPacket; sampleRate is 48000) or 'pcm' (sendAudio). */
  readonly codec: 'opus' | 'pcm';
}

/** RDPINPUT_CONTACT_FLAG_* ([MS-RDPEI] 2.2.3.3.1.1). */
export declare const TOUCH_CONTACT_FLAGS: {
  readonly down: 0x01; readonly update: 0x02; readonly up: 0x04;
  readonly inRange: 0x08; readonly inContact: 0x10; readonly canceled: 0x20;
};

export interface PresenterTouchReady {
  /** The client's RDPINPUT protocol version (0x00030000 for 3.0.0). */
  protocolVersion: number;
  maxTouchContacts: number;
  /** CS_READY flags (CS_READY_FLAGS_*). */
  flags: number;
}

export interface PresenterTouchContact {
  /** The client's contact id (0–255), not the page's pointer id. */
  id: number;
  /** RDPINPUT_CONTACT_FLAG_* (TOUCH_CONTACT_FLAGS). */
  flags: number;
  /** Desktop pixels. */
  x: number;
  y: number;
  /** 0–1024, when the client sent one. */
  pressure?: number;
  /** CONTACT_DATA_*_PRESENT bits as sent. */
  fieldsPresent: number;
}

export interface PresenterTouchFrame {
  contacts: PresenterTouchContact[];
  /** µs since the client's previous frame (0 for its first). */
  frameOffsetUs: number;
}

export declare class PresenterError extends Error {
  readonly code: string;
  constructor(code: string, message: string);
}

export declare class PresenterSession {
  readonly desktop: { readonly width: number; readonly height: number };
  state: 'new' | 'running' | 'active' | 'ended';
  framesQueued: number;
  /** One or more whole PDUs for the gateway (one WebSocket message). */
  onoutput: (bytes: Uint8Array) => void;
  onactive: (info: PresenterActive) => void;
  /** The next picture must be whole: a client joined, or asked for a refresh. */
  onkeyframerequest: () => void;
  onframeacked: (ack: { frameId: number; framesSent: number; queueDepth: number }) => void;
  onframedropped: (drop: { frameId: number; reason: 'replaced' | 'send-failed' | 'bad-frame' | 'avc-not-allowed' | 'unknown' }) => void;
  onended: (end: PresenterEnd) => void;
  /** The display's client chose a format (info.codec): sendAudio or sendAudioPacket is sent from now on. */
  onaudioready: (info: PresenterAudioReady) => void;
  /** No sound this session: the client lists no such format (or the channel did not open, clientFormats 0). */
  onaudiorefused: (info: { clientFormats: number; clientVersion: number }) => void;
  /** A sendAudio went out as `blocks` waves numbered from `block` (mod 256). */
  onaudiosent: (sent: { block: number; blocks: number; timestamp: number; frames: number }) => void;
  /**
   * A Wave Confirm PDU from the client. FreeRDP's client sends two per wave: on arrival, then
   * once handed on; delayMs is its timestamp less the wave's (ms, mod 65536) when the block is known.
   */
  onaudioconfirm: (confirm: { block: number; timestamp: number; delayMs?: number }) => void;
  onaudiodropped: (drop: { timestamp: number; frames: number }) => void;
  /** The display's client answered RDPEI's SC_READY (its CS_READY): multi-touch frames may follow. */
  ontouchready: (info: PresenterTouchReady) => void;
  /** One RDPEI touch frame from the display's client, as FreeRDP's server decoded it. */
  ontouch: (frame: PresenterTouchFrame) => void;
  /** RDPEI could not open, or the client sent what does not parse: no more touch this session. */
  ontouchoff: (info: { code: number }) => void;
  /** What ontouchready reported (null before). */
  readonly touchReady: PresenterTouchReady | null;
  /** What createSession's audio option asked for (null without sound). */
  readonly audio: PresenterAudioOptions | null;
  /** What onaudioready reported. */
  readonly audioReady: PresenterAudioReady | null;
  readonly ended: Promise<PresenterEnd>;
  /** The self-signed certificate's SubjectPublicKey (what the gateway may report as `secured`). */
  readonly publicKey: Uint8Array;
  setSetting(name: string, value: string): boolean;
  start(): void;
  feed(bytes: Uint8Array | ArrayBuffer): void;
  endOfInput(): void;
  sendFrame(frame: PresenterFrame): void;
  /** An H.264 access unit (Annex-B) sent as GFX AVC420; only after onactive reported avc420. */
  sendAvc420(unit: { x?: number; y?: number; width: number; height: number; accessUnit: Uint8Array }): void;
  /**
   * Interleaved 16-bit sound (frames × channels) at the configured rate and channels, starting at
   * timestampMs; copied at once. 'queued', or why not. Throws PresenterError 'bad-audio' on bad input.
   */
  sendAudio(samples: Int16Array, sampleRate: number, channels: number, timestampMs: number): 'queued' | 'off' | 'not-ready' | 'full';
  /**
   * One Opus packet of `frames` (48 kHz, ≤ 5760) and ≤ 7680 bytes, starting at timestampMs, once the client
   * chose Opus; copied at once and sent as it is (one Wave2 PDU). Throws PresenterError 'bad-audio' on bad input.
   */
  sendAudioPacket(packet: Uint8Array, frames: number, timestampMs: number): 'queued' | 'off' | 'not-ready' | 'full';
  /** What onactive reported, once the graphics channel is up. */
  readonly active: PresenterActive | null;
  stop(): void;
  abandon(): void;
}

export declare class LanternaPresenter {
  static load(factory: (options: object) => Promise<unknown>, moduleOptions?: object, options?: { logLevel?: string }): Promise<LanternaPresenter>;
  readonly module: unknown;
  readonly sessions: Map<number, PresenterSession>;
  /** connectTimeoutMs: from start() to the client's activation (default 20 s), then the session ends 'timeout'. */
  createSession(options: { width: number; height: number; connectTimeoutMs?: number; freerdpSettings?: Record<string, string | number | boolean>; audio?: PresenterAudioOptions; /** false: no RDPEI offered (default true) */ touch?: boolean }): PresenterSession;
  close(deadlineMs?: number): Promise<void>;
}
