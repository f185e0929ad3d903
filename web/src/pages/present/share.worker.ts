// The presenter page's share worker: FreeRDP's server side in wasm
// (lanternaPresenter.js over lanterna-presenter.{js,wasm}) on the presenter
// socket (docs/kiosk-protocol.md "Presenter socket"), fed with pictures from
// the capture by PictureSender. The socket and the wasm live here, so the
// page's thread never sees a PDU. A classic worker: Emscripten's pthread
// glue is a classic script (importScripts), as in the session worker.
import { KIOSK_SUBPROTOCOL, parseGatewayPresenterMessage, type PresentMessage, type PresenterCloseMessage } from '@lanterna/protocol';
import type { LanternaPresenter, PresenterSession } from '../../../../wasm/js/lanternaPresenter.js';
import { importClassicScript } from '../../../../wasm/js/classicScript.js';
import { PduCoalescer } from './pduCoalescer.js';
import { opusEncodable, ShareSound } from './shareSound.js';
import { h264Config, PictureSender } from './pictureSender.js';
import type { ShareCodec, ShareEnd, ShareWorkerReply, ShareWorkerRequest } from './shareWorkerProtocol.js';

declare const self: DedicatedWorkerGlobalScope;

type StartRequest = Extract<ShareWorkerRequest, { type: 'start' }>;
type PresenterApi = { LanternaPresenter: typeof LanternaPresenter };

/** Pictures the display may not yet have acknowledged: enough to hide one round trip, never a queue. */
const MAX_IN_FLIGHT = 2;
/** The frame-rate caps the page shows: H.264 at capture rate; the lossless fallback costs far more per picture. */
const MAX_FPS: Readonly<Record<ShareCodec, number>> = { h264: 30, planar: 5 };
/** Above this many bytes in the socket's buffer no picture is encoded (the gateway or the network is behind). */
const SOCKET_HIGH_WATER = 2 * 1024 * 1024;
/** How long the stopped server may take to end before the page reports the end. */
const STOP_GRACE_MS = 300;
/**
 * The RDP server's module (its JS, its wasm, its thread pool's workers) may
 * take this long to load: a pool worker whose script never arrives would
 * leave the share "Connecting…" forever, with no word.
 */
const LOAD_DEADLINE_MS = 30_000;
/** The gateway must open the page's socket within this: browsers give a WebSocket no deadline of their own. */
const OPEN_DEADLINE_MS = 15_000;

function reply(message: ShareWorkerReply): void {
  self.postMessage(message);
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function base64(bytes: Uint8Array): string {
  let text = '';
  for (const byte of bytes) text += String.fromCharCode(byte);
  return btoa(text);
}

/** The module, loaded once per worker: ahead of time by `load`, or by `start`. */
let loading: Promise<LanternaPresenter> | null = null;
function presenterModule(urls: { presenterUrl: string; buildUrl: string }): Promise<LanternaPresenter> {
  loading ??= loadPresenter(urls);
  return loading;
}

async function loadPresenter(request: { presenterUrl: string; buildUrl: string }): Promise<LanternaPresenter> {
  const scope = self as unknown as { createLanternaPresenter?: (options: object) => Promise<unknown> };
  const script = new URL('lanterna-presenter.js', request.buildUrl).href;
  reply({ type: 'progress', stage: 'fetching lanterna-presenter.js' });
  await importClassicScript(script, LOAD_DEADLINE_MS);
  const factory = scope.createLanternaPresenter;
  if (typeof factory !== 'function') throw new Error('lanterna-presenter.js did not define createLanternaPresenter');
  reply({ type: 'progress', stage: 'loading the presenter API' });
  const api = (await import(request.presenterUrl)) as PresenterApi;
  reply({ type: 'progress', stage: 'compiling the RDP server and starting its threads' });
  const presenter = await api.LanternaPresenter.load(factory, {
    locateFile: (name: string) => new URL(name, request.buildUrl).href,
    mainScriptUrlOrBlob: script,
  });
  reply({ type: 'progress', stage: 'loaded' });
  return presenter;
}

/**
 * Firefox (ESR 153 checked, docs/browser-presenter.md): its VideoEncoder says
 * it can do H.264 and does write Annex B (SPS and PPS in band), yet the
 * display's decoder gave up on every picture ("could not be decoded, even
 * after restarting the decoder") and the display showed nothing: Firefox's SPS
 * says max_num_reorder_frames = 2, so Chromium's VideoDecoder gives its
 * pictures two units late, and the display's decoder wants each unit's
 * picture before the next. Its planar pictures arrive. Until Firefox's stream
 * is made decodable at once, Firefox sends planar.
 */
const FIREFOX = /\bFirefox\//;

/** H.264 where the display took AVC420 and this browser encodes it at this size; else planar, and why. */
async function chooseCodec(wanted: StartRequest['codec'], avc420: boolean, width: number, height: number): Promise<{ codec: ShareCodec; fallbackReason?: string }> {
  if (wanted === 'planar') return { codec: 'planar', fallbackReason: 'the lossless codec was asked for (codec=planar in the address)' };
  if (!avc420) return { codec: 'planar', fallbackReason: 'the display did not offer H.264' };
  if (typeof VideoEncoder === 'undefined') return { codec: 'planar', fallbackReason: 'this browser has no video encoder (WebCodecs)' };
  if (FIREFOX.test(navigator.userAgent)) return { codec: 'planar', fallbackReason: 'Firefox\'s H.264 pictures cannot be shown by the display yet' };
  try {
    const support = await VideoEncoder.isConfigSupported(h264Config(width, height, MAX_FPS.h264));
    if (support.supported === true) return { codec: 'h264' };
  } catch {
    // an unsupported configuration may throw instead of answering
  }
  return { codec: 'planar', fallbackReason: `this browser cannot encode H.264 at ${width}×${height}` };
}

class Share {
  private presenter: LanternaPresenter | null = null;
  private session: PresenterSession | null = null;
  private socket: WebSocket | null = null;
  private sender: PictureSender | null = null;
  private sound: ShareSound | null = null;
  /** A mute asked for before the sound started. */
  private muted = false;
  /** Frames that arrive before the display is up: only the newest is kept. */
  private early: VideoFrame | null = null;
  private end: ShareEnd | null = null;
  private finished = false;
  private readonly coalescer: PduCoalescer;
  private flushQueued = false;
  private bytesOut = 0;

  constructor(private readonly request: StartRequest) {
    this.coalescer = new PduCoalescer((message) => {
      if (this.socket?.readyState !== WebSocket.OPEN) return;
      this.socket.send(message);
      this.bytesOut += message.length;
    });
  }

  /** Bytes the gateway has not yet taken: the socket's buffer and what waits for the next flush. */
  private queued(): number {
    return (this.socket?.bufferedAmount ?? 0) + this.coalescer.pending;
  }

  async run(): Promise<void> {
    const request = this.request;
    if (request.frames) void this.readFrames(request.frames);
    const sound = request.sound;
    // Opus is offered (before PCM) where this browser encodes it from the capture's rate and channels
    const opusAnswer = sound ? opusEncodable(sound) : Promise.resolve(false);
    let opus: boolean;
    try {
      this.presenter = await withDeadline(presenterModule(request), LOAD_DEADLINE_MS, `not loaded within ${LOAD_DEADLINE_MS / 1000} s`);
      opus = await withDeadline(opusAnswer, LOAD_DEADLINE_MS, 'the browser did not say whether it encodes Opus');
    } catch (error) {
      this.finish({ by: 'lost', message: `the RDP server for this page could not be loaded: ${describe(error)}` });
      return;
    }
    if (this.finished) return;
    // the static rdpsnd channel: the one every RDP client joins (the dynamic one needs DRDYNVC up first)
    const session = this.presenter.createSession({
      width: request.width,
      height: request.height,
      ...(sound ? { audio: { channel: 'static' as const, sampleRate: sound.sampleRate, channels: sound.channels, opus } } : {}),
    });
    this.session = session;
    if (sound) {
      const shareSound: ShareSound = new ShareSound(session, sound, (state) => {
        const codec = shareSound.chosen();
        reply({ type: 'sound', state, ...(codec === null ? {} : { codec }) });
      });
      shareSound.setMuted(this.muted);
      this.sound = shareSound;
      session.onaudioready = (info) => shareSound.onReady(info);
      session.onaudiorefused = () => shareSound.onRefused();
      void shareSound.read(sound.samples);
    }
    session.onoutput = (bytes) => this.output(bytes);
    session.onactive = (info) => void this.activate(info.width, info.height, info.avc420);
    session.onkeyframerequest = () => this.sender?.keyFrame();
    session.onframeacked = () => this.sender?.onAck();
    session.onframedropped = () => this.sender?.onDrop();
    session.onended = (end) => {
      // the server ends when the display's client leaves (the gateway's words follow) or on a protocol error
      if (end.reason !== 'closed' && end.reason !== 'stopped') this.finish({ by: 'lost', message: `the RDP server ended (${end.reason}, code ${end.code})` });
    };

    reply({ type: 'progress', stage: 'opening the presenter socket' });
    const socket = new WebSocket(request.socketUrl, KIOSK_SUBPROTOCOL);
    socket.binaryType = 'arraybuffer';
    this.socket = socket;
    const opening = setTimeout(() => {
      this.end ??= { by: 'lost', message: `the gateway did not open this page's connection within ${OPEN_DEADLINE_MS / 1000} s` };
      socket.close();
    }, OPEN_DEADLINE_MS);
    socket.onopen = () => {
      clearTimeout(opening);
      const present: PresentMessage = { type: 'present', token: request.token, publicKey: base64(session.publicKey) };
      socket.send(JSON.stringify(present));
      session.start();
      reply({ type: 'waiting' });
    };
    socket.onmessage = (event: MessageEvent<ArrayBuffer | string>) => {
      if (typeof event.data !== 'string') {
        session.feed(new Uint8Array(event.data));
        return;
      }
      const parsed = parseGatewayPresenterMessage(event.data);
      if (!parsed.ok) return;
      const message = parsed.message;
      if (message.type === 'pace') {
        this.sender?.onPace(message);
        return;
      }
      this.end ??= message.type === 'ended' ? { by: 'gateway', reason: message.reason } : { by: 'error', code: message.code, message: message.message };
    };
    socket.onclose = (event) => {
      clearTimeout(opening);
      session.endOfInput();
      this.finish(this.end ?? { by: 'lost', message: `the connection to the gateway closed (${event.code}${event.reason === '' ? '' : ` ${event.reason}`})` });
    };
  }

  /**
   * The presenter stops (or this side failed): the socket tells the gateway
   * first, which ends the display's session at once (as an administrator's
   * stop does), then the server is stopped for its own cleanup. Saying
   * goodbye over RDP first (Deactivate All, Disconnect) left the display on
   * the last picture while its client took the disconnect apart: 1.2–2 s at
   * load 20, against 0.2–0.4 s for the gateway's own end.
   */
  async stop(end: ShareEnd = { by: 'presenter' }): Promise<void> {
    if (this.finished || this.end !== null) return;
    this.end = end;
    this.sender?.close();
    this.coalescer.flush();
    if (this.socket?.readyState === WebSocket.OPEN) {
      const close: PresenterCloseMessage = { type: 'close' };
      this.socket.send(JSON.stringify(close));
      this.socket.close(1000, 'presenter-stopped');
    }
    const session = this.session;
    if (session && session.state !== 'ended' && session.state !== 'new') {
      session.stop();
      await Promise.race([session.ended, new Promise((resolve) => { setTimeout(resolve, STOP_GRACE_MS); })]);
    }
    this.finish(end);
  }

  mute(muted: boolean): void {
    this.muted = muted;
    this.sound?.setMuted(muted);
  }

  offer(frame: VideoFrame): void {
    if (this.finished) {
      frame.close();
      return;
    }
    if (this.sender) {
      this.sender.offer(frame);
      return;
    }
    this.early?.close();
    this.early = frame;
  }

  private async readFrames(frames: ReadableStream<VideoFrame>): Promise<void> {
    const reader = frames.getReader();
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        this.offer(value);
      }
    } catch {
      // the capture ended under the reader
    }
    if (!this.finished) reply({ type: 'capture-ended' });
  }

  private async activate(width: number, height: number, avc420: boolean): Promise<void> {
    const choice = await chooseCodec(this.request.codec, avc420, width, height);
    if (this.finished) return;
    const maxFps = MAX_FPS[choice.codec];
    const session = this.session;
    if (!session) return;
    this.sender = new PictureSender(session, {
      width,
      height,
      codec: choice.codec,
      maxInFlight: MAX_IN_FLIGHT,
      maxFps,
      canSend: () => this.queued() < SOCKET_HIGH_WATER,
      onfirstack: () => reply({ type: 'first-picture' }),
      onfigures: (figures) => {
        const codec = this.sound?.chosen() ?? null;
        const sound = codec === null ? {} : { sound: { codec, bytesPerSecond: this.sound?.takeBytes() ?? 0 } };
        reply({ type: 'figures', figures: { ...figures, bytesPerSecond: this.bytesOut, ...sound } });
        this.bytesOut = 0;
      },
      onfailure: (message) => void this.stop({ by: 'lost', message }),
    });
    reply({ type: 'active', width, height, codec: choice.codec, maxFps, ...(choice.fallbackReason === undefined ? {} : { fallbackReason: choice.fallbackReason }) });
    if (this.early) {
      this.sender.offer(this.early);
      this.early = null;
    }
    this.sender.keyFrame();
  }

  /** Whole PDUs from the server, joined into messages of at most 256 KiB at the end of this task. */
  private output(bytes: Uint8Array): void {
    this.coalescer.push(bytes);
    if (this.flushQueued) return;
    this.flushQueued = true;
    setTimeout(() => {
      this.flushQueued = false;
      this.coalescer.flush();
    }, 0);
  }

  private finish(end: ShareEnd): void {
    if (this.finished) return;
    this.finished = true;
    this.sound?.stop();
    this.sender?.close();
    this.early?.close();
    this.early = null;
    if (this.socket && this.socket.readyState !== WebSocket.CLOSED) this.socket.close(1000);
    this.session?.stop();
    reply({ type: 'ended', end });
  }
}

/** `promise`, or a rejection saying `what` once `ms` have passed. */
function withDeadline<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => { timer = setTimeout(() => reject(new Error(what)), ms); });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

let share: Share | null = null;

self.onmessage = (event: MessageEvent<ShareWorkerRequest>) => {
  const request = event.data;
  switch (request.type) {
    case 'load':
      // a failure is reported by the share that needs the module
      presenterModule(request).catch(() => undefined);
      break;
    case 'start':
      if (share) return;
      share = new Share(request);
      void share.run();
      break;
    case 'frame':
      if (share) share.offer(request.frame);
      else request.frame.close();
      break;
    case 'mute':
      share?.mute(request.muted);
      break;
    case 'stop':
      void share?.stop();
      break;
  }
};
