// What the client (lanternaRdp.js) and the presenter's server
// (lanternaPresenter.js) do alike with their Emscripten module: load it with
// FreeRDP's log level, route the C side's numbered events to the host, close
// it (sessions first, threads after), throw errors with a code; and what
// their sessions share (HostedSession).
import { RingFeeder } from './ringFeeder.js';

/**
 * Owns one Emscripten module and its sessions by handle, and routes the C
 * side's events to them. A subclass says which event kinds hand heap memory
 * over to JS (ownedKinds: freed here when no session takes the event), may
 * take events of its own first (hostEvent), and answers sessionEnded(session),
 * the promise close waits on.
 */
export class EmscriptenHost {
  /**
   * @param {(options: object) => Promise<any>} factory the Emscripten factory (createLanternaRdp, createLanternaPresenter)
   * @param {object} [moduleOptions] Emscripten module options (wasmBinary, locateFile, print, …)
   * @param {{ logLevel?: string }} [options] logLevel: FreeRDP's WLOG_LEVEL, set before the module runs
   */
  static async load(factory, moduleOptions = {}, options = {}) {
    const logLevel = options.logLevel ?? 'ERROR';
    const module = await factory({
      ...moduleOptions,
      preRun: [(m) => { m.ENV.WLOG_LEVEL = logLevel; }],
    });
    return new this(module);
  }

  /** @param {any} module @param {Set<number>} ownedKinds events whose first argument is heap memory JS frees */
  constructor(module, ownedKinds) {
    this.module = module;
    /** @type {Map<number, any>} */
    this.sessions = new Map();
    this.ownedKinds = ownedKinds;
    module.lanternaEvent = (handle, kind, a, b, c, d) => this.dispatch(handle, kind, a, b, c, d);
  }

  /** One event of the C side: the host's own, else its session's (or freed when the session is gone). */
  dispatch(handle, kind, a, b, c, d) {
    if (this.hostEvent(kind, a)) return;
    const session = this.sessions.get(handle);
    if (session) session.handleEvent(kind, a, b, c, d);
    else if (this.ownedKinds.has(kind)) this.module._free(a);
  }

  /** True when the host itself took this event (none by default). */
  hostEvent(_kind, _a) {
    return false;
  }

  /**
   * Ends every session (within deadlineMs), then every thread of the module.
   * Killing a thread that still runs (an RDP thread mid-stop, a codec worker)
   * can leave a lock or a join that the page's thread then waits on forever,
   * so the sessions end first; only the deadline passing forces the issue. In
   * Node a thread pool FreeRDP keeps for its codecs would otherwise hold the process.
   */
  async close(deadlineMs = 5000) {
    const sessions = [...this.sessions.values()];
    for (const session of sessions) session.stop();
    let timer;
    const deadline = new Promise((resolve) => { timer = setTimeout(resolve, deadlineMs); });
    await Promise.race([Promise.all(sessions.map((session) => this.sessionEnded(session))), deadline]);
    clearTimeout(timer);
    this.terminated = true;
    this.module.PThread?.terminateAllThreads();
    for (const session of this.sessions.values()) session.abandon();
  }
}

/**
 * What a session of an EmscriptenHost (RdpSession, PresenterSession) is made
 * of alike: its handle in the host's module, a state that starts at 'new' and
 * ends at 'ended', the gateway's bytes fed into its receive ring, callbacks
 * that do nothing until the caller assigns them, a live thread keeping the
 * process running, and what its end gives back to the host.
 */
export class HostedSession {
  /**
   * @param {EmscriptenHost} host
   * @param {number} handle the session in the host's module
   * @param {{ push: (ptr: number, length: number) => number, closeInput: () => void, mayCloseInput?: () => boolean }} ring the module's receive ring (RingFeeder)
   * @param {string[]} callbacks the on… callbacks a caller may assign
   */
  constructor(host, handle, ring, callbacks) {
    this.module = host.module;
    this.handle = handle;
    this.state = 'new';
    /** Gateway bytes into the receive ring; what finds no room waits there. */
    this.input = new RingFeeder(this.module, { ...ring, running: () => this.state !== 'ended' });
    for (const name of callbacks) this[name] = () => {};
  }

  /**
   * Ends the session; its end callback follows with reason 'stopped': at once
   * when its thread never started, else once the thread has stopped (the
   * subclass's stopThread asks it to).
   */
  stop() {
    if (this.state === 'ended') return;
    if (this.state === 'new') this.finish({ reason: 'stopped', code: 0 });
    else this.stopThread();
  }

  /** The module's threads were ended under this session (the host's close deadline): end it without touching wasm. */
  abandon() {
    this.finish({ reason: 'stopped', code: 0 }, { touchWasm: false });
  }

  /** The session's thread runs: it is a worker the host may not count, so a live session keeps the process running. */
  threadStarted(state) {
    this.state = state;
    this.keepAlive = setInterval(() => {}, 1000);
  }

  /**
   * The session has ended: its input and keep-alive stop, its handle is freed
   * (the thread has posted its last event: joining it is immediate) unless
   * the host killed every thread already (a join would never return) or
   * `free` is null, and the host forgets it.
   * @param {EmscriptenHost} host @param {(() => void) | null} free
   */
  release(host, free) {
    this.state = 'ended';
    this.input.cancel();
    if (this.keepAlive) clearInterval(this.keepAlive);
    if (free && !host.terminated) free();
    host.sessions.delete(this.handle);
  }
}

/**
 * An Error class whose errors carry a code a caller can act on; name says
 * which API threw it (RdpSessionError, PresenterError).
 * @param {string} name
 */
export function codedErrorClass(name) {
  return class extends Error {
    /** @param {string} code @param {string} message */
    constructor(code, message) {
      super(message);
      this.name = name;
      this.code = code;
    }
  };
}

/**
 * The bytes of one message the C side posted (lt_post_copy in
 * ../src/ring_layer.c: a PDU for the gateway), copied out of the heap and
 * freed there, as that event's contract asks of JS.
 * @param {any} module @param {number} ptr @param {number} length
 */
export function takePosted(module, ptr, length) {
  const bytes = module.HEAPU8.slice(ptr, ptr + length);
  module._free(ptr);
  return bytes;
}
