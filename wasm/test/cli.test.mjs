// The Node CLI (tools/cli.mjs) as integration tests will use it: a real NLA
// shadow server from the lab behind the real gateway (in process, testkit); a
// PNG of the real desktop on success, a typed error and a non-zero exit on failure.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PNG } from 'pngjs';
import { Lab } from '@lanterna/lab';
import { startProjectingGateway } from '@lanterna/testkit';

import { nearDesktop, startFlatDesktop } from './flatDesktop.mjs';
import { runCli } from './runCli.mjs';

test('cli: connects, writes the drawn desktop as PNG, exits 0; a wrong password exits 1 with a typed error', async (t) => {
  const lab = await Lab.create({ name: 'wasm-cli' });
  t.after(() => lab.close());
  const server = await startFlatDesktop(lab, { auth: 'nla' });
  const projecting = await startProjectingGateway({ displayId: 'cli' });
  t.after(() => projecting.close());
  const dir = mkdtempSync(join(tmpdir(), 'lanterna-cli-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const out = join(dir, 'frame.png');

  const first = await projecting.project(server);
  const ok = await runCli(['--gateway', projecting.gateway.url, '--session', first.sessionId, '--token', first.token, '--user', server.username,
    '--password', server.password, '--out', out, '--frames', '2', '--width', '1024', '--height', '768', '--timeout', '40']);
  assert.equal(ok.code, 0, ok.stderr);
  const summary = JSON.parse(ok.stdout.trim().split('\n').at(-1));
  assert.equal(summary.width, 1024);
  assert.ok(summary.frames >= 2);
  const png = PNG.sync.read(readFileSync(out));
  assert.equal(png.width, 1024);
  assert.equal(png.height, 768);
  const mid = (384 * 1024 + 512) * 4;
  const centre = [...png.data.subarray(mid, mid + 3)];
  assert.ok(nearDesktop(centre), `centre pixel ${centre}`);

  const second = await projecting.project(server);
  const bad = await runCli(['--gateway', projecting.gateway.url, '--session', second.sessionId, '--token', second.token, '--user', server.username,
    '--password', 'wrong', '--out', join(dir, 'never.png'), '--timeout', '40']);
  assert.equal(bad.code, 1);
  assert.equal(JSON.parse(bad.stderr.trim().split('\n').at(-1)).error, 'wrong-password');
});
