// Replays recorded sessions into the wasm client and into its native twin
// (native/replay_native.c: the same glue and FreeRDP source and patches, built
// natively), alternating, N repeats, without and with FreeRDP's codec thread
// pool, and prints per recording: ms per frame (wall, first to last frame) and
// the wasm/native ratio; CPU time per frame (the whole process, all threads,
// connect to end; load on a shared machine stretches wall time more than CPU
// time; the wasm process also counts V8's compiler and GC threads); and whether
// both builds ended on the same picture. Both sides warm up with one untimed
// replay of the same recording first. Compare only within one run. The copy of
// each frame's rectangles into the shadow picture that "same output" hashes is the
// benchmark's, not the client's: both sides time it and leave it out of the wall
// and CPU figures (replayTiming.mjs); its CPU per frame is printed beside them.
//   node wasm/bench/replay-compare.mjs <native replay binary> [repeats=3] [recording …]
//   (one JSON line per run on stderr, the tables on stdout)
import { execFileSync } from 'node:child_process';
import { basename } from 'node:path';
import { listRecordings, readRecording, recordingPath } from '@lanterna/lab';

import { loadLanternaRdp } from '../js/nodeLoader.js';
import { timeWasmReplay } from './replayTiming.mjs';

// H.264 decodes only in a browser (WebCodecs); its page figures: e2e/src/bench/kioskFrameBench.ts
const SKIPPED = {
  'static-gfx': 'GFX AVC444v2 (H.264): Node has no WebCodecs (page vs native: e2e/src/kiosk/h264Replay.test.ts)',
  'cold-shadow': 'GFX AVC444 (H.264): Node has no WebCodecs (page vs native: e2e/src/kiosk/h264Replay.test.ts)',
};
const ABOUT = {
  'cold-xrdp': 'xrdp, connect and first frames: slow-path bitmaps',
  'xrdp-tls-default': 'xrdp, xterm typing 11 s: slow-path bitmaps, bulk-compressed',
  'static-nogfx-rfx': 'FreeRDP shadow, xterm typing 10.6 s: RemoteFX surface bits',
  'static-gfxprogressive': 'FreeRDP shadow, xterm typing 10.6 s: GFX progressive',
};

const [nativeBin, repeatsArg = '3', ...named] = process.argv.slice(2);
if (!nativeBin) throw new Error('usage: replay-compare.mjs <native replay binary> [repeats] [recording …]');
const repeats = Number(repeatsArg);
const names = named.length > 0 ? named
  : listRecordings().map((path) => basename(path, '.dump'));

function runNative(name, threaded) {
  const args = [recordingPath(name), '--warmup', ...(threaded ? [] : ['--single-threaded'])];
  const out = execFileSync(nativeBin, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], timeout: 600000 });
  const line = out.trim().split('\n').find((l) => l.startsWith('{'));
  if (!line) throw new Error(`no result from ${nativeBin} ${args.join(' ')}`);
  return JSON.parse(line);
}

const range = (values, digits) => {
  const sorted = [...values].sort((a, b) => a - b);
  const lo = sorted[0].toFixed(digits);
  const hi = sorted[sorted.length - 1].toFixed(digits);
  return lo === hi ? lo : `${lo}–${hi}`;
};

/** Same frame count and final-picture hash in every run of both builds. */
function sameOutput(runs) {
  const all = runs.flatMap((r) => [r.native, r.wasm]);
  const { frames, hash } = all[0];
  if (all.some((r) => r.frames !== frames || r.hash !== hash)) {
    const seen = [...new Set(all.map((r) => `${r.build} ${r.frames} frames ${r.hash}`))];
    return `false (${seen.join(', ')})`;
  }
  return hash === null ? 'no frames' : `true (${frames} frames, ${hash})`;
}

function printTable(name, byMode) {
  console.log(`\n${name}: ${ABOUT[name] ?? 'recorded session'}`);
  console.log('| codec threads | native ms/frame | wasm ms/frame | wasm/native | CPU ms/frame native / wasm | wasm/native, CPU | shadow copy CPU ms/frame native / wasm (left out) | same output |');
  console.log('|---|---|---|---|---|---|---|---|');
  for (const [mode, runs] of byMode) {
    const timed = runs.filter((r) => r.native.msPerFrame !== null && r.wasm.msPerFrame !== null);
    const cpuPerFrame = (r) => r.cpuMs / r.frames;
    const shadowPerFrame = (r) => r.shadowCpuMs / r.frames;
    const cells = timed.length === 0 ? ['—', '—', '—', '—', '—', '—'] : [
      range(timed.map((r) => r.native.msPerFrame), 2),
      range(timed.map((r) => r.wasm.msPerFrame), 2),
      range(timed.map((r) => r.wasm.msPerFrame / r.native.msPerFrame), 2),
      `${range(timed.map((r) => cpuPerFrame(r.native)), 2)} / ${range(timed.map((r) => cpuPerFrame(r.wasm)), 2)}`,
      range(timed.map((r) => r.wasm.cpuMs / r.native.cpuMs), 2),
      `${range(timed.map((r) => shadowPerFrame(r.native)), 2)} / ${range(timed.map((r) => shadowPerFrame(r.wasm)), 2)}`,
    ];
    console.log(`| ${mode} | ${cells.join(' | ')} | ${sameOutput(runs)} |`);
  }
}

const rdp = await loadLanternaRdp({ logLevel: 'OFF' });
try {
  console.log(`replay, wasm against native, ${repeats} repeats alternating, ms from the first to the last frame per frame`);
  for (const name of names) {
    if (SKIPPED[name]) {
      console.log(`\n${name}: skipped: ${SKIPPED[name]}`);
      continue;
    }
    const { records } = await readRecording(recordingPath(name));
    const byMode = new Map();
    for (const threaded of [false, true]) {
      await timeWasmReplay(rdp, name, records, { threaded }); // warm-up, as the native run does
      const runs = [];
      for (let i = 0; i < repeats; i += 1) {
        const native = runNative(name, threaded);
        const wasm = await timeWasmReplay(rdp, name, records, { threaded });
        process.stderr.write(`${JSON.stringify(native)}\n${JSON.stringify(wasm)}\n`);
        runs.push({ native, wasm });
      }
      byMode.set(threaded ? 'thread pool' : 'single-threaded', runs);
    }
    printTable(name, byMode);
  }
} finally {
  await rdp.close();
}
