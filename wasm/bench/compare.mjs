// Runs the native and the wasm codec benchmark side by side, alternating,
// several times (the machine is shared: only ratios measured in one run mean
// anything), and prints ms per frame as ranges and the wasm/native ratio.
//   node wasm/bench/compare.mjs <native binary> <wasm .js> [frames] [repeats]
import { execFileSync } from 'node:child_process';

const [nativeBin, wasmJs, framesArg = '20', repeatsArg = '3'] = process.argv.slice(2);
if (!nativeBin || !wasmJs) throw new Error('usage: compare.mjs <native> <wasm.js> [frames] [repeats]');
const CODECS = ['planar', 'interleaved', 'remotefx', 'remotefxThreaded', 'progressive', 'progressiveThreaded', 'mppc', 'ncrush', 'xcrush'];

function run(command, args) {
  const out = execFileSync(command, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  const line = out.trim().split('\n').find((l) => l.startsWith('{'));
  if (!line) throw new Error(`no result from ${command} ${args.join(' ')}`);
  return JSON.parse(line);
}

const runs = [];
for (let i = 0; i < Number(repeatsArg); i += 1) {
  const native = run(nativeBin, [framesArg]);
  const wasm = run(process.execPath, ['--no-experimental-fetch', wasmJs, framesArg]);
  runs.push({ native, wasm });
  process.stderr.write(`${JSON.stringify(native)}\n${JSON.stringify(wasm)}\n`);
}

const range = (values, digits = 1) => {
  const sorted = [...values].sort((a, b) => a - b);
  const lo = sorted[0].toFixed(digits);
  const hi = sorted[sorted.length - 1].toFixed(digits);
  return lo === hi ? lo : `${lo}–${hi}`;
};
const first = runs[0];
console.log(`optimised primitives: native ${first.native.optimisedPrimitives}, wasm ${first.wasm.optimisedPrimitives}`);
console.log(`optimised 24→32 bpp copy equals the generic one: native ${first.native.copy24MatchesGeneric}, wasm ${first.wasm.copy24MatchesGeneric}`);
console.log('| codec | native ms | wasm ms | wasm/native | same output |');
console.log('|---|---|---|---|---|');
for (const codec of CODECS) {
  const native = runs.map((r) => r.native[codec].ms);
  const wasm = runs.map((r) => r.wasm[codec].ms);
  const ratios = runs.map((r) => r.wasm[codec].ms / r.native[codec].ms);
  const a = first.native[codec];
  const b = first.wasm[codec];
  const same = a.hash !== undefined ? String(a.hash === b.hash) : String(a.bytes === b.bytes && a.exact === b.exact);
  console.log(`| ${codec} | ${range(native)} | ${range(wasm)} | ${range(ratios, 2)} | ${same} |`);
}
