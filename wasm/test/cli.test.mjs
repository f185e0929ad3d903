// The Node CLI (js/cli.mjs) as integration tests will use it: a real NLA
// shadow server behind the stand-in gateway; a PNG of the real desktop on
// success, a typed error and a non-zero exit on failure.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PNG } from 'pngjs';

import { startShadowServer } from './rdpServers.mjs';
import { startStandInGateway } from './standInGateway.mjs';
import { runCli } from './runCli.mjs';

const USER = { user: 'rdpuser', password: 'Passw0rd!' };

test('cli: connects, writes the drawn desktop as PNG, exits 0; a wrong password exits 1 with a typed error', async (t) => {
  const server = await startShadowServer({ auth: USER });
  t.after(() => server.stop());
  const gateway = await startStandInGateway({ host: server.host, port: server.port, token: 'secret' });
  t.after(() => gateway.close());
  const dir = mkdtempSync(join(tmpdir(), 'lanterna-cli-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const base = gateway.url.replace(/\/v1\/sessions\/.*$/, '');
  const out = join(dir, 'frame.png');

  const ok = await runCli(['--gateway', base, '--session', 'test', '--token', 'secret', '--user', USER.user,
    '--password', USER.password, '--out', out, '--frames', '2', '--width', '1024', '--height', '768', '--timeout', '40']);
  assert.equal(ok.code, 0, ok.stderr);
  const summary = JSON.parse(ok.stdout.trim().split('\n').at(-1));
  assert.equal(summary.width, 1024);
  assert.ok(summary.frames >= 2);
  const png = PNG.sync.read(readFileSync(out));
  assert.equal(png.width, 1024);
  assert.equal(png.height, 768);
  const mid = (384 * 1024 + 512) * 4;
  const centre = [...png.data.subarray(mid, mid + 3)];
  // lossy codecs: a flat colour comes back within a few steps
  assert.ok(centre.every((v, i) => Math.abs(v - [0x33, 0x66, 0xcc][i]) <= 6), `centre pixel ${centre}`);

  const bad = await runCli(['--gateway', base, '--session', 'test', '--token', 'secret', '--user', USER.user,
    '--password', 'wrong', '--out', join(dir, 'never.png'), '--timeout', '40']);
  assert.equal(bad.code, 1);
  assert.equal(JSON.parse(bad.stderr.trim().split('\n').at(-1)).error, 'wrong-password');
});
