// What the client (lanternaRdp.js) and the presenter's server
// (lanternaPresenter.js) do alike with their Emscripten module: load it with
// FreeRDP's log level, and close it: sessions first, threads after.

/**
 * The module from an Emscripten factory, FreeRDP's WLOG_LEVEL set before it runs.
 * @param {(options: object) => Promise<any>} factory
 * @param {object} moduleOptions Emscripten module options (wasmBinary, locateFile, print, …)
 * @param {{ logLevel?: string }} options
 */
export function loadModule(factory, moduleOptions, options) {
  const logLevel = options.logLevel ?? 'ERROR';
  return factory({
    ...moduleOptions,
    preRun: [(m) => { m.ENV.WLOG_LEVEL = logLevel; }],
  });
}

/**
 * Ends every session of host, then the module's threads. Killing a thread
 * that still runs (an RDP thread mid-stop, a codec worker) can leave a lock
 * or a join that the page's thread then waits on forever, so the sessions end
 * first; only deadlineMs passing forces the issue. In Node a thread pool
 * FreeRDP keeps for its codecs would otherwise hold the process.
 * @param {{ module: any, sessions: Map<number, { stop(): void, abandon(): void }>, terminated?: boolean }} host
 * @param {(session: any) => Promise<unknown>} ended when a session has ended
 * @param {number} deadlineMs
 */
export async function closeModule(host, ended, deadlineMs) {
  const sessions = [...host.sessions.values()];
  for (const session of sessions) session.stop();
  let timer;
  const deadline = new Promise((resolve) => { timer = setTimeout(resolve, deadlineMs); });
  await Promise.race([Promise.all(sessions.map(ended)), deadline]);
  clearTimeout(timer);
  host.terminated = true;
  host.module.PThread?.terminateAllThreads();
  for (const session of host.sessions.values()) session.abandon();
}
