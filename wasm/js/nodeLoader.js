// Loads the Emscripten build (wasm/build/) into Node. The glue is a classic
// CommonJS script, so it comes in through require; the .wasm bytes are passed
// in so Emscripten never tries Node 20's fetch() on a file path.
import { createRequire } from 'node:module';
import { readFileSync, existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join, dirname } from 'node:path';

import { LanternaRdp } from './lanternaRdp.js';
import { LanternaPresenter } from './lanternaPresenter.js';

/**
 * What Node can decode of GFX H.264: nothing, there is no WebCodecs VideoDecoder.
 * Sessions in Node never advertise AVC420/AVC444 (SessionOptions.videoDecoder), and
 * one whose server sends H.264 anyway ends with `video-unsupported`; H.264 runs in
 * the browser (the page's replay lab, e2e).
 */
export const NODE_VIDEO_DECODER = Object.freeze({
  avc420: false,
  avc444: false,
  reason: 'AVC is unavailable in Node: no WebCodecs VideoDecoder (H.264 decodes only in a browser)',
});

export const DEFAULT_BUILD_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', 'build');

/**
 * The factory and module options of one of the build's modules (`name`.js/.wasm).
 * @param {string} name @param {{ buildDir?: string, print?: (s: string) => void }} options
 */
function moduleFromBuild(name, options) {
  const buildDir = options.buildDir ?? process.env.LANTERNA_WASM_BUILD ?? DEFAULT_BUILD_DIR;
  const script = join(buildDir, `${name}.js`);
  if (!existsSync(script)) throw new Error(`no ${name} in the wasm build at ${buildDir} (run bash wasm/build.sh)`);
  const require = createRequire(import.meta.url);
  const factory = require(script);
  const print = options.print ?? ((line) => process.stderr.write(`${line}\n`));
  return {
    factory,
    moduleOptions: {
      wasmBinary: readFileSync(join(buildDir, `${name}.wasm`)),
      locateFile: (file) => join(buildDir, file),
      mainScriptUrlOrBlob: script,
      print,
      printErr: print,
    },
  };
}

/** @param {{ buildDir?: string, logLevel?: string, print?: (s: string) => void }} [options] */
export async function loadLanternaRdp(options = {}) {
  const { factory, moduleOptions } = moduleFromBuild('lanterna-rdp', options);
  const rdp = await LanternaRdp.load(factory, moduleOptions, { logLevel: options.logLevel });
  unrefWorkers(rdp.module.PThread);
  return rdp;
}

/** The presenter's RDP server (lanterna-presenter.js). @param {{ buildDir?: string, logLevel?: string, print?: (s: string) => void }} [options] */
export async function loadLanternaPresenter(options = {}) {
  const { factory, moduleOptions } = moduleFromBuild('lanterna-presenter', options);
  const presenter = await LanternaPresenter.load(factory, moduleOptions, { logLevel: options.logLevel });
  unrefWorkers(presenter.module.PThread);
  return presenter;
}

// Emscripten's pthread pool are worker_threads that would keep Node running
// after everything else is done; open sockets and timers keep it alive instead.
function unrefWorkers(pthreads) {
  const unrefAll = () => {
    for (const worker of [...pthreads.unusedWorkers, ...pthreads.runningWorkers]) worker.unref?.();
  };
  // a worker made on demand gets its 'message' listener after allocation: unref once it is ready
  const getNewWorker = pthreads.getNewWorker.bind(pthreads);
  pthreads.getNewWorker = () => {
    const worker = getNewWorker();
    unrefAll();
    return worker;
  };
  unrefAll();
}
