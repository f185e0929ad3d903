// Messages between the presenter page and its share worker (share.worker.ts),
// which hosts the presenter's RDP server (wasm), the presenter socket and the
// picture encoder. The page keeps the capture and the presenter API.

/** How pictures travel: WebCodecs H.264 as GFX AVC420, or FreeRDP's lossless planar codec encoded in wasm. */
export type ShareCodec = 'h264' | 'planar';

export type ShareWorkerRequest =
  /** Load the RDP server ahead of Share (the page asks while the PIN is typed): a share then only opens its socket. */
  | { readonly type: 'load'; readonly presenterUrl: string; readonly buildUrl: string }
  | {
      readonly type: 'start';
      /** The presenter socket's URL and single-use token (the presenter API's answer). */
      readonly socketUrl: string;
      readonly token: string;
      /** lanternaPresenter.js and the folder of lanterna-presenter.{js,wasm,worker.js}, absolute. */
      readonly presenterUrl: string;
      readonly buildUrl: string;
      /** The desktop the display is given (the capture's size, fitted and made even). */
      readonly width: number;
      readonly height: number;
      /** 'auto': H.264 where the display and this browser can; 'planar' forces the fallback. */
      readonly codec: 'auto' | 'planar';
      /** The capture's frames (MediaStreamTrackProcessor's readable, transferred); absent: the page posts `frame`s. */
      readonly frames?: ReadableStream<VideoFrame>;
      /** The capture's sound (transferred), at the track's rate and channels; absent: the share is silent. */
      readonly sound?: ShareSoundSource;
    }
  /** The presenter's mute button: the sound stops reaching the display (the picture goes on). */
  | { readonly type: 'mute'; readonly muted: boolean }
  /** A captured frame, where the page reads the capture itself (no MediaStreamTrackProcessor). Transferred. */
  | { readonly type: 'frame'; readonly frame: VideoFrame }
  /** The presenter stops (the page's Stop, the browser's "Stop sharing", the page going away). */
  | { readonly type: 'stop' };

export interface ShareSoundSource {
  readonly samples: ReadableStream<AudioData>;
  readonly sampleRate: number;
  readonly channels: 1 | 2;
}

/**
 * Where the share's sound stands: `starting` until the display's client
 * agrees on the format; `playing` or `muted` (the presenter's button) after;
 * `refused` when the display's client took none of the formats offered.
 */
export type ShareSoundState = 'starting' | 'playing' | 'muted' | 'refused';

/** The sound's format on the wire, as the display's client chose: Opus (WebCodecs AudioEncoder) or 16-bit PCM. */
export type ShareSoundCodec = 'opus' | 'pcm';

export interface ShareFigures {
  /** Frames the capture gave in the last second (a still screen gives few). */
  readonly capturedPerSecond: number;
  /** Pictures the display acknowledged in the last second. */
  readonly picturesPerSecond: number;
  /** Bytes sent to the gateway in the last second. */
  readonly bytesPerSecond: number;
  /** Mean time from taking a frame to its encoded picture, the last second (ms). */
  readonly encodeMs: number;
  /** Of that, reading the frame's pixels (H.264: the I420 planes or a canvas; 0 for planar, whose encode is all of it). */
  readonly readMs: number;
  readonly readPath: 'i420' | 'canvas';
  /**
   * H.264: the bits per second the encoder aims at, and the most the
   * picture's size would have (bitrateController.ts lowers it while the
   * gateway reads the page slower than that). Absent for the lossless codec.
   */
  readonly bitrate?: {
    readonly target: number;
    readonly ceiling: number;
    /** Of the last second, the milliseconds a fresh frame waited behind pictures the gateway had not yet taken. */
    readonly heldMs: number;
  };
  /** The share's sound, once the display's client chose its format: rdpsnd bytes (Wave2 PDUs) sent in the last second. */
  readonly sound?: { readonly codec: ShareSoundCodec; readonly bytesPerSecond: number };
}

/** How a share ended, as the worker saw it. */
export type ShareEnd =
  /** The page asked (`stop`). */
  | { readonly by: 'presenter' }
  /** The gateway said `ended` (stopped, client-closed, gateway-shutdown, a display's error code…). */
  | { readonly by: 'gateway'; readonly reason: string }
  /** The gateway said `error` (what it found wrong with this page's side). */
  | { readonly by: 'error'; readonly code: string; readonly message: string }
  /** The socket closed without a word, or this side failed (wasm, encoder). */
  | { readonly by: 'lost'; readonly message: string };

export type ShareWorkerReply =
  /** How far loading the RDP server got (a warm-up's too): named by the page if the share never starts. */
  | { readonly type: 'progress'; readonly stage: string }
  /** The RDP server is loaded and the socket is open: waiting for the display to join. */
  | { readonly type: 'waiting' }
  /** The display's client is up; pictures flow with this codec (and why, when it is the fallback). */
  | { readonly type: 'active'; readonly width: number; readonly height: number; readonly codec: ShareCodec; readonly fallbackReason?: string; readonly maxFps: number }
  /** The capture's frames ended (the track was stopped, or its source went away). */
  | { readonly type: 'capture-ended' }
  /** The display acknowledged the first picture. */
  | { readonly type: 'first-picture' }
  | { readonly type: 'figures'; readonly figures: ShareFigures }
  /** The share's sound changed state (only for a share with sound). */
  | { readonly type: 'sound'; readonly state: ShareSoundState; readonly codec?: ShareSoundCodec }
  | { readonly type: 'ended'; readonly end: ShareEnd };
