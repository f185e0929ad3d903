// One timed replay of a recorded session into the wasm client: frames, ms from
// the first to the last frame, ms per frame, CPU time and the hash of the final
// picture (frameShadow.mjs), the figures native/replay_native.c prints for the
// native twin. Frames are acknowledged at once (no renderer), after their rectangles
// are copied into the shadow. That copy is the benchmark's own instrument, not the
// client's work, and it costs differently in JS (a typed-array copy out of the
// shared heap) and in C (memcpy), so both sides time it (wall clock and process
// CPU around each copy) and leave it out of their ms per frame and CPU figures;
// shadowMs and shadowCpuMs say how much was left out.
import { replayRecording } from '../tools/recordingReplay.js';
import { FrameShadow } from './frameShadow.mjs';

// FreeRDP's THREADING_FLAGS_DISABLE_THREADS: no codec thread pool
const DISABLE_THREADS = 1;

/**
 * @param {import('../js/lanternaRdp.js').LanternaRdp} rdp
 * @param {string} name the recording's name, for the result
 * @param {readonly { direction: string, data: Uint8Array }[]} records
 * @param {{ threaded?: boolean }} [options] threaded: FreeRDP's codec thread pool (the kiosk's default)
 */
export async function timeWasmReplay(rdp, name, records, options = {}) {
  const threaded = options.threaded ?? true;
  const shadow = new FrameShadow();
  let first = 0;
  let last = 0;
  let shadowMs = 0; // wall time in the shadow copy, between the first and the last frame
  let shadowCpuUs = 0; // process CPU time in the shadow copy, every frame
  let lastCopyMs = 0;
  const cpuStart = process.cpuUsage(); // the whole process, all threads, as the native twin's getrusage
  const result = await replayRecording(rdp, records, {
    keepLastFrame: false,
    session: { freerdpSettings: { FreeRDP_ThreadingFlags: threaded ? 0 : DISABLE_THREADS } },
    onframe: (frame) => {
      const t = performance.now();
      if (!first) first = t;
      if (last) shadowMs += lastCopyMs; // the previous frame's copy lies inside the span
      last = t;
      const cpuBefore = process.cpuUsage();
      shadow.apply(frame);
      const cpuCopy = process.cpuUsage(cpuBefore);
      lastCopyMs = performance.now() - t;
      shadowCpuUs += cpuCopy.user + cpuCopy.system;
    },
  });
  const cpu = process.cpuUsage(cpuStart);
  const span = last - first - shadowMs;
  return {
    recording: name, build: 'wasm', threaded, frames: result.frames, serverPdus: result.serverPdus,
    clientPdus: result.clientPdus, desktop: `${result.desktop?.width ?? 0}x${result.desktop?.height ?? 0}`,
    totalMs: Number(result.ms.toFixed(1)), cpuMs: Number(((cpu.user + cpu.system - shadowCpuUs) / 1000).toFixed(1)),
    firstToLastFrameMs: Number(span.toFixed(1)),
    shadowMs: Number((shadowMs + lastCopyMs).toFixed(1)), shadowCpuMs: Number((shadowCpuUs / 1000).toFixed(1)),
    msPerFrame: result.frames > 1 ? Number((span / (result.frames - 1)).toFixed(3)) : null,
    hash: result.frames > 0 ? shadow.hash() : null, end: result.end?.reason ?? null,
  };
}
