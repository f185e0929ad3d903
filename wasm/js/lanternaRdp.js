// The JS face of the wasm FreeRDP client: owns the Emscripten module, turns the
// C side's numbered events into callbacks, and moves bytes in and out. Knows
// nothing of WebSockets (see gatewaySession.js) or of rendering (frames are
// rectangles over the wasm heap). Works in a browser Worker and in Node (where
// there is no WebCodecs, so no H.264: h264Decoders.js).
import { H264Decoders } from './h264Decoders.js';
import { EmscriptenHost, HostedSession, codedErrorClass, takePosted } from './emscriptenHost.js';

/** Why a session ended (enum lt_reason in wasm/src/session.h). */
export const REASONS = Object.freeze({
  1: 'closed',
  2: 'stopped',
  3: 'wrong-password',
  4: 'auth-failed',
  5: 'connection-reset',
  6: 'protocol-error',
  7: 'timeout',
  8: 'negotiation-failed',
  9: 'server-ended',
  10: 'internal',
  11: 'video-unsupported',
  12: 'video-decode-failed',
  13: 'out-of-memory',
});

const EVENT = Object.freeze({
  SEND: 1, CONNECTED: 2, DISCONNECTED: 3, RESIZE: 4, FRAME: 5,
  POINTER_SET: 6, POINTER_HIDE: 7, POINTER_DEFAULT: 8, POINTER_POSITION: 9,
  H264_DECODE: 10, H264_CLOSE: 11, AUDIO: 12, TOUCH: 13,
});
/** enum lt_touch_kind in src/touch_input.h */
const TOUCH_KINDS = Object.freeze({ down: 1, move: 2, up: 3, cancel: 4 });
const CODECS = ['planar', 'remotefx', 'progressive', 'avc420', 'avc444'];
const FRAME_HEADER_WORDS = 7;
const POINTER_HEADER_WORDS = 4;
/** A wave record's header (wasm/src/audio_output.h); the PCM follows it. */
const AUDIO_HEADER_WORDS = 10;
/** Record word 8: the wave's format tag (WAVE_FORMAT_PCM, WAVE_FORMAT_OPUS as FreeRDP names it). */
const WAVE_FORMAT_OPUS = 0x704f;
const LAYOUTS = { bgrx: 1, rgbx: 2 };
const LAYOUT_NAMES = { 1: 'bgrx', 2: 'rgbx' };

/** Codec and feature switches a session advertises, mapped to FreeRDP settings. */
const PERFORMANCE_FLAGS = {
  wallpaper: 'FreeRDP_DisableWallpaper',
  fullWindowDrag: 'FreeRDP_DisableFullWindowDrag',
  menuAnimations: 'FreeRDP_DisableMenuAnims',
  themes: 'FreeRDP_DisableThemes',
};

/** FreeRDP_GfxCapsFilter bit for RDPGFX_CAPVERSION_101 (bit order of rdpgfx_is_capability_filtered). */
const GFX_CAPS_FILTER_VERSION_101 = 1 << 3;

/** Invitations Windows writes are 1–7 KB (the gateway takes at most the same). */
const MAX_INVITATION_CHARS = 12 * 1024;

/**
 * FreeRDP reads invitations by string search, so it expands no entity and loads
 * no DTD; refusing such markup (and oversized input) anyway keeps the client's
 * answer the same as the gateway's (gateway/src/assistance/boundedXml.ts).
 */
function checkInvitation(text) {
  if (typeof text !== 'string' || text.length === 0) throw new RdpSessionError('invalid-invitation', 'the remote assistance invitation is empty');
  if (text.length > MAX_INVITATION_CHARS) {
    throw new RdpSessionError('invalid-invitation', `the remote assistance invitation has ${text.length} characters, at most ${MAX_INVITATION_CHARS}`);
  }
  if (text.includes('<!') || /&(?!(amp|lt|gt|quot|apos|#[0-9]{1,7}|#x[0-9A-Fa-f]{1,6});)/.test(text)) {
    throw new RdpSessionError('invalid-invitation', 'the remote assistance invitation holds a DTD, entity or other markup an invitation never has');
  }
  if (!/<UPLOADINFO[\s>]/.test(text) || !/PassStub="/.test(text) || !/(LH|RC)TICKET="/.test(text)) {
    throw new RdpSessionError('invalid-invitation', 'not a remote assistance invitation (UPLOADINFO with a ticket and a PassStub)');
  }
}

export const RdpSessionError = codedErrorClass('RdpSessionError');

/** The client's module (LanternaRdp.load(createLanternaRdp from lanterna-rdp.js, …)) and its sessions (RdpSession). */
export class LanternaRdp extends EmscriptenHost {
  constructor(module) {
    super(module, new Set([EVENT.SEND, EVENT.FRAME, EVENT.POINTER_SET, EVENT.AUDIO]));
    /** H.264 decoders (WebCodecs) of every session, with their totals in `h264.stats`. */
    this.h264 = new H264Decoders(module);
  }

  sessionEnded(session) {
    return session.closed;
  }

  /** @param {import('./lanternaRdp.js').SessionOptions} options */
  createSession(options = {}) {
    const handle = this.module._lt_session_new();
    if (!handle) throw new RdpSessionError('internal', 'could not create an rdp session');
    const session = new RdpSession(this, handle);
    try {
      session.configure(options);
    } catch (err) {
      this.module._lt_session_free(handle);
      throw err;
    }
    this.sessions.set(handle, session);
    return session;
  }

  /**
   * Decoders belong to FreeRDP's H.264 contexts, which may outlive nothing but
   * are answered whether or not JS still knows the session.
   */
  hostEvent(kind, a) {
    if (kind === EVENT.H264_DECODE) this.h264.decode(a);
    else if (kind === EVENT.H264_CLOSE) this.h264.close(a);
    else return false;
    return true;
  }
}

/** The callbacks of an RdpSession (types in lanternaRdp.d.ts); assign the ones you need. */
const RDP_SESSION_CALLBACKS = [
  'onsend', 'onconnected', 'onresize', 'onframe', 'onpointer',
  'ontouchoffered', // whether the server has RDPEI open (multi-touch; sendTouch), when that changes
  'onaudio', // a wave of sound (options.audio); may return the ms until it is heard
  'ondisconnected',
];

export class RdpSession extends HostedSession {
  constructor(rdp, handle) {
    // state: new → connecting → connected → ended
    super(rdp, handle, {
      push: (ptr, length) => this.module._lt_session_push(this.handle, ptr, length),
      closeInput: () => this.module._lt_session_close_input(this.handle),
    }, RDP_SESSION_CALLBACKS);
    this.rdp = rdp;
    this.endReason = null;
    this.desktop = { width: 0, height: 0 };
    this.frames = 0;
    this.waves = 0;
    /** Waves the page could not play after onaudio took them (an Opus packet its decoder refused). */
    this.pageDroppedAudio = 0;
    /** Whether the server has RDPEI open (multi-touch; sendTouch). */
    this.touchOffered = false;
    this.closed = new Promise((resolve) => { this.resolveClosed = resolve; });
  }

  configure(options) {
    const set = (name, value) => {
      if (!this.#setString(name, String(value))) {
        throw new RdpSessionError('internal', `setting ${name} was refused`);
      }
    };
    const bool = (v) => (v ? 'TRUE' : 'FALSE');
    const width = options.width ?? 1920;
    const height = options.height ?? 1080;
    set('FreeRDP_DesktopWidth', width);
    set('FreeRDP_DesktopHeight', height);
    // [MS-RDPBCGR] 2.2.1.3.2: desktop 100–500 %, device 100, 140 or 180 % (FreeRDP refuses others)
    if (options.desktopScale !== undefined) set('FreeRDP_DesktopScaleFactor', options.desktopScale);
    if (options.deviceScale !== undefined) set('FreeRDP_DeviceScaleFactor', options.deviceScale);
    this.scale = { desktop: options.desktopScale ?? 0, device: options.deviceScale ?? 0 };
    const colorDepth = options.colorDepth ?? 32;
    if (![16, 24, 32].includes(colorDepth)) throw new RdpSessionError('internal', `unsupported colour depth ${colorDepth}`);
    set('FreeRDP_ColorDepth', colorDepth);
    if (options.username !== undefined) set('FreeRDP_Username', options.username);
    if (options.password !== undefined) set('FreeRDP_Password', options.password);
    if (options.domain !== undefined) set('FreeRDP_Domain', options.domain);
    if (options.serverName !== undefined) set('FreeRDP_ServerHostname', options.serverName);
    const gfx = options.gfx ?? true;
    set('FreeRDP_SupportGraphicsPipeline', bool(gfx));
    const codecs = new Set(options.codecs ?? CODECS);
    for (const c of codecs) {
      if (!CODECS.includes(c)) throw new RdpSessionError('internal', `unsupported codec ${c}`);
    }
    set('FreeRDP_GfxPlanar', bool(codecs.has('planar')));
    set('FreeRDP_RemoteFxCodec', bool(codecs.has('remotefx')));
    set('FreeRDP_GfxProgressive', bool(codecs.has('progressive')));
    set('FreeRDP_GfxProgressiveV2', bool(codecs.has('progressive')));
    // AVC only where the host checked that its VideoDecoder can decode it; otherwise
    // left out quietly, and the server picks progressive or RemoteFX instead
    const video = options.videoDecoder ?? { avc420: false, avc444: false, reason: 'no video decoder was checked (VideoDecoder.isConfigSupported)' };
    const avc444 = codecs.has('avc444') && video.avc444;
    const avc420 = (codecs.has('avc420') && video.avc420) || avc444;
    this.avc = { avc420, avc444, ...(codecs.has('avc420') || codecs.has('avc444') ? {} : { reason: 'not asked for' }),
      ...((codecs.has('avc420') && !video.avc420) || (codecs.has('avc444') && !video.avc444) ? { reason: video.reason } : {}) };
    // GfxH264 alone: AVC420 in the 8.1 set and no 10.x sets (FreeRDP's rdpgfx); with AVC444 the 10.x sets allow AVC
    set('FreeRDP_GfxH264', bool(avc420));
    set('FreeRDP_GfxAVC444', bool(avc444));
    set('FreeRDP_GfxAVC444v2', bool(avc444));
    // RDPGFX 10.1's capability set has no flags ([MS-RDPEGFX] 2.2.3.4), so it cannot say "no AVC",
    // and a server that picks it may send H.264 (FreeRDP's shadow server does): offer it only with AVC
    set('FreeRDP_GfxCapsFilter', avc444 ? 0 : GFX_CAPS_FILTER_VERSION_101);
    for (const [flag, name] of Object.entries(PERFORMANCE_FLAGS)) {
      const wanted = options.performance?.[flag];
      if (wanted !== undefined) set(name, bool(!wanted));
    }
    // raw FreeRDP settings last, so they win (replays that must match a recorded client)
    for (const [name, value] of Object.entries(options.freerdpSettings ?? {})) {
      set(name, typeof value === 'boolean' ? bool(value) : value);
    }
    if (options.assistance) {
      const { invitation, password } = options.assistance;
      checkInvitation(invitation);
      if (!this.#withStrings([invitation, String(password ?? '')], (a, b) => this.module._lt_session_set_assistance(this.handle, a, b))) {
        // only a type 2 invitation's ticket depends on the password (it is encrypted with it)
        if (invitation.includes('LHTICKET="')) {
          throw new RdpSessionError('wrong-password', 'the remote assistance ticket does not decrypt: wrong password, or a damaged invitation');
        }
        throw new RdpSessionError('invalid-invitation', 'the remote assistance invitation could not be read (fields missing or malformed)');
      }
    }
    // sound: rdpsnd with the page's device (wasm/src/audio_output.c); without it
    // FreeRDP's silent one answers the server, as before
    if (options.audio) {
      // audioOpus: the page decodes Opus (WebCodecs), so the device claims FreeRDP's tag 0x704F
      if (!this.module._lt_session_configure_audio(this.handle, options.audioAckTimeoutMs ?? 500, options.audioOpus === true ? 1 : 0)) {
        throw new RdpSessionError('internal', 'the audio channel could not be set up');
      }
    }
    this.layout = options.pixelLayout ?? 'bgrx';
    if (!(this.layout in LAYOUTS)) throw new RdpSessionError('internal', `unknown pixel layout ${this.layout}`);
    this.module._lt_session_configure(this.handle, LAYOUTS[this.layout], options.waitFrameAck === false ? 0 : 1,
      options.frameAckTimeoutMs ?? 1000, options.connectTimeoutMs ?? 20000);
  }

  /** Starts FreeRDP's connect on its own thread; its first onsend is the X.224 Connection Request. */
  start() {
    if (this.state !== 'new') throw new RdpSessionError('internal', 'session already started');
    if (!this.module._lt_session_start_thread(this.handle)) {
      throw new RdpSessionError('internal', 'could not start the rdp thread');
    }
    this.threadStarted('connecting');
  }

  /**
   * Asks the server to follow a new desktop size without reconnecting
   * (Display Control, [MS-RDPEDISP]); onresize follows when it does. False:
   * the server has not opened the channel (it may never): keep the size and
   * letterbox. Scales default to the session's.
   */
  requestSize(width, height, desktopScale = this.scale?.desktop ?? 0, deviceScale = this.scale?.device ?? 0) {
    if (this.state !== 'connected') return false;
    return this.module._lt_session_request_size(this.handle, width, height, desktopScale, deviceScale) === 1;
  }

  /**
   * Touch or mouse from the display as RDP mouse input (issue 30): FreeRDP's
   * PTR_FLAGS_* at desktop pixel (x, y), sent by the RDP thread at once.
   * False: not connected, or its queue is full (the event is lost). Whether
   * it may reach the server is the gateway's to enforce (docs/ink-and-touch.md).
   */
  sendMouse(flags, x, y) {
    if (this.state !== 'connected') return false;
    return this.module._lt_session_mouse(this.handle, flags, x, y) === 1;
  }

  /**
   * Multi-touch through RDPEI (issue 30, src/touch_input.h), while the server
   * has the channel open (touchOffered): one change of contact `id` (the
   * page's pointer id) — 'down', 'move', 'up' or 'cancel' — at desktop pixel
   * (x, y), with pressure 0–1024 where the panel gives one. FreeRDP's channel
   * numbers the contacts and frames them. False: not connected, the server has
   * no RDPEI (send mouse input instead), or the queue is full (the change is
   * lost). Whether it may reach the server is the page's to decide; the
   * gateway's gate does not see this channel (docs/ink-and-touch.md).
   */
  sendTouch(kind, id, x, y, pressure) {
    const code = TOUCH_KINDS[kind];
    if (this.state !== 'connected' || !this.touchOffered || code === undefined) return false;
    if (!Number.isInteger(id) || !Number.isFinite(x) || !Number.isFinite(y)) return false;
    const p = pressure === undefined ? -1 : Math.max(0, Math.min(1024, Math.round(pressure)));
    return this.module._lt_session_touch(this.handle, code, id | 0, Math.round(x), Math.round(y), p) === 1;
  }

  /** The gateway's `secured` message: the server's SubjectPublicKey (base64 or bytes). */
  secured(publicKey) {
    const bytes = typeof publicKey === 'string' ? decodeBase64(publicKey) : publicKey;
    const m = this.module;
    const ptr = m._malloc(bytes.length);
    // the heap is fixed and malloc returns 0 when it is full (CMakeLists.txt)
    if (!ptr) throw new RdpSessionError('out-of-memory', 'no room in the heap for the server public key');
    try {
      m.HEAPU8.set(bytes, ptr);
      if (!m._lt_session_set_public_key(this.handle, ptr, bytes.length)) {
        throw new RdpSessionError('protocol-error', 'the server public key was refused');
      }
    } finally {
      m._free(ptr);
    }
  }

  /** One binary frame from the gateway (whole PDUs). */
  receive(bytes) {
    if (this.state === 'ended') return;
    this.input.push(bytes);
  }

  /** The gateway socket is gone: FreeRDP drains what it has, then ends. */
  endOfInput() {
    this.input.end();
  }

  /** stop() of a running session (HostedSession); ondisconnected follows with reason 'stopped'. */
  stopThread() {
    this.module._lt_session_stop_thread(this.handle);
  }

  /** Tells the RDP thread the renderer is done with the surface (see onframe). */
  frameDone() {
    if (this.state !== 'ended') this.module._lt_session_frame_done(this.handle);
  }

  /** Waves whose hand-over (onaudio's return) came after the deadline. */
  get lateAudioAcks() {
    return this.state === 'ended' ? this.finalLateAudioAcks : this.module._lt_session_late_audio_acks(this.handle);
  }

  /**
   * Sound the client did not play: rdpsnd PDUs it dropped (malformed, longer than rdpsnd
   * allows, or past its queue's bound: patch 0015) and waves its device could not take.
   */
  get droppedAudio() {
    return (this.state === 'ended' ? this.finalDroppedAudio : this.module._lt_session_dropped_audio(this.handle)) + this.pageDroppedAudio;
  }

  /** The page could not play `count` waves it took from onaudio (a decoder's error): counted in droppedAudio. */
  audioDropped(count = 1) {
    if (Number.isInteger(count) && count > 0) this.pageDroppedAudio += count;
  }

  get lateFrameAcks() {
    return this.state === 'ended' ? this.finalLateAcks : this.module._lt_session_late_frame_acks(this.handle);
  }

  handleEvent(kind, a, b) {
    const m = this.module;
    switch (kind) {
      case EVENT.SEND:
        this.onsend(takePosted(m, a, b));
        break;
      case EVENT.CONNECTED:
        this.state = 'connected';
        this.desktop = { width: a, height: b };
        this.onconnected({ ...this.desktop });
        break;
      case EVENT.RESIZE:
        this.desktop = { width: a, height: b };
        this.onresize({ ...this.desktop });
        break;
      case EVENT.FRAME:
        this.#frame(a);
        break;
      case EVENT.AUDIO:
        this.#wave(a);
        break;
      case EVENT.POINTER_SET: {
        const h = new Int32Array(m.HEAP32.buffer, a, POINTER_HEADER_WORDS);
        const [width, height, hotX, hotY] = h;
        const rgba = m.HEAPU8.slice(a + POINTER_HEADER_WORDS * 4, a + POINTER_HEADER_WORDS * 4 + width * height * 4);
        m._free(a);
        this.onpointer({ kind: 'shape', width, height, hotX, hotY, rgba });
        break;
      }
      case EVENT.POINTER_HIDE:
        this.onpointer({ kind: 'hidden' });
        break;
      case EVENT.POINTER_DEFAULT:
        this.onpointer({ kind: 'default' });
        break;
      case EVENT.POINTER_POSITION:
        this.onpointer({ kind: 'position', x: a, y: b });
        break;
      case EVENT.TOUCH:
        this.touchOffered = a === 1;
        this.ontouchoffered(this.touchOffered);
        break;
      case EVENT.DISCONNECTED:
        this.finish({ reason: REASONS[a] ?? 'internal', code: b >>> 0 });
        break;
      default:
        break;
    }
  }

  #frame(ptr) {
    const m = this.module;
    const header = new Int32Array(m.HEAP32.buffer, ptr, FRAME_HEADER_WORDS);
    const [seq, pixelPtr, width, height, stride, layout, count] = header;
    const rects = new Int32Array(m.HEAP32.buffer, ptr + FRAME_HEADER_WORDS * 4, count * 4).slice();
    m._free(ptr);
    this.frames += 1;
    const frame = {
      seq, width, height, stride, layout: LAYOUT_NAMES[layout], rects,
      // a view, not a copy: valid until frameDone() (or the ack deadline)
      pixels: new Uint8Array(m.HEAPU8.buffer, pixelPtr >>> 0, stride * height),
    };
    let result;
    try {
      result = this.onframe(frame);
    } catch (err) {
      this.frameDone();
      throw err;
    }
    if (result && typeof result.then === 'function') {
      result.then(() => this.frameDone(), () => this.frameDone());
    } else {
      this.frameDone();
    }
  }

  #wave(ptr) {
    const m = this.module;
    const [seq, timestamp, audioTimestamp, block, channels, sampleRate, bitsPerSample, length, tag, frames] =
      new Int32Array(m.HEAP32.buffer, ptr, AUDIO_HEADER_WORDS);
    // a copy: the RDP thread's next wave reuses nothing, but the record is freed now
    const start = ptr + AUDIO_HEADER_WORDS * 4;
    const bytes = m.HEAPU8.slice(start, start + length);
    m._free(ptr);
    this.waves += 1;
    // an Opus packet goes on as the server sent it (the page decodes it); PCM as 16-bit samples
    const wave = tag === WAVE_FORMAT_OPUS
      ? { seq, timestamp, audioTimestamp, block, frames, packet: bytes, format: { encoding: 'opus', channels, sampleRate } }
      : { seq, timestamp, audioTimestamp, block, frames, samples: new Int16Array(bytes.buffer), format: { encoding: 'pcm', channels, sampleRate, bitsPerSample } };
    let delayMs = 0;
    try {
      const result = this.onaudio(wave);
      if (typeof result === 'number' && Number.isFinite(result) && result > 0) delayMs = Math.min(Math.round(result), 60000);
    } finally {
      // the channel's Wave Confirm reports this moment (+ delayMs) to the server
      if (this.state !== 'ended') m._lt_session_audio_played(this.handle, seq, delayMs);
    }
  }

  /** The session's end (HostedSession's stop and abandon call it too); touchWasm false: the module's threads are gone. */
  finish(end, { touchWasm = true } = {}) {
    if (this.state === 'ended') return;
    const counted = touchWasm && this.state !== 'new' && !this.rdp.terminated;
    this.finalLateAcks = counted ? this.module._lt_session_late_frame_acks(this.handle) : 0;
    this.finalLateAudioAcks = counted ? this.module._lt_session_late_audio_acks(this.handle) : 0;
    this.finalDroppedAudio = counted ? this.module._lt_session_dropped_audio(this.handle) : 0;
    this.release(this.rdp, touchWasm ? () => this.module._lt_session_free(this.handle) : null);
    this.endReason = end;
    this.ondisconnected(end);
    this.resolveClosed(end);
  }

  #setString(name, value) {
    return this.#withStrings([name, value], (n, v) => this.module._lt_session_set(this.handle, n, v));
  }

  #withStrings(strings, fn) {
    const m = this.module;
    const ptrs = strings.map((s) => {
      const size = m.lengthBytesUTF8(s) + 1;
      const p = m._malloc(size);
      if (p) m.stringToUTF8(s, p, size);
      return p;
    });
    try {
      if (ptrs.includes(0)) throw new RdpSessionError('out-of-memory', 'no room in the heap for a setting');
      return fn(...ptrs);
    } finally {
      for (const p of ptrs) {
        if (!p) continue;
        m.HEAPU8.fill(0, p, p + m.lengthBytesUTF8(m.UTF8ToString(p))); // passwords do not linger
        m._free(p);
      }
    }
  }
}

function decodeBase64(text) {
  if (typeof Buffer !== 'undefined') return new Uint8Array(Buffer.from(text, 'base64'));
  const raw = atob(text);
  return Uint8Array.from(raw, (ch) => ch.charCodeAt(0));
}
