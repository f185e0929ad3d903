// The command line as an admin meets it: exit 2 and one line per bad value;
// the full run on a display is in kioskOnDisplay.test.ts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const cli = fileURLToPath(new URL('./cli.js', import.meta.url));
const TOKEN = 'display-token-0123456789';

function run(args: string[], env: NodeJS.ProcessEnv = {}): { status: number | null; stdout: string; stderr: string } {
  // a clean environment: nothing of the machine's DISPLAY or LANTERNA_KIOSK_* leaks in
  const result = spawnSync(process.execPath, [cli, ...args], { encoding: 'utf8', timeout: 20_000, env: { PATH: process.env.PATH, ...env } });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

test('bad values from flags and environment: exit 2, one line each naming its source, the token not echoed', () => {
  const secret = 'tooshort';
  const result = run(['--gateway', 'gateway.example', '--display-id', 'room 1', '--display', 'zero'], { LANTERNA_KIOSK_DISPLAY_TOKEN: secret });
  assert.equal(result.status, 2);
  assert.match(result.stderr, /^lanterna-kiosk: invalid configuration:$/m);
  assert.match(result.stderr, /gateway: .* \(from --gateway\)/);
  assert.match(result.stderr, /displayId: .* \(from --display-id\)/);
  assert.match(result.stderr, /xDisplay: .* \(from --display\)/);
  assert.match(result.stderr, /displayToken: .* \(from LANTERNA_KIOSK_DISPLAY_TOKEN\)/);
  assert.ok(!result.stderr.includes(secret));
});

test('nothing given: exit 2 saying how to give each required value', () => {
  const result = run([]);
  assert.equal(result.status, 2);
  assert.match(result.stderr, /gateway: missing \(give --gateway, LANTERNA_KIOSK_GATEWAY/);
  assert.match(result.stderr, /displayId: missing/);
  assert.match(result.stderr, /displayToken: missing/);
});

test('an unreadable gateway certificate and an unknown flag or choice exit 2 too; --help exits 0', () => {
  const env = { LANTERNA_KIOSK_GATEWAY: 'https://gw.example:8443', LANTERNA_KIOSK_DISPLAY_ID: 'room-1', LANTERNA_KIOSK_DISPLAY_TOKEN: TOKEN };
  const certificate = run(['--gateway-certificate', '/nonexistent/gateway.pem'], env);
  assert.equal(certificate.status, 2);
  assert.match(certificate.stderr, /gatewayCertificate: cannot read \/nonexistent\/gateway\.pem \(ENOENT\)/);
  assert.equal(run(['--no-such-flag'], env).status, 2);
  assert.equal(run(['--webgl', 'vulkan'], env).status, 2);
  const help = run(['--help']);
  assert.equal(help.status, 0);
  assert.match(help.stdout, /--display-token/);
});

test('--check: a valid configuration from the environment exits 0 without starting anything', () => {
  const result = run(['--check'], { LANTERNA_KIOSK_GATEWAY: 'https://gw.example:8443', LANTERNA_KIOSK_DISPLAY_ID: 'room-1', LANTERNA_KIOSK_DISPLAY_TOKEN: TOKEN });
  assert.equal(result.status, 0, result.stderr);
  assert.equal(result.stdout, 'configuration is valid\n');
});
