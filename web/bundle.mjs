// Bundles the browser code with esbuild (ESM, one file per page or worker)
// into dist/public/ (served by the gateway) and the renderer lab into dist/lab-pages/
// (tests and benchmarks only; `--product` leaves it out, as the image's build
// does). Type checking is tsc's job, before this runs.
import { build } from 'esbuild';
import { access, copyFile, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
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
const labDir = join(here, 'dist/lab-pages');
const withLab = !process.argv.includes('--product');
await mkdir(publicDir, { recursive: true });

// Every page opens with the same <head> lines, written here once: a page's
// source starts with a marker naming only what it adds, e.g.
// `<!-- page head: viewport; color-scheme light dark -->` (`<!-- page head -->`: none).
const HEAD_OPENING = ['<!doctype html>', '<html lang="en">', '<head>', '<meta charset="utf-8">', '<link rel="icon" href="data:,">'];
const HEAD_ADDITIONS = {
  viewport: () => '<meta name="viewport" content="width=device-width, initial-scale=1">',
  'color-scheme': (schemes) => `<meta name="color-scheme" content="${schemes}">`,
};
async function writePage(from, to) {
  const source = await readFile(join(here, from), 'utf8');
  const marker = /^<!-- page head(?:: ([^>]*))? -->\n/.exec(source);
  if (!marker) throw new Error(`bundle: ${from} does not start with its page head marker`);
  const additions = (marker[1] ?? '').split(';').map((item) => item.trim()).filter(Boolean).map((item) => {
    const [name, ...words] = item.split(' ');
    const addition = HEAD_ADDITIONS[name];
    if (!addition) throw new Error(`bundle: ${from} asks for an unknown head line '${name}'`);
    return addition(words.join(' '));
  });
  await writeFile(to, [...HEAD_OPENING, ...additions, source.slice(marker[0].length)].join('\n'));
}

await build({
  ...common,
  entryPoints: {
    display: 'src/pages/display/displayPage.ts',
    admin: 'src/pages/admin/adminPage.ts',
    present: 'src/pages/present/presentPage.ts',
    'render.worker': 'src/render/render.worker.ts',
    'audio.worklet': 'src/audio/playback.worklet.ts',
  },
  outdir: publicDir,
});
// The session worker (and the presenter page's share worker) is a classic worker: Emscripten 3.1.6's pthread glue is a
// classic script, and only a classic worker can importScripts it (a module
// worker would have to eval its text, which the page's CSP must not allow).
await build({
  ...common,
  format: 'iife',
  entryPoints: { 'session.worker': 'src/session/session.worker.ts', 'share.worker': 'src/pages/present/share.worker.ts' },
  outdir: publicDir,
});
// The replay page's engine module is loaded by the production session worker
// with import(), so it is an entry of its own.
if (withLab) {
  await mkdir(labDir, { recursive: true });
  await build({
    ...common,
    entryPoints: { lab: 'lab/labPage.ts', replay: 'lab/replayPage.ts', replayEngine: 'lab/replayEngine.ts' },
    outdir: labDir,
  });
  await writePage('lab/lab.html', join(labDir, 'lab.html'));
  await writePage('lab/replay.html', join(labDir, 'replay.html'));
}

for (const page of ['display/display', 'admin/admin', 'present/present']) {
  await writePage(`src/pages/${page}.html`, join(publicDir, `${page.split('/')[1]}.html`));
}
for (const [from, to] of [
  ['src/pages/display/display.css', join(publicDir, 'display.css')],
  ['src/pages/display/ink/ink.css', join(publicDir, 'ink.css')],
  ['src/pages/admin/admin.css', join(publicDir, 'admin.css')],
  ['src/pages/present/present.css', join(publicDir, 'present.css')],
]) {
  await copyFile(join(here, from), to);
}
// The wasm engines, when wasm/ has built them (bash wasm/build.sh → wasm/build/):
// the display's client (lanterna-rdp.*) and the presenter page's RDP server
// (lanterna-presenter.*). The Emscripten outputs and the JS API are copied
// beside the pages, keeping their relative layout (rdpEngine.js finds
// ../build/), and announced in engine.json, which the pages always find (so
// no 404 at run time): `module` for the display, `presenter` for /present.
const wasmBuild = process.env.LANTERNA_WASM_DIR ?? join(here, '../wasm/build');
const wasmJs = join(here, '../wasm/js');
const engines = {
  module: {
    emscripten: ['lanterna-rdp.js', 'lanterna-rdp.wasm', 'lanterna-rdp.worker.js'],
    api: ['rdpEngine.js', 'lanternaRdp.js', 'emscriptenHost.js', 'ringFeeder.js', 'projectSettings.js', 'h264Decoders.js', 'annexB.js', 'classicScript.js'],
    entry: './wasm/js/rdpEngine.js',
  },
  presenter: {
    emscripten: ['lanterna-presenter.js', 'lanterna-presenter.wasm', 'lanterna-presenter.worker.js'],
    api: ['lanternaPresenter.js', 'emscriptenHost.js', 'ringFeeder.js'],
    entry: './wasm/js/lanternaPresenter.js',
  },
};
const manifest = { available: false };
await rm(join(publicDir, 'wasm'), { recursive: true, force: true });
for (const [key, engine] of Object.entries(engines)) {
  try {
    await Promise.all([
      ...engine.emscripten.map((name) => access(join(wasmBuild, name))),
      ...engine.api.map((name) => access(join(wasmJs, name))),
    ]);
  } catch {
    // not built: the page says so plainly when a session starts
    continue;
  }
  await mkdir(join(publicDir, 'wasm/build'), { recursive: true });
  await mkdir(join(publicDir, 'wasm/js'), { recursive: true });
  for (const name of engine.emscripten) await copyFile(join(wasmBuild, name), join(publicDir, 'wasm/build', name));
  for (const name of engine.api) await copyFile(join(wasmJs, name), join(publicDir, 'wasm/js', name));
  manifest[key] = engine.entry;
  if (key === 'module') manifest.available = true;
}
await writeFile(join(publicDir, 'engine.json'), `${JSON.stringify(manifest)}\n`);
console.log(`[web] engine ${manifest.available ? 'included' : 'absent'}, presenter ${manifest.presenter ? 'included' : 'absent'}`);
console.log(`[web] bundled into ${publicDir}${withLab ? ` and ${labDir}` : ''}`);
