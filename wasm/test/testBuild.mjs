// The test build of the wasm module (wasm/build/test/, linked by build.sh from
// the product's objects plus test/hooks/*.c) with its hook methods added. The
// product module and js/lanternaRdp.js carry none of this.
//   probeWait(delayMs, timeoutMs): one WinPR wait on a pthread, timed
//     (hooks/wait_probe.c); resolves { result (0 signalled, 258 timeout),
//     waitedMs, roundTripMs (set → wake → answer; null when nothing signalled) }
//   coalesce(rects, width, height): the C dirty-rectangle coalescing
//     (src/dirty_rects.c through hooks/coalesce_export.c), [[x,y,w,h], …] in and out
import { join } from 'node:path';

import { DEFAULT_BUILD_DIR, loadLanternaRdp } from '../js/nodeLoader.js';

/** hooks/wait_probe.c's LT_TEST_EVENT_PROBE. */
const TEST_EVENT_PROBE = 100;

export const TEST_BUILD_DIR = join(process.env.LANTERNA_WASM_BUILD ?? DEFAULT_BUILD_DIR, 'test');

/** @param {{ logLevel?: string, print?: (s: string) => void }} [options] */
export async function loadTestLanternaRdp(options = {}) {
  const rdp = await loadLanternaRdp({ ...options, buildDir: TEST_BUILD_DIR });
  const module = rdp.module;
  if (typeof module._lt_probe_wait !== 'function' || typeof module._lt_coalesce !== 'function') {
    throw new Error(`the module at ${TEST_BUILD_DIR} has no test hooks (run bash wasm/build.sh)`);
  }
  const probeWaiters = [];
  const productEvent = module.lanternaEvent;
  module.lanternaEvent = (handle, kind, a, b, c, d) => {
    if (kind !== TEST_EVENT_PROBE) {
      productEvent(handle, kind, a, b, c, d);
      return;
    }
    probeWaiters.shift()?.({ result: a, waitedMs: b / 1000, roundTripMs: c < 0 ? null : c / 1000 });
  };

  rdp.probeWait = (delayMs, timeoutMs) => new Promise((resolve, reject) => {
    if (!module._lt_probe_wait(delayMs, timeoutMs)) {
      reject(new Error('probe did not start'));
      return;
    }
    // the answer comes from a pthread; keep the host's event loop alive for it
    const keepAlive = setInterval(() => {}, 1000);
    probeWaiters.push((outcome) => { clearInterval(keepAlive); resolve(outcome); });
  });

  rdp.coalesce = (rects, width, height) => {
    const ptr = module._malloc(Math.max(rects.length, 1) * 16);
    try {
      const words = new Int32Array(module.HEAP32.buffer, ptr, rects.length * 4);
      rects.forEach((r, i) => words.set(r, i * 4));
      const n = module._lt_coalesce(ptr, rects.length, width, height);
      const out = new Int32Array(module.HEAP32.buffer, ptr, n * 4);
      return Array.from({ length: n }, (_, i) => Array.from(out.subarray(i * 4, i * 4 + 4)));
    } finally {
      module._free(ptr);
    }
  };
  return rdp;
}
