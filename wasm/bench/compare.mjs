// Runs the native and the wasm codec benchmark side by side, alternating,
// several times (the machine is shared: only ratios measured in one run mean
// anything), and prints per codec, over the runs: the median frame time of
// each run (wall clock, as a range), the wasm/native ratio of those medians and
// of the median CPU time per frame (median over runs, and their range; CPU time
// leaves out the time other processes held the core, so it is the steadier
// figure on a busy machine; for the threaded codecs it is the work of all
// threads), the ratio of the fastest frames each build saw, and of the means.
//   node wasm/bench/compare.mjs <native binary> <wasm .js> [frames] [repeats] [codec,codec…]
import { execFileSync } from 'node:child_process';

const [nativeBin, wasmJs, framesArg = '20', repeatsArg = '3', onlyArg] = process.argv.slice(2);
if (!nativeBin || !wasmJs) throw new Error('usage: compare.mjs <native> <wasm.js> [frames] [repeats] [codecs]');
const ALL = ['planar', 'interleaved', 'remotefx', 'remotefxThreaded', 'progressive', 'progressiveThreaded', 'mppc', 'ncrush', 'xcrush'];
const CODECS = onlyArg ? onlyArg.split(',') : ALL;
const codecArgs = onlyArg ? [framesArg, onlyArg] : [framesArg];

const RUN_TIMEOUT_MS = 10 * 60 * 1000;

function run(command, args) {
  // A run that hangs (seen once: a wasm start that never began, 0 % CPU) must not hold the whole command.
  const out = execFileSync(command, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], timeout: RUN_TIMEOUT_MS, killSignal: 'SIGKILL' });
  const line = out.trim().split('\n').find((l) => l.startsWith('{'));
  if (!line) throw new Error(`no result from ${command} ${args.join(' ')}`);
  return JSON.parse(line);
}

const runs = [];
for (let i = 0; i < Number(repeatsArg); i += 1) {
  const native = run(nativeBin, codecArgs);
  const wasm = run(process.execPath, ['--no-experimental-fetch', wasmJs, ...codecArgs]);
  runs.push({ native, wasm });
  process.stderr.write(`${JSON.stringify(native)}\n${JSON.stringify(wasm)}\n`);
}

const sorted = (values) => [...values].sort((a, b) => a - b);
const median = (values) => {
  const s = sorted(values);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const range = (values, digits = 1) => {
  const s = sorted(values);
  const lo = s[0].toFixed(digits);
  const hi = s[s.length - 1].toFixed(digits);
  return lo === hi ? lo : `${lo}–${hi}`;
};
const first = runs[0];
console.log(`optimised primitives: native ${first.native.optimisedPrimitives}, wasm ${first.wasm.optimisedPrimitives}`);
console.log(`optimised 24→32 bpp copy equals the generic one: native ${first.native.copy24MatchesGeneric}, wasm ${first.wasm.copy24MatchesGeneric}`);
console.log(`${runs.length} runs of ${framesArg} frames; ms: each run's median frame (wall), range over runs; ratios: median over runs (range)`);
console.log('| codec | native ms | wasm ms | wasm/native, wall | wasm/native, CPU | fastest frames | means | same output |');
console.log('|---|---|---|---|---|---|---|---|');
const ratioCell = (ratios) => `${median(ratios).toFixed(2)} (${range(ratios, 2)})`;
for (const codec of CODECS) {
  const native = runs.map((r) => r.native[codec].medianMs);
  const wasm = runs.map((r) => r.wasm[codec].medianMs);
  const wall = runs.map((r) => r.wasm[codec].medianMs / r.native[codec].medianMs);
  const cpu = runs.map((r) => r.wasm[codec].cpuMedianMs / r.native[codec].cpuMedianMs);
  const fastest = Math.min(...runs.map((r) => r.wasm[codec].minMs)) / Math.min(...runs.map((r) => r.native[codec].minMs));
  const means = runs.map((r) => r.wasm[codec].ms / r.native[codec].ms);
  const a = first.native[codec];
  const b = first.wasm[codec];
  const same = a.hash !== undefined ? String(a.hash === b.hash) : String(a.bytes === b.bytes && a.exact === b.exact);
  console.log(`| ${codec} | ${range(native)} | ${range(wasm)} | ${ratioCell(wall)} | ${ratioCell(cpu)} | ${fastest.toFixed(2)} | ${range(means, 2)} | ${same} |`);
}
