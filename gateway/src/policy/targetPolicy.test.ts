import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TargetPolicy } from './targetPolicy.js';

const policy = new TargetPolicy({ allowNetworks: ['10.0.0.0/8', '127.0.0.0/8', '::1/128'], allowPorts: ['3389', '5000-5010'], ownPorts: [8443] });

test('addresses inside allowed networks and ports pass', () => {
  assert.deepEqual(policy.check('10.1.2.3', 3389), { allowed: true });
  assert.deepEqual(policy.check('127.0.0.1', 5005), { allowed: true });
  assert.deepEqual(policy.check('::1', 3389), { allowed: true });
});

test('other networks, other ports and names are refused with a reason', () => {
  const outside = policy.check('8.8.8.8', 3389);
  assert.equal(outside.allowed, false);
  assert.match(outside.reason, /outside the allowed networks/);
  const port = policy.check('10.0.0.1', 22);
  assert.match(port.allowed ? '' : port.reason, /port 22 is outside/);
  const name = policy.check('example.org', 3389);
  assert.match(name.allowed ? '' : name.reason, /not an IP address/);
});

test('the gateway itself is never a target', () => {
  const own = new TargetPolicy({ allowNetworks: ['127.0.0.0/8'], allowPorts: ['1-65535'], ownPorts: [8443] });
  const verdict = own.check('127.0.0.1', 8443);
  assert.match(verdict.allowed ? '' : verdict.reason, /is the gateway itself/);
  assert.deepEqual(own.check('127.0.0.1', 8444), { allowed: true });
  // Other spellings of the same addresses were compared as strings and let through.
  const any = new TargetPolicy({ allowNetworks: ['127.0.0.0/8', '::/0'], allowPorts: ['1-65535'], ownPorts: [8443] });
  for (const spelling of ['::ffff:7f00:1', '::FFFF:127.0.0.2', '0:0:0:0:0:0:0:1', '::0001', '0.0.0.0', '0::0', '127.1.2.3']) {
    const verdict = any.check(spelling, 8443);
    assert.match(verdict.allowed ? '' : verdict.reason, /is the gateway itself/, spelling);
  }
});

test('bad networks and ranges are configuration errors', () => {
  assert.throws(() => new TargetPolicy({ allowNetworks: ['10.0.0.0/33'], allowPorts: ['1'], ownPorts: [] }), /bad network/);
  assert.throws(() => new TargetPolicy({ allowNetworks: ['nope'], allowPorts: ['1'], ownPorts: [] }), /bad network/);
  assert.throws(() => new TargetPolicy({ allowNetworks: [], allowPorts: ['10-5'], ownPorts: [] }), /bad port range/);
});
