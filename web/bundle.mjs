// Bundles the browser code with esbuild (ESM, one file per page or worker)
// into dist/public/ (served by the gateway) and the renderer lab into dist/lab/
// (tests and benchmarks only). Type checking is tsc's job, before this runs.
import { build } from 'esbuild';
import { access, copyFile, cp, mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const common = {
  bundle: true,
  format: 'esm',
  target: 'chrome110',
  sourcemap: true,
  minify: process.env.LANTERNA_WEB_MINIFY === '1',
  legalComments: 'none',
  logLevel: 'warning',
  absWorkingDir: here,
};

const publicDir = join(here, 'dist/public');
const labDir = join(here, 'dist/lab');
await mkdir(publicDir, { recursive: true });
await mkdir(labDir, { recursive: true });

await build({
  ...common,
  entryPoints: {
    display: 'src/pages/display/displayPage.ts',
    'render.worker': 'src/render/render.worker.ts',
    'session.worker': 'src/session/session.worker.ts',
  },
  outdir: publicDir,
});
await build({ ...common, entryPoints: { lab: 'src/lab/labPage.ts' }, outdir: labDir });

for (const [from, to] of [
  ['src/pages/display/display.html', join(publicDir, 'display.html')],
  ['src/pages/display/display.css', join(publicDir, 'display.css')],
  ['src/lab/lab.html', join(labDir, 'lab.html')],
]) {
  await copyFile(join(here, from), to);
}
// The wasm engine, when wasm/ has built it: copied beside the pages and
// announced in engine.json, which the page always finds (so no 404 at run time).
const wasmDir = process.env.LANTERNA_WASM_DIR ?? join(here, '../wasm/dist');
const engineModule = 'lanterna-rdp.js';
let manifest = { available: false };
try {
  await access(join(wasmDir, engineModule));
  await cp(wasmDir, join(publicDir, 'wasm'), { recursive: true });
  manifest = { available: true, module: `./wasm/${engineModule}` };
} catch {
  // not built yet: the page says so when a session starts
}
await writeFile(join(publicDir, 'engine.json'), `${JSON.stringify(manifest)}\n`);
console.log(`[web] engine ${manifest.available ? 'included' : 'absent'}`);
console.log(`[web] bundled into ${publicDir} and ${labDir}`);
