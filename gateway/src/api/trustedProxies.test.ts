// Whose address a request counts under: X-Forwarded-For only from a trusted
// peer, read right to left past trusted hops; anyone else's header ignored.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { IncomingMessage } from 'node:http';
import { Socket } from 'node:net';
import { TrustedProxies } from './trustedProxies.js';
import { networkProblem } from '../policy/networkList.js';

test('an untrusted peer is the client whatever its X-Forwarded-For says; none trusted by default', () => {
  const none = new TrustedProxies([]);
  assert.equal(none.resolve('10.0.0.5', '192.0.2.7'), '10.0.0.5');
  const proxies = new TrustedProxies(['10.0.0.5']);
  assert.equal(proxies.resolve('10.0.0.6', '192.0.2.7'), '10.0.0.6');
  assert.equal(proxies.resolve('::ffff:10.0.0.6', '192.0.2.7'), '10.0.0.6', 'an IPv4-mapped peer is its IPv4 address');
});

test('a trusted proxy names the client; chains are read right to left past trusted hops, and a client cannot prepend its way out', () => {
  const proxies = new TrustedProxies(['127.0.0.1', '10.1.0.0/16', 'fd00::/8']);
  assert.equal(proxies.resolve('127.0.0.1', '192.0.2.7'), '192.0.2.7');
  assert.equal(proxies.resolve('::ffff:127.0.0.1', '192.0.2.7'), '192.0.2.7', 'the peer is matched as IPv4 when mapped');
  assert.equal(proxies.resolve('127.0.0.1', '198.51.100.1, 192.0.2.7, 10.1.2.3'), '192.0.2.7', 'the forged left entry is not reached');
  assert.equal(proxies.resolve('127.0.0.1', ['198.51.100.1', '192.0.2.7']), '192.0.2.7', 'several header lines are one list');
  assert.equal(proxies.resolve('127.0.0.1', '[2001:db8::1]:5555'), '2001:db8::1');
  assert.equal(proxies.resolve('127.0.0.1', '192.0.2.7:40000'), '192.0.2.7');
  assert.equal(proxies.resolve('fd00::2', '10.1.0.9, 2001:DB8::0:1'), '2001:db8::1');
  assert.equal(proxies.resolve('127.0.0.1', '10.1.0.9'), '10.1.0.9', 'only trusted hops: the leftmost is the client');
  assert.equal(proxies.resolve('127.0.0.1', 'not-an-address, 10.1.0.9'), '10.1.0.9', 'garbage stops the walk at the last trusted hop');
  assert.equal(proxies.resolve('127.0.0.1', 'unknown'), '127.0.0.1');
  assert.equal(proxies.resolve('127.0.0.1', undefined), '127.0.0.1');
});

test('trusted proxies are addresses or networks; anything else is refused with its words', () => {
  assert.equal(networkProblem('10.0.0.0/8'), undefined);
  assert.equal(networkProblem('::1'), undefined);
  assert.equal(networkProblem('10.0.0.0/33'), 'bad network "10.0.0.0/33"');
  assert.equal(networkProblem('proxy.corp'), 'bad network "proxy.corp"');
  assert.equal(networkProblem('10.0.0.0/8/1'), 'bad network "10.0.0.0/8/1"');
  assert.throws(() => new TrustedProxies(['10.0.0.0/x']), /bad network "10.0.0.0\/x"/);
});

test('over the native data plane\'s Unix socket (no IP peer) the last hop is the client; only there, and then trusted hops as usual', () => {
  // A request whose socket has no IP peer, as over a Unix socket.
  const request = (forwardedFor?: string): IncomingMessage => {
    const message = new IncomingMessage(new Socket());
    if (forwardedFor !== undefined) message.headers['x-forwarded-for'] = forwardedFor;
    return message;
  };
  const local = new TrustedProxies([], { localProxy: true });
  assert.equal(local.clientAddress(request('198.51.100.1, 192.0.2.7')), '192.0.2.7', 'the data plane\'s appended peer, not what the client wrote');
  assert.equal(local.clientAddress(request('::ffff:192.0.2.7')), '192.0.2.7');
  assert.equal(local.clientAddress(request()), undefined, 'no header: no address');
  assert.equal(local.clientAddress(request('garbage')), undefined);
  assert.equal(local.resolve('192.0.2.9', '192.0.2.7'), '192.0.2.9', 'a TCP peer is not the data plane: its header is ignored');
  const behindProxy = new TrustedProxies(['10.0.0.5'], { localProxy: true });
  assert.equal(behindProxy.clientAddress(request('192.0.2.7, 10.0.0.5')), '192.0.2.7', 'the data plane\'s peer is a trusted proxy: its hop is read too');
  assert.equal(new TrustedProxies([]).clientAddress(request('192.0.2.7')), undefined, 'without the native engine nothing changes');
});
