import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseEndpoint } from './endpoint.js';

void test('host, host:port, [v6]:port and bare IPv6 become a target; the RDP port is the default', () => {
  assert.deepEqual(parseEndpoint(' 192.168.1.20 '), { host: '192.168.1.20', port: 3389 });
  assert.deepEqual(parseEndpoint('my-pc.corp:3390'), { host: 'my-pc.corp', port: 3390 });
  assert.deepEqual(parseEndpoint('[fd00::5]:3391'), { host: 'fd00::5', port: 3391 });
  assert.deepEqual(parseEndpoint('[fd00::5]'), { host: 'fd00::5', port: 3389 });
  assert.deepEqual(parseEndpoint('fd00::5'), { host: 'fd00::5', port: 3389 });
});

void test('what cannot be an address is said in words before anything is sent', () => {
  for (const [input, words] of [
    ['', /Enter your computer’s address/],
    ['my pc', /is not a computer name or address/],
    ['host:0', /is not a port/],
    ['host:70000', /is not a port/],
    ['host:abc', /is not a port/],
    ['[fd00::5]:x', /is not a port/],
    ['[nope]', /is not an IPv6 address/],
    ['a:b:c!', /is not an address/],
    ['-host', /is not a computer name/],
  ] as const) {
    const parsed = parseEndpoint(input);
    assert.ok('error' in parsed, `${input} was accepted`);
    assert.match(parsed.error, words, input);
  }
});
