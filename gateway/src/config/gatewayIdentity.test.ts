// Secrets in the state directory: made atomically and private, refused when
// short or open to others (an empty admin token once opened the admin API).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { configSchema } from './configSchema.js';
import { ensureGatewayIdentity, StateDirError } from './gatewayIdentity.js';

const cli = fileURLToPath(new URL('../cli.js', import.meta.url));

function stateDir(): string {
  return join(mkdtempSync(join(tmpdir(), 'lanterna-identity-')), 'state');
}

function identityFor(dir: string): ReturnType<typeof ensureGatewayIdentity> {
  return ensureGatewayIdentity({ ...configSchema.parse({}), stateDir: dir });
}

test('first start makes private secrets of the required length, atomically; a restart reads the same ones', async () => {
  const dir = stateDir();
  const first = await identityFor(dir);
  assert.equal(statSync(dir).mode & 0o777, 0o700);
  for (const name of ['admin-token', 'session-secret', 'gateway-key.pem']) assert.equal(statSync(join(dir, name)).mode & 0o777, 0o600, name);
  assert.ok(first.adminToken.length >= 16);
  assert.ok(first.sessionSecret.length >= 32);
  assert.deepEqual(readdirSync(dir).filter((name) => name.endsWith('.tmp')), [], 'no temp file is left behind');
  const again = await identityFor(dir);
  assert.equal(again.adminToken, first.adminToken);
  assert.deepEqual(again.sessionSecret, first.sessionSecret);
  assert.equal(again.tls.fingerprint, first.tls.fingerprint);
});

test('an empty or short admin token or session secret is refused at start, naming the file', async () => {
  for (const [name, content, need] of [['admin-token', '', 16], ['admin-token', 'short\n', 16], ['session-secret', '\n', 32], ['session-secret', 'x'.repeat(31), 32]] as const) {
    const dir = stateDir();
    mkdirSync(dir, { mode: 0o700 });
    writeFileSync(join(dir, name), content, { mode: 0o600 });
    await assert.rejects(identityFor(dir), (error: unknown) => error instanceof StateDirError
      && error.message.includes(join(dir, name)) && error.message.includes(`at least ${need}`), `${name} ${JSON.stringify(content)}`);
  }
});

test('a secret open to other users is refused; a state directory open to them is closed', async () => {
  const dir = stateDir();
  await identityFor(dir);
  chmodSync(join(dir, 'admin-token'), 0o644);
  await assert.rejects(identityFor(dir), /admin-token is open to other users \(mode 0644\)/);
  chmodSync(join(dir, 'admin-token'), 0o600);
  chmodSync(join(dir, 'gateway-key.pem'), 0o640);
  await assert.rejects(identityFor(dir), /gateway-key\.pem is open to other users/);
  chmodSync(join(dir, 'gateway-key.pem'), 0o600);
  chmodSync(dir, 0o755);
  const repaired = await identityFor(dir);
  assert.equal(statSync(dir).mode & 0o777, 0o700);
  assert.match(repaired.repairs.join('\n'), /was open to other users \(mode 0755\), now 0700/);
});

test('the CLI exits 2 with the reason when the admin token file is empty', () => {
  const dir = stateDir();
  mkdirSync(dir, { mode: 0o700 });
  writeFileSync(join(dir, 'admin-token'), '', { mode: 0o600 });
  const config = join(dir, '..', 'config.json');
  writeFileSync(config, JSON.stringify({ listen: { host: '127.0.0.1', port: 0, tls: false }, workers: 1, stateDir: dir }));
  const run = spawnSync(process.execPath, [cli, '--config', config], { encoding: 'utf8', timeout: 20_000 });
  assert.equal(run.status, 2, run.stderr);
  assert.match(run.stderr, /admin-token holds 0 characters, at least 16 are needed/);
});
