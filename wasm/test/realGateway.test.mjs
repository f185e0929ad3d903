// The wasm client through the real gateway (gateway/, in process through the
// testkit): display control socket, admin projection request, `project`, then
// the CLI on the data socket. NLA, so CredSSP must bind to the key the gateway
// reports.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PNG } from 'pngjs';
import { Lab } from '@lanterna/lab';
import { connectControl, startTestGateway } from '@lanterna/testkit';

import { nearDesktop, startFlatDesktop } from './flatDesktop.mjs';
import { runCli } from './runCli.mjs';

const DISPLAY_TOKEN = 'wasm-display-token-0123456789';

test('through the real gateway: NLA session drawn and written as PNG by the CLI', async (t) => {
  const lab = await Lab.create({ name: 'wasm-real-gateway' });
  t.after(() => lab.close());
  const server = await startFlatDesktop(lab, { auth: 'nla' });
  const gateway = await startTestGateway({ displays: [{ id: 'wasm', token: DISPLAY_TOKEN }], certificates: { mode: 'first-use' } });
  t.after(() => gateway.close());
  const control = await connectControl(gateway.url, 'wasm', DISPLAY_TOKEN);
  t.after(() => control.close());
  const dir = mkdtempSync(join(tmpdir(), 'lanterna-wasm-gw-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));

  const response = await fetch(`${gateway.httpUrl}/v1/admin/sessions`, {
    method: 'POST', headers: { authorization: `Bearer ${gateway.adminToken}` },
    body: JSON.stringify({ displayId: 'wasm', target: { host: server.host, port: server.port } }),
  });
  assert.equal(response.status, 202);
  const project = await control.next('project');

  const out = join(dir, 'frame.png');
  const run = await runCli(['--gateway', gateway.url, '--session', String(project.sessionId),
    '--token', String(project.sessionToken), '--user', server.username, '--password', server.password,
    '--out', out, '--frames', '2', '--width', '1024', '--height', '768', '--timeout', '45']);
  assert.equal(run.code, 0, run.stderr);
  const png = PNG.sync.read(readFileSync(out));
  const mid = (384 * 1024 + 512) * 4;
  const centre = [...png.data.subarray(mid, mid + 3)];
  assert.ok(nearDesktop(centre), `centre pixel ${centre}`);
});
