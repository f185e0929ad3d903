import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseConfigObject, setConfigField } from './configLayers.js';

test('a configuration file is JSON whose top level is an object', () => {
  assert.deepEqual(parseConfigObject('{"listen": {"port": 8443}}'), { listen: { port: 8443 } });
  for (const text of ['[]', 'null', '42', '"text"']) assert.throws(() => parseConfigObject(text), /top level must be an object/, text);
  assert.throws(() => parseConfigObject('{"listen":'), SyntaxError);
});

test('a field set over the file makes the objects on its way and replaces what is not one', () => {
  const raw: Record<string, unknown> = { listen: { host: '0.0.0.0' }, tls: 'off' };
  setConfigField(raw, ['listen', 'port'], 9443);
  setConfigField(raw, ['tls', 'certFile'], '/etc/cert.pem');
  setConfigField(raw, ['broker', 'redis', 'url'], 'redis://x');
  setConfigField(raw, ['workers'], 2);
  assert.deepEqual(raw, {
    listen: { host: '0.0.0.0', port: 9443 },
    tls: { certFile: '/etc/cert.pem' },
    broker: { redis: { url: 'redis://x' } },
    workers: 2,
  });
  // the value given last wins
  setConfigField(raw, ['listen', 'port'], 'not-a-port');
  assert.deepEqual(raw.listen, { host: '0.0.0.0', port: 'not-a-port' });
});
