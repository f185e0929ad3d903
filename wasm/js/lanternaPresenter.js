// The JS face of the presenter's RDP server (wasm/src/presenter/): FreeRDP's
// peer, compiled to wasm, answering the display's client over a message
// channel. Owns the Emscripten module, turns the C side's numbered events into
// callbacks, and moves bytes in and out; knows nothing of WebSockets or of
// capture. Runs in a browser Worker and in Node.

import { EmscriptenHost, HostedSession, codedErrorClass, takePosted } from './emscriptenHost.js';

/** Why a presenter's session ended (enum lp_reason in src/presenter/presenter_events.h). */
export const PRESENTER_END_REASONS = Object.freeze({
  1: 'closed',
  2: 'stopped',
  3: 'protocol-error',
  4: 'internal',
  5: 'timeout',
});

const EVENT = Object.freeze({
  OUTPUT: 1, ACTIVE: 2, KEYFRAME_REQUEST: 3, FRAME_ACKED: 4, ENDED: 5, FRAME_DROPPED: 6,
  AUDIO_READY: 7, AUDIO_REFUSED: 8, AUDIO_SENT: 9, AUDIO_CONFIRMED: 10, AUDIO_DROPPED: 11,
  TOUCH_READY: 12, TOUCH: 13, TOUCH_OFF: 14,
});
/** RDPINPUT_CONTACT_FLAG_* ([MS-RDPEI] 2.2.3.3.1.1), for onTouch's readers. */
export const TOUCH_CONTACT_FLAGS = Object.freeze({ down: 0x01, update: 0x02, up: 0x04, inRange: 0x08, inContact: 0x10, canceled: 0x20 });
/** A touch record (src/presenter/touch_input.h): 2 header words, then 6 int32 words a contact. */
const TOUCH_HEADER_WORDS = 2;
const TOUCH_WORDS_PER_CONTACT = 6;
/** enum lp_audio_mode in src/presenter/audio_output.h */
const AUDIO_CHANNELS = Object.freeze({ static: 1, dynamic: 2 });
/** enum lp_audio_refusal in src/presenter/presenter_events.h (0: queued) */
const AUDIO_REFUSALS = Object.freeze({ 0: 'queued', 1: 'off', 2: 'not-ready', 3: 'full', 4: 'bad-audio' });
/** What one sendAudio may carry: 4 s at 48 kHz (lp_presenter_send_audio takes at most 192000 frames). */
const MAX_AUDIO_FRAMES = 192000;
/** One Opus packet at most: 7,680 bytes, 120 ms at 48 kHz (LP_OPUS_MAX_BYTES, LP_OPUS_MAX_FRAMES). */
const MAX_OPUS_BYTES = 7680;
const MAX_OPUS_FRAMES = 5760;
/** Frames in one Wave2 PDU at most (LP_WAVE2_MAX_DATA bytes of 16-bit frames): how a long call is cut. */
const WAVE2_MAX_FRAMES = (channels) => Math.floor(65523 / (2 * channels));
const DROP_REASONS = Object.freeze({ 1: 'replaced', 2: 'send-failed', 3: 'bad-frame', 4: 'avc-not-allowed' });
/** enum lp_codec in src/presenter/presenter.h */
const CODECS = Object.freeze({ uncompressed: 1, planar: 2 });
/** The largest side a presenter's picture may have (lp_presenter_create). */
const MAX_SIDE = 8192;

export const PresenterError = codedErrorClass('PresenterError');

/** The presenter's module (LanternaPresenter.load(createLanternaPresenter from lanterna-presenter.js, …)) and its sessions (PresenterSession). */
export class LanternaPresenter extends EmscriptenHost {
  constructor(module) {
    super(module, new Set([EVENT.OUTPUT, EVENT.TOUCH]));
  }

  sessionEnded(session) {
    return session.ended;
  }

  /**
   * A server for one display's client, drawing a width×height desktop. Call
   * start() on it, then feed() it the gateway's bytes.
   * @param {{ width: number, height: number, connectTimeoutMs?: number, freerdpSettings?: Record<string, string | number | boolean>,
   *   audio?: { channel: 'static' | 'dynamic', sampleRate: number, channels: number, opus?: boolean }, touch?: boolean }} options
   *   connectTimeoutMs: from start() to the client's activation (default 20 s), then the session ends 'timeout'
   *   audio: sound on the audio output channel, as 16-bit PCM at this rate and channel count (sendAudio);
   *     opus: Opus (48 kHz, these channels) is offered first, and a client that takes it gets
   *     sendAudioPacket's packets instead (onaudioready's codec says which)
   *   touch: false offers no RDPEI (multi-touch) channel, as a server without it (default: offered; ontouch)
   */
  createSession({ width, height, connectTimeoutMs = 20000, freerdpSettings = {}, audio, touch = true }) {
    if (!Number.isInteger(width) || !Number.isInteger(height) || width <= 0 || height <= 0 || width > MAX_SIDE || height > MAX_SIDE) {
      throw new PresenterError('bad-size', `desktop size ${width}x${height} is not 1..${MAX_SIDE} on each side`);
    }
    const handle = this.module._lp_presenter_new(width, height);
    if (!handle) throw new PresenterError('internal', 'could not create the rdp server');
    const session = new PresenterSession(this, handle, { width, height });
    session.connectTimeoutMs = connectTimeoutMs;
    for (const [name, value] of Object.entries(freerdpSettings)) {
      const text = typeof value === 'boolean' ? (value ? 'TRUE' : 'FALSE') : String(value);
      if (!session.setSetting(name, text)) {
        this.module._lp_presenter_free(handle);
        throw new PresenterError('internal', `setting ${name} was refused`);
      }
    }
    if (audio) {
      const mode = AUDIO_CHANNELS[audio.channel];
      if (!mode || !this.module._lp_presenter_configure_audio(handle, mode, audio.sampleRate, audio.channels, audio.opus === true ? 1 : 0)) {
        this.module._lp_presenter_free(handle);
        throw new PresenterError('bad-audio', `audio ${JSON.stringify(audio)}: channel static or dynamic, 8000..192000 Hz, 1 or 2 channels`);
      }
      session.audio = { channel: audio.channel, sampleRate: audio.sampleRate, channels: audio.channels, opus: audio.opus === true };
    }
    if (touch === false) this.module._lp_presenter_no_touch(handle);
    this.sessions.set(handle, session);
    return session;
  }
}

/** The callbacks of a PresenterSession (types in lanternaPresenter.d.ts); assign the ones you need. */
const PRESENTER_SESSION_CALLBACKS = [
  'onoutput', 'onactive', 'onkeyframerequest', 'onframeacked', 'onframedropped', 'onended',
  // sound (createSession's audio option)
  'onaudioready', 'onaudiorefused', 'onaudiosent', 'onaudioconfirm', 'onaudiodropped',
  // the display's multi-touch (RDPEI, offered to every client): what its client said in CS_READY, then its frames
  'ontouchready', 'ontouch', 'ontouchoff',
];

export class PresenterSession extends HostedSession {
  constructor(presenter, handle, desktop) {
    // state: new → running → active → ended
    super(presenter, handle, {
      push: (ptr, length) => this.module._lp_presenter_push(this.handle, ptr, length),
      closeInput: () => this.module._lp_presenter_close_input(this.handle),
      mayCloseInput: () => this.state !== 'ended' && this.state !== 'new',
    }, PRESENTER_SESSION_CALLBACKS);
    this.presenter = presenter;
    this.desktop = desktop;
    this.framesQueued = 0;
    /** What onactive reported, once the graphics channel is up. */
    this.active = null;
    // sound: createSession's audio option, then what the client chose
    this.audio = null;
    this.audioReady = null;
    // the display's multi-touch: what its client said in CS_READY
    this.touchReady = null;
    /** Block number → the wTimeStamp it was sent with (the last 256 blocks). */
    this.audioBlocks = new Map();
    this.ended = new Promise((resolve) => { this.resolveEnded = resolve; });
  }

  /** A FreeRDP setting of the server by name (before start). */
  setSetting(name, value) {
    const m = this.module;
    const ptrs = [name, value].map((s) => {
      const size = m.lengthBytesUTF8(s) + 1;
      const p = m._malloc(size);
      m.stringToUTF8(s, p, size);
      return p;
    });
    try {
      return m._lp_presenter_set(this.handle, ptrs[0], ptrs[1]) === 1;
    } finally {
      for (const p of ptrs) m._free(p);
    }
  }

  /**
   * The presenter certificate's SubjectPublicKey: what the gateway may report
   * to the display's client as the `secured` key (no NLA: the client only
   * checks that the report came).
   */
  get publicKey() {
    const m = this.module;
    const ptr = m._lp_presenter_public_key(this.handle);
    return m.HEAPU8.slice(ptr, ptr + m._lp_presenter_public_key_length(this.handle));
  }

  /** Starts the peer's thread; it waits for the client's Connection Request. */
  start() {
    if (this.state !== 'new') throw new PresenterError('internal', 'session already started');
    if (!this.module._lp_presenter_start_thread(this.handle, this.connectTimeoutMs)) throw new PresenterError('internal', 'could not start the rdp server thread');
    this.threadStarted('running');
  }

  /** Bytes from the gateway (the display client's PDUs; any split is fine). */
  feed(bytes) {
    if (this.state === 'ended') return;
    this.input.push(bytes);
  }

  /** The gateway's socket is gone: the server drains what it has, then ends. */
  endOfInput() {
    this.input.end();
  }

  /**
   * A picture for the display: a width×height rectangle at (x, y) of the
   * desktop, `pixels` in B,G,R,X bytes, `stride` bytes per row (default
   * width×4). Copied at once; the newest picture not yet sent replaces older
   * ones. Sent once the client's graphics channel is up (onactive).
   * @param {{ x?: number, y?: number, width: number, height: number, stride?: number, pixels: Uint8Array, codec?: 'uncompressed' | 'planar' }} frame
   */
  sendFrame({ x = 0, y = 0, width, height, stride = width * 4, pixels, codec = 'uncompressed' }) {
    if (this.state === 'ended' || this.state === 'new') throw new PresenterError('not-running', `cannot send a picture in state ${this.state}`);
    const codecId = CODECS[codec];
    if (!codecId) throw new PresenterError('bad-frame', `unknown codec ${codec}`);
    const length = stride * height;
    if (!(pixels instanceof Uint8Array) || pixels.length < length) {
      throw new PresenterError('bad-frame', `a ${width}x${height} picture with stride ${stride} needs ${length} bytes`);
    }
    const m = this.module;
    const ptr = m._malloc(length);
    if (!ptr) throw new PresenterError('internal', 'out of memory for a picture');
    m.HEAPU8.set(pixels.subarray(0, length), ptr);
    // the C side owns ptr from here, also when it refuses the picture
    if (!m._lp_presenter_send_frame(this.handle, codecId, x, y, width, height, stride, ptr)) {
      throw new PresenterError('bad-frame', `picture ${width}x${height} at ${x},${y} does not fit the ${this.desktop.width}x${this.desktop.height} desktop`);
    }
    this.framesQueued += 1;
  }

  /**
   * An H.264 access unit (Annex-B, as WebCodecs' VideoEncoder gives it with
   * `avc: { format: 'annexb' }`) for the width×height rectangle at (x, y), sent
   * as GFX AVC420. Only once onactive said `avc420: true`: the client's
   * capabilities must take it. Copied at once; the newest picture wins as for
   * sendFrame.
   * @param {{ x?: number, y?: number, width: number, height: number, accessUnit: Uint8Array }} unit
   */
  sendAvc420({ x = 0, y = 0, width, height, accessUnit }) {
    if (this.state !== 'active') throw new PresenterError('not-active', `an H.264 picture needs an active graphics channel (state ${this.state})`);
    if (!this.active.avc420) throw new PresenterError('avc-not-allowed', "the display's client did not take AVC420 in its graphics capabilities");
    if (!(accessUnit instanceof Uint8Array) || accessUnit.length === 0) throw new PresenterError('bad-frame', 'an access unit is a non-empty Uint8Array');
    const m = this.module;
    const ptr = m._malloc(accessUnit.length);
    if (!ptr) throw new PresenterError('internal', 'out of memory for an access unit');
    m.HEAPU8.set(accessUnit, ptr);
    // the C side owns ptr from here, also when it refuses the unit
    if (!m._lp_presenter_send_avc420(this.handle, x, y, width, height, ptr, accessUnit.length)) {
      throw new PresenterError('bad-frame', `H.264 picture ${width}x${height} at ${x},${y} does not fit the ${this.desktop.width}x${this.desktop.height} desktop`);
    }
    this.framesQueued += 1;
  }

  /**
   * Sound for the display: interleaved 16-bit samples (frames × channels) at the
   * rate and channel count given to createSession, starting at timestampMs (the
   * page's clock; the wave's wTimeStamp is it modulo 65536). Copied at once and
   * sent in order once the display's client chose the format (onaudioready).
   * Returns 'queued', or why not: 'off' (no sound channel), 'not-ready' (the
   * client has not chosen yet), 'full' (about 5 s already wait).
   * @param {Int16Array} samples @param {number} sampleRate @param {number} channels @param {number} timestampMs
   * @returns {'queued' | 'off' | 'not-ready' | 'full'}
   */
  sendAudio(samples, sampleRate, channels, timestampMs) {
    if (this.state === 'ended' || this.state === 'new') throw new PresenterError('not-running', `cannot send sound in state ${this.state}`);
    if (!this.audio) return 'off';
    if (!(samples instanceof Int16Array) || samples.length === 0 || samples.length % channels !== 0) {
      throw new PresenterError('bad-audio', 'sound is a non-empty Int16Array of whole frames (frames × channels)');
    }
    if (sampleRate !== this.audio.sampleRate || channels !== this.audio.channels) {
      throw new PresenterError('bad-audio', `sound at ${sampleRate} Hz × ${channels}; this session sends ${this.audio.sampleRate} Hz × ${this.audio.channels}`);
    }
    if (this.audioReady?.codec === 'opus') throw new PresenterError('bad-audio', 'the display\'s client chose Opus: send sendAudioPacket');
    const frames = samples.length / channels;
    if (frames > MAX_AUDIO_FRAMES || !Number.isFinite(timestampMs) || timestampMs < 0) {
      throw new PresenterError('bad-audio', `at most ${MAX_AUDIO_FRAMES} frames per call, and a timestamp ≥ 0 ms`);
    }
    const m = this.module;
    const ptr = m._malloc(samples.byteLength);
    if (!ptr) return 'full';
    m.HEAPU8.set(new Uint8Array(samples.buffer, samples.byteOffset, samples.byteLength), ptr);
    // the C side owns ptr from here, also when it refuses the samples
    const rc = m._lp_presenter_send_audio(this.handle, ptr, frames, sampleRate, channels, Math.floor(timestampMs));
    const result = AUDIO_REFUSALS[rc] ?? 'bad-audio';
    if (result === 'bad-audio') throw new PresenterError('bad-audio', 'the sound was refused');
    return result;
  }

  /**
   * One Opus packet (as WebCodecs' AudioEncoder makes it) of `frames` at 48 kHz, starting at
   * timestampMs; once the display's client chose Opus (onaudioready's codec 'opus'). Copied at
   * once; sent as it is, one Wave2 PDU. 'queued', or why not (as sendAudio).
   * @param {Uint8Array} packet @param {number} frames @param {number} timestampMs
   * @returns {'queued' | 'off' | 'not-ready' | 'full'}
   */
  sendAudioPacket(packet, frames, timestampMs) {
    if (this.state === 'ended' || this.state === 'new') throw new PresenterError('not-running', `cannot send sound in state ${this.state}`);
    if (!this.audio) return 'off';
    if (!(packet instanceof Uint8Array) || packet.length === 0 || packet.length > MAX_OPUS_BYTES) {
      throw new PresenterError('bad-audio', `an Opus packet is a Uint8Array of 1..${MAX_OPUS_BYTES} bytes`);
    }
    if (!Number.isInteger(frames) || frames <= 0 || frames > MAX_OPUS_FRAMES || !Number.isFinite(timestampMs) || timestampMs < 0) {
      throw new PresenterError('bad-audio', `an Opus packet holds 1..${MAX_OPUS_FRAMES} frames, and a timestamp ≥ 0 ms`);
    }
    if (this.audioReady && this.audioReady.codec !== 'opus') {
      throw new PresenterError('bad-audio', 'the display\'s client chose PCM: send sendAudio');
    }
    const m = this.module;
    const ptr = m._malloc(packet.length);
    if (!ptr) return 'full';
    m.HEAPU8.set(packet, ptr);
    // the C side owns ptr from here, also when it refuses the packet
    const rc = m._lp_presenter_send_audio_packet(this.handle, ptr, packet.length, frames, Math.floor(timestampMs));
    const result = AUDIO_REFUSALS[rc] ?? 'bad-audio';
    if (result === 'bad-audio') throw new PresenterError('bad-audio', 'the packet was refused');
    return result;
  }

  /** stop() of a running session (HostedSession); onended follows with reason 'stopped'. */
  stopThread() {
    this.module._lp_presenter_stop_thread(this.handle);
  }

  handleEvent(kind, a, b, c, d) {
    const m = this.module;
    switch (kind) {
      case EVENT.OUTPUT:
        this.onoutput(takePosted(m, a, b));
        break;
      case EVENT.ACTIVE:
        this.state = 'active';
        this.active = { width: a, height: b, avc420: c === 1 };
        this.onactive({ ...this.active });
        break;
      case EVENT.KEYFRAME_REQUEST:
        this.onkeyframerequest();
        break;
      case EVENT.FRAME_ACKED:
        this.onframeacked({ frameId: a >>> 0, framesSent: b >>> 0, queueDepth: c >>> 0 });
        break;
      case EVENT.FRAME_DROPPED:
        this.onframedropped({ frameId: a >>> 0, reason: DROP_REASONS[b] ?? 'unknown' });
        break;
      case EVENT.AUDIO_READY:
        this.audioReady = { sampleRate: a, channels: b, clientVersion: c, channel: (d & 1) === 1 ? 'dynamic' : 'static', codec: (d & 2) === 2 ? 'opus' : 'pcm' };
        this.onaudioready({ ...this.audioReady });
        break;
      case EVENT.AUDIO_REFUSED:
        this.onaudiorefused({ clientFormats: a, clientVersion: c });
        break;
      case EVENT.AUDIO_SENT:
        // one wave per block; a call may have made several (64 KiB each) or, for
        // a client before version 8, none yet (FreeRDP cuts its own blocks)
        for (let i = 0; i < b; i++) {
          // (an Opus packet is one wave: i is 0)
          const offsetMs = (this.audioReady?.clientVersion ?? 0) >= 8 ? Math.floor(i * WAVE2_MAX_FRAMES(this.audio.channels) * 1000 / this.audio.sampleRate) : 0;
          this.audioBlocks.set((a + i) & 0xff, (c + offsetMs) & 0xffff);
        }
        this.onaudiosent({ block: a, blocks: b, timestamp: c >>> 0, frames: d });
        break;
      case EVENT.AUDIO_CONFIRMED: {
        // FreeRDP's client confirms each wave twice: on arrival (its own wTimeStamp),
        // then once handed on (wTimeStamp + the ms that took + the player's delay)
        const sent = this.audioBlocks.get(a);
        this.onaudioconfirm({ block: a, timestamp: b, ...(sent === undefined ? {} : { delayMs: (b - sent + 0x10000) & 0xffff }) });
        break;
      }
      case EVENT.AUDIO_DROPPED:
        this.onaudiodropped({ timestamp: a >>> 0, frames: b });
        break;
      case EVENT.TOUCH_READY:
        this.touchReady = { protocolVersion: a >>> 0, maxTouchContacts: b, flags: c >>> 0 };
        this.ontouchready({ ...this.touchReady });
        break;
      case EVENT.TOUCH: {
        // the record is int32s from a calloc: aligned, read in place then freed
        const words = m.HEAP32.subarray(a >> 2, (a >> 2) + TOUCH_HEADER_WORDS + (b * TOUCH_WORDS_PER_CONTACT));
        const contacts = [];
        for (let i = 0; i < b; i++) {
          const at = TOUCH_HEADER_WORDS + (i * TOUCH_WORDS_PER_CONTACT);
          const pressure = words[at + 4];
          contacts.push({ id: words[at], flags: words[at + 1] >>> 0, x: words[at + 2], y: words[at + 3], ...(pressure >= 0 ? { pressure } : {}), fieldsPresent: words[at + 5] });
        }
        const frameOffsetUs = words[1];
        m._free(a);
        this.ontouch({ contacts, frameOffsetUs });
        break;
      }
      case EVENT.TOUCH_OFF:
        this.ontouchoff({ code: a >>> 0 });
        break;
      case EVENT.ENDED:
        this.finish({ reason: PRESENTER_END_REASONS[a] ?? 'internal', code: b >>> 0 });
        break;
      default:
        break;
    }
  }

  /** The session's end (HostedSession's stop and abandon call it too); touchWasm false: the module's threads are gone. */
  finish(end, { touchWasm = true } = {}) {
    if (this.state === 'ended') return;
    this.release(this.presenter, touchWasm ? () => this.module._lp_presenter_free(this.handle) : null);
    this.onended(end);
    this.resolveEnded(end);
  }
}
