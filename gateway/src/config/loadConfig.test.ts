import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig, ConfigError } from './loadConfig.js';

function file(content: unknown): string {
  const path = join(mkdtempSync(join(tmpdir(), 'lanterna-config-')), 'config.json');
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
  return path;
}

test('defaults give a TLS listener on 8443, private targets on 3389, first-use pinning', () => {
  const config = loadConfig({ env: {} });
  assert.equal(config.listen.port, 8443);
  assert.equal(config.listen.tls, true);
  assert.deepEqual(config.policy.allowPorts, ['3389']);
  assert.ok(config.policy.allowNetworks.includes('192.168.0.0/16'));
  assert.equal(config.certificates.mode, 'first-use');
  assert.match(config.stateDir, /lanterna$/);
});

test('env overrides the file, and numbers and booleans are parsed', () => {
  const path = file({ listen: { port: 9000, tls: true }, workers: 2 });
  const config = loadConfig({ file: path, env: { LANTERNA_LISTEN_PORT: '9100', LANTERNA_LISTEN_TLS: 'false' } });
  assert.equal(config.listen.port, 9100);
  assert.equal(config.listen.tls, false);
  assert.equal(config.workers, 2);
});

test('every bad value is reported with where it came from', () => {
  const path = file({ listen: { port: 70000 }, displays: [{ id: 'bad id!', token: 'short' }], relay: { lowWaterBytes: 5_000_000 } });
  let caught: unknown;
  try {
    loadConfig({ file: path, env: { LANTERNA_WORKERS: 'many' } });
  } catch (error) {
    caught = error;
  }
  assert.ok(caught instanceof ConfigError);
  const text = caught.problems.join('\n');
  assert.match(text, /listen\.port: .*\(from .*config\.json\)/);
  assert.match(text, /displays\.0\.id: display id/);
  assert.match(text, /displays\.0\.token: display token must be at least 16 characters/);
  assert.match(text, /workers: .*\(from LANTERNA_WORKERS\)/);
  assert.match(text, /lowWaterBytes must be below/);
});

test('duplicate display ids and a cert without a key are refused', () => {
  const token = 'x'.repeat(20);
  const path = file({ displays: [{ id: 'a', token }, { id: 'a', token }], tls: { certFile: '/tmp/c.pem' } });
  assert.throws(() => loadConfig({ file: path, env: {} }), (error: unknown) =>
    error instanceof ConfigError && error.problems.some((p) => p.includes('duplicate id "a"')) && error.problems.some((p) => p.includes('certFile and keyFile')));
});

test('a file that is not JSON names the file', () => {
  const path = file('{ not json');
  assert.throws(() => loadConfig({ file: path, env: {} }), (error: unknown) => error instanceof ConfigError && error.message.includes(path));
});

test('WS-Discovery is off by default, on with LANTERNA_WSD, and its interfaces and limits are checked', () => {
  const defaults = loadConfig({ env: {} });
  assert.deepEqual(defaults.wsd, { enabled: false, interfaces: [], ipv6: true, appMaxDelayMs: 500, perSourceRate: 200 });
  assert.equal(loadConfig({ env: { LANTERNA_WSD: 'true' } }).wsd.enabled, true);
  const configured = loadConfig({ file: file({ wsd: { enabled: true, interfaces: ['eth0', 'wlp2s0'] }, displays: [{ id: 'r', token: 'x'.repeat(16), location: 'Floor 2' }] }), env: {} });
  assert.deepEqual(configured.wsd.interfaces, ['eth0', 'wlp2s0']);
  assert.equal(configured.displays[0]?.location, 'Floor 2');
  assert.throws(() => loadConfig({ file: file({ wsd: { interfaces: ['eth0; rm -rf'], appMaxDelayMs: -1 } }), env: {} }), (error: unknown) => {
    assert.ok(error instanceof ConfigError);
    assert.match(error.message, /wsd\.interfaces\.0: an interface name like "eth0"/);
    assert.match(error.message, /wsd\.appMaxDelayMs/);
    return true;
  });
});

test('the relay engine is chosen by default (auto), named with LANTERNA_RELAY_ENGINE, and nothing else', () => {
  assert.equal(loadConfig({ env: {} }).relay.engine, 'auto');
  assert.equal(loadConfig({ env: { LANTERNA_RELAY_ENGINE: 'node' } }).relay.engine, 'node');
  assert.equal(loadConfig({ env: { LANTERNA_RELAY_ENGINE: 'native' } }).relay.engine, 'native');
  assert.throws(() => loadConfig({ env: { LANTERNA_RELAY_ENGINE: 'rust' } }), (error: unknown) =>
    error instanceof ConfigError && /relay\.engine: .*\(from LANTERNA_RELAY_ENGINE\)/.test(error.message));
});

test('Redis: the password from a file or the URL, not both; a CA file only with rediss://', () => {
  const env = { LANTERNA_BROKER_STORE: 'redis', LANTERNA_REDIS_PASSWORD_FILE: '/run/secrets/redis-password' };
  const fromFile = loadConfig({ env: { ...env, LANTERNA_REDIS_URL: 'redis://redis:6379/0' } });
  assert.equal(fromFile.broker.redisPasswordFile, '/run/secrets/redis-password');
  assert.throws(() => loadConfig({ env: { ...env, LANTERNA_REDIS_URL: 'redis://:secret@redis:6379/0' } }),
    (error: unknown) => error instanceof ConfigError && error.problems.some((p) => /redisPasswordFile: redisUrl names a password already/.test(p)));
  const tls = loadConfig({ env: { LANTERNA_BROKER_STORE: 'redis', LANTERNA_REDIS_URL: 'rediss://redis:6380/0', LANTERNA_REDIS_CA_FILE: '/etc/ca.pem' } });
  assert.equal(tls.broker.redisCaFile, '/etc/ca.pem');
  assert.throws(() => loadConfig({ env: { LANTERNA_BROKER_STORE: 'redis', LANTERNA_REDIS_URL: 'redis://redis:6379/0', LANTERNA_REDIS_CA_FILE: '/etc/ca.pem' } }),
    (error: unknown) => error instanceof ConfigError && error.problems.some((p) => /redisCaFile: a CA is for TLS/.test(p)));
});
