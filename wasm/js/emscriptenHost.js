// What the client (lanternaRdp.js) and the presenter's server
// (lanternaPresenter.js) do alike with their Emscripten module: load it with
// FreeRDP's log level, route the C side's numbered events to the host, close
// it (sessions first, threads after), and throw errors with a code.

/**
 * Owns one Emscripten module and its sessions by handle. A subclass answers
 * dispatch(handle, kind, a, b, c, d) for the C side's events and
 * sessionEnded(session), the promise close waits on.
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

  constructor(module) {
    this.module = module;
    /** @type {Map<number, any>} */
    this.sessions = new Map();
    module.lanternaEvent = (handle, kind, a, b, c, d) => this.dispatch(handle, kind, a, b, c, d);
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
