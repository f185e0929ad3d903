// The real image, opt-in: with LANTERNA_IMAGE_TEST=1 this runs
// deploy/build-image.sh --project (build with buildah, run the gateway and the
// presenter from their images, probe, project into Chromium). It costs about
// 15 min cold on 2 cores and needs root, buildah and debootstrap, so the
// default suite leaves it out (deploy/README.md says why). A pass is remembered
// under the Lanterna cache, keyed by the packaging inputs (Dockerfile, deploy/,
// the setup and build scripts, package lists, lock files, the wasm build's
// recipe), so a CI that sets the variable rebuilds only when those change; the
// product sources in between are covered by the rest of the suite.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { once } from 'node:events';
import { dirname, join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { lanternaCache, repositoryFile } from './repository.js';

const PACKAGING_INPUTS = [
  'Dockerfile', '.dockerignore', 'deploy', 'scripts/setup.sh', 'scripts/build.sh', 'scripts/apt-packages.txt',
  'scripts/python-requirements.txt', 'package.json', 'package-lock.json', 'wasm/build.sh', 'wasm/CMakeLists.txt',
  'wasm/scripts', 'wasm/patches',
];
const NOT_INPUTS = new Set(['dist', 'node_modules', 'README.md']);

function filesUnder(path: string): string[] {
  if (!statSync(repositoryFile(path)).isDirectory()) return [path];
  return readdirSync(repositoryFile(path)).filter((name) => !NOT_INPUTS.has(name)).sort().flatMap((name) => filesUnder(join(path, name)));
}

function packagingKey(): string {
  const hash = createHash('sha256');
  for (const file of PACKAGING_INPUTS.flatMap(filesUnder)) hash.update(file).update('\0').update(readFileSync(repositoryFile(file))).update('\0');
  return hash.digest('hex').slice(0, 16);
}

async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  server.close();
  await once(server, 'close');
  return port;
}

const enabled = process.env.LANTERNA_IMAGE_TEST === '1';

test('the image builds, runs as designed and projects a presenter (deploy/build-image.sh --project)', {
  skip: enabled ? false : 'set LANTERNA_IMAGE_TEST=1 to build and run the image (about 15 min cold; root, buildah, debootstrap)',
  timeout: 45 * 60_000,
}, async (t) => {
  const stamp = join(lanternaCache(), 'image-test', `${packagingKey()}.passed`);
  if (existsSync(stamp)) {
    t.diagnostic(`these packaging inputs passed before (${stamp}); not rebuilt`);
    return;
  }
  assert.equal(process.getuid?.(), 0, 'buildah with chroot isolation needs root');
  const child = spawn('bash', [repositoryFile('deploy/build-image.sh'), '--project', '--port', String(await freePort())], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const keep = (chunk: Buffer): void => { output += chunk.toString(); };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  const [code] = await once(child, 'exit') as [number | null];
  assert.equal(code, 0, output.slice(-4000));
  assert.match(output, /all checks passed/);
  t.diagnostic(output.split('\n').filter((line) => /^(image|timings|checks|projection)/.test(line)).join('\n'));
  mkdirSync(dirname(stamp), { recursive: true });
  writeFileSync(stamp, `${new Date().toISOString()}\n${output.slice(-2000)}`);
});
