// The configure message Node builds, against the contract's schema (protocol/src/dataPlaneContract.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RPC_CONTRACT, readMessage } from '@lanterna/protocol';
import { configSchema } from '../config/configSchema.js';
import { dataPlaneConfiguration } from './dataPlaneConfig.js';

void test('the configure Node builds from a configuration fits the contract, with TLS and without', () => {
  for (const tls of [true, false]) {
    const config = configSchema.parse({ listen: { host: '127.0.0.1', port: 0, tls } });
    const built = dataPlaneConfiguration({ config, tls: { cert: 'CERT', key: 'KEY' }, upstreamSocket: '/tmp/up.sock', reusePort: false });
    const read = readMessage(RPC_CONTRACT.notice.configure, 'configure', { config: built });
    assert.ok(read.ok, read.ok ? '' : read.problem);
    assert.equal(built.listen.certPem !== undefined, tls, 'the certificate goes only with TLS');
  }
});
