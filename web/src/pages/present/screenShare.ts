// "Share my screen" on the presenter page's thread: the browser's own picker
// (getDisplayMedia: a screen, a window or a tab, with the cursor), the share
// worker that runs the RDP server and the presenter socket, and every way a
// share ends (the page's Stop, the browser's "Stop sharing", the page going
// away, the gateway's word). The capture's frames go to the worker without
// a copy (MediaStreamTrackProcessor's stream, transferred; else VideoFrames
// of a <video>, each transferred).
import type { ShareEnd, ShareSoundSource, ShareSoundCodec, ShareSoundState, ShareWorkerReply, ShareWorkerRequest } from './shareWorkerProtocol.js';

/** Chromium's MediaStreamTrackProcessor (not in TypeScript's DOM types): VideoFrames for a video track, AudioData for a sound one. */
interface TrackProcessor<T> { readonly readable: ReadableStream<T> }
type TrackProcessorConstructor = new <T>(init: { track: MediaStreamTrack; maxBufferSize?: number }) => TrackProcessor<T>;

/** The largest desktop a share gives the display: H.264 High 4.0's 1080p, the display pages' usual size. */
const MAX_WIDTH = 1920;
const MAX_HEIGHT = 1080;
/** How long the worker may take to say goodbye to the display after a stop. */
const STOP_ANSWER_MS = 2000;
/** The worker's first answer to `start` (waiting, active or ended: its own deadlines are 30 s to load and 15 s to open the socket) comes within this. */
const START_ANSWER_MS = 50_000;

/** Where the share can run at all: a secure context with getDisplayMedia (phones have none). */
export function shareUnavailableReason(): string | null {
  if (!window.isSecureContext) return 'Sharing a screen needs a secure page (https). Ask the administrator for the https address of this page.';
  if (typeof (navigator.mediaDevices as MediaDevices | undefined)?.getDisplayMedia !== 'function') {
    return 'This browser cannot share a screen (phones and tablets cannot). Use a computer with Chrome, Edge or Firefox, or one of the other ways below.';
  }
  if (!window.crossOriginIsolated) return 'This page was not loaded isolated (the gateway\'s headers are missing), so it cannot run the sharing engine.';
  return null;
}

/**
 * The desktop for a capture of width×height: the same shape, even sides
 * (H.264 4:2:0), no larger than 1920×1080 (H.264 High 4.0, and what a
 * software encoder keeps up with) nor than what the display shows it at
 * (`shown`: its panel or slot, from the gateway's answer) — a 2560×1440
 * screen on a 1366×768 panel is encoded at 1366×768, not sent at four times
 * the pixels for the display to throw away.
 */
export function desktopFor(width: number, height: number, shown?: { readonly width: number; readonly height: number }): { width: number; height: number } {
  const limits = shown ? [shown.width / width, shown.height / height] : [];
  const scale = Math.min(1, MAX_WIDTH / width, MAX_HEIGHT / height, ...limits);
  // the epsilon: a side scaled to an exact even number (1080 × 0.5625 …) may come out a hair under it in floating point
  const even = (value: number): number => Math.max(2, Math.floor((value * scale + 1e-6) / 2) * 2);
  return { width: even(width), height: even(height) };
}

export interface ShareEngine {
  /** lanternaPresenter.js and the folder of the Emscripten outputs, absolute. */
  readonly presenterUrl: string;
  readonly buildUrl: string;
}

export interface ShareEvents {
  onwaiting(): void;
  onactive(info: Extract<ShareWorkerReply, { type: 'active' }>): void;
  onfirstpicture(): void;
  onfigures(figures: Extract<ShareWorkerReply, { type: 'figures' }>['figures']): void;
  /** The share's sound changed state (a share with sound only). */
  onsound(state: ShareSoundState, codec?: ShareSoundCodec): void;
  /** How it ended; `byBrowser`: the browser's own "Stop sharing" (the track ended). */
  onended(end: ShareEnd | { readonly by: 'browser' }): void;
}

/** How far each share worker got loading the RDP server (its last 'progress'). */
const loadStages = new WeakMap<Worker, string>();

/**
 * A share worker that starts loading the RDP server now (about 3 MB of wasm and
 * its threads), so that Share only has to open the socket; asked for while the
 * presenter types the PIN, not at page load (a visit for the other ways, or from
 * a phone, never pays for the module and its heap).
 */
export function warmShareWorker(workerUrl: URL, engine: ShareEngine): Worker {
  const worker = new Worker(workerUrl, { name: 'share' });
  // its progress until a share takes it over (a message with no listener is lost)
  worker.onmessage = (event: MessageEvent<ShareWorkerReply>) => {
    if (event.data.type === 'progress') loadStages.set(worker, event.data.stage);
  };
  const load: ShareWorkerRequest = { type: 'load', presenterUrl: engine.presenterUrl, buildUrl: engine.buildUrl };
  worker.postMessage(load);
  return worker;
}

/**
 * Asks the browser for a screen, a window or a tab, with its sound where the
 * browser offers it (Chromium: a tab's sound, and the whole screen's on
 * Windows and ChromeOS, behind a tick box in its picker). Rejects when the
 * person cancels the picker. A whole screen is then asked for at its own
 * size, up to the desktop's: left alone, Chromium 156 scales a screen into
 * 800×600 (a 1280×720 Xvfb screen arrived as 800×450 pictures). A tab is left
 * alone: it comes at its own size, and the same limits asked of a tab made
 * Chromium scale it up (a 640×360 tab came as 1280×720).
 */
export async function pickScreen(): Promise<MediaStream> {
  const stream = await navigator.mediaDevices.getDisplayMedia({
    video: { cursor: 'always', frameRate: { ideal: 30, max: 30 } } as MediaTrackConstraints,
    // a film's or a slide's sound, not a call's: the voice processing a
    // microphone gets (echo cancelling, noise suppression, gain control) is
    // on by default and folds a tab's stereo to mono (measured here: one channel)
    audio: { echoCancellation: false, noiseSuppression: false, autoGainControl: false },
    // the presenter keeps hearing the tab, as with every projector
    suppressLocalAudioPlayback: false,
    systemAudio: 'include',
  } as DisplayMediaStreamOptions);
  const track = stream.getVideoTracks()[0];
  if (track && isWholeScreen(track)) {
    await track.applyConstraints({ frameRate: { ideal: 30, max: 30 }, width: { max: MAX_WIDTH }, height: { max: MAX_HEIGHT } }).catch(() => undefined);
  }
  return stream;
}

/** The capture's sound for the worker, where the browser gave a sound track and can read it in a worker. */
function soundSource(stream: MediaStream, processor: TrackProcessorConstructor | undefined): ShareSoundSource | null {
  const track = stream.getAudioTracks()[0];
  if (!track || !processor) return null;
  const settings = track.getSettings();
  const sampleRate = settings.sampleRate ?? 48_000;
  // the display's client takes 8–192 kHz (docs/sound.md); mono and stereo only
  if (sampleRate < 8000 || sampleRate > 192_000) return null;
  const channels = (settings.channelCount ?? 2) >= 2 ? 2 : 1;
  // a few buffers (10 ms each): the reader takes them as they come, a stalled worker loses the oldest
  return { samples: new processor<AudioData>({ track, maxBufferSize: 10 }).readable, sampleRate, channels };
}

function isWholeScreen(track: MediaStreamTrack): boolean {
  return (track.getSettings() as MediaTrackSettings & { displaySurface?: string }).displaySurface === 'monitor';
}

/**
 * The capture's real size. For a whole screen, its first frame's: Chromium's
 * settings are not it before frames flow, they echo the limits pickScreen
 * asked for (1920×1080 for a 1280×720 screen), and a desktop sized from them
 * stretched every picture. A clone of the track is read, so the capture itself
 * stays free for the share worker. Otherwise (a tab, a window), where there is
 * no MediaStreamTrackProcessor, or where no frame comes in time: the settings.
 */
export async function captureSize(stream: MediaStream, timeoutMs = 3000): Promise<{ width: number; height: number }> {
  const track = stream.getVideoTracks()[0];
  const settings = track?.getSettings();
  const fallback = { width: settings?.width ?? MAX_WIDTH, height: settings?.height ?? MAX_HEIGHT };
  const processor = (globalThis as { MediaStreamTrackProcessor?: TrackProcessorConstructor }).MediaStreamTrackProcessor;
  if (!track || !processor || !isWholeScreen(track)) return fallback;
  const probe = track.clone();
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    const reader = new processor<VideoFrame>({ track: probe, maxBufferSize: 1 }).readable.getReader();
    const first = await Promise.race([reader.read(), new Promise<null>((resolve) => { timer = setTimeout(() => resolve(null), timeoutMs); })]);
    const frame = first?.value;
    if (!frame) return fallback;
    const size = { width: frame.displayWidth, height: frame.displayHeight };
    frame.close();
    return size;
  } finally {
    clearTimeout(timer);
    probe.stop();
  }
}

export class ScreenShare {
  private readonly worker: Worker;
  private readonly track: MediaStreamTrack;
  private ended = false;
  /** Until the worker's first answer: a worker that never answers is ended from here. */
  private startDeadline: ReturnType<typeof setTimeout> | undefined;
  private stoppedByBrowser = false;
  /** The page's Stop: the capture it then ends is not the browser's stop. */
  private stoppedByPresenter = false;
  private video: HTMLVideoElement | null = null;
  /** Whether the share sends sound: the capture has a sound track the worker reads. */
  readonly hasSound: boolean;
  private readonly onPageHide = (): void => this.stop();

  constructor(
    private readonly stream: MediaStream,
    start: {
      socketUrl: string; token: string; engine: ShareEngine; codec: 'auto' | 'planar';
      /** The capture's real size (captureSize). */
      size: { width: number; height: number };
      /** What the display shows this source at (the gateway's answer), when it said. */
      shown?: { readonly width: number; readonly height: number } | undefined;
    },
    /** The share worker, perhaps already loading the RDP server (warmShareWorker); this share owns it from here. */
    worker: Worker,
    private readonly events: ShareEvents,
  ) {
    const track = stream.getVideoTracks()[0];
    if (!track) throw new Error('the capture has no picture');
    this.track = track;
    const desktop = desktopFor(start.size.width, start.size.height, start.shown);
    // screen content: keep the detail, let the frame rate give
    track.contentHint = 'detail';
    this.worker = worker;
    this.worker.onmessage = (event: MessageEvent<ShareWorkerReply>) => this.onReply(event.data);
    this.worker.onerror = (event) => this.finish({ by: 'lost', message: `the sharing engine stopped: ${event.message}` });
    const processor = (globalThis as { MediaStreamTrackProcessor?: TrackProcessorConstructor }).MediaStreamTrackProcessor;
    const sound = soundSource(stream, processor);
    this.hasSound = sound !== null;
    const request: ShareWorkerRequest = { type: 'start', ...start.engine, socketUrl: start.socketUrl, token: start.token, codec: start.codec, ...desktop, ...(sound ? { sound } : {}) };
    const transfer: Transferable[] = sound ? [sound.samples] : [];
    if (processor) {
      // one frame buffered: the newest wins already at the source
      const frames = new processor<VideoFrame>({ track, maxBufferSize: 1 }).readable;
      this.worker.postMessage({ ...request, frames }, [frames, ...transfer]);
    } else {
      this.worker.postMessage(request, transfer);
      this.readThroughVideo();
    }
    // A worker that never answers is frozen (a synchronous importScripts whose
    // script never arrives blocks even its own deadlines): ended from here.
    this.startDeadline = setTimeout(() => {
      const stage = loadStages.get(this.worker) ?? 'its script not yet running';
      this.finish({ by: 'lost', message: `the sharing engine did not start within ${START_ANSWER_MS / 1000} s (it stopped at: ${stage})` });
    }, START_ANSWER_MS);
    // the browser's "Stop sharing" bar ends the track
    track.addEventListener('ended', () => this.finishByBrowser());
    window.addEventListener('pagehide', this.onPageHide);
  }

  /** The presenter's mute button: the display stops hearing the share (the picture goes on). */
  mute(muted: boolean): void {
    if (this.ended) return;
    this.post({ type: 'mute', muted });
  }

  /** The page's Stop: the worker says goodbye to the display and closes the socket; 'ended' follows. */
  stop(): void {
    if (this.ended || this.stoppedByPresenter) return;
    this.stoppedByPresenter = true;
    this.post({ type: 'stop' });
    // no more pictures: a worker busy encoding the next frames would read its stop only after them (1.2–1.7 s at load 20)
    for (const track of this.stream.getVideoTracks()) track.stop();
  }

  /** The capture ended under the page (the browser's "Stop sharing", the shared tab closed): stop, and say so when the worker is done. */
  private finishByBrowser(): void {
    if (this.ended || this.stoppedByBrowser || this.stoppedByPresenter) return;
    this.stoppedByBrowser = true;
    this.post({ type: 'stop' });
    // a worker that does not answer is ended anyway
    setTimeout(() => this.finish({ by: 'browser' }), STOP_ANSWER_MS);
  }

  private onReply(message: ShareWorkerReply): void {
    if (this.ended) return;
    if (message.type === 'progress') {
      // still loading: not yet an answer to the start
      loadStages.set(this.worker, message.stage);
      return;
    }
    clearTimeout(this.startDeadline);
    switch (message.type) {
      case 'waiting':
        this.events.onwaiting();
        break;
      case 'active':
        this.events.onactive(message);
        break;
      case 'first-picture':
        this.events.onfirstpicture();
        break;
      case 'figures':
        this.events.onfigures(message.figures);
        break;
      case 'sound':
        this.events.onsound(message.state, message.codec);
        break;
      case 'capture-ended':
        this.finishByBrowser();
        break;
      case 'ended':
        this.finish(this.stoppedByBrowser ? { by: 'browser' } : message.end);
        break;
    }
  }

  private finish(end: ShareEnd | { readonly by: 'browser' }): void {
    if (this.ended) return;
    this.ended = true;
    clearTimeout(this.startDeadline);
    window.removeEventListener('pagehide', this.onPageHide);
    for (const track of this.stream.getTracks()) track.stop();
    if (this.video) {
      this.video.srcObject = null;
      this.video = null;
    }
    // the worker closed its socket before it said 'ended'
    this.worker.terminate();
    this.events.onended(end);
  }

  private post(message: ShareWorkerRequest, transfer: Transferable[] = []): void {
    this.worker.postMessage(message, transfer);
  }

  /** Without MediaStreamTrackProcessor: a hidden <video> plays the capture and each new frame goes to the worker. */
  private readThroughVideo(): void {
    const video = document.createElement('video');
    video.muted = true;
    video.srcObject = this.stream;
    this.video = video;
    const next = (): void => {
      if (this.ended || this.video !== video) return;
      if (video.videoWidth > 0) {
        const frame = new VideoFrame(video, { timestamp: performance.now() * 1000 });
        this.post({ type: 'frame', frame }, [frame]);
      }
      video.requestVideoFrameCallback(next);
    };
    void video.play().then(() => video.requestVideoFrameCallback(next));
  }
}
