// Node's side of the contract's examples (Go's: gateway/dataplane/internal/rpc/messages_test.go).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { ZodType } from 'zod';
import { readMessage, RPC_CONTRACT, endedNoticeSchema } from './rpcContract.js';

const contractPath = fileURLToPath(new URL('../../dataplane/internal/rpc/testdata/contract.json', import.meta.url));
type Examples = Record<keyof typeof RPC_CONTRACT, Record<string, unknown[]>>;
const examples = JSON.parse(readFileSync(contractPath, 'utf8')) as Examples;

void test('every example of the contract fits its op\'s schema, and every op has examples', () => {
  let checked = 0;
  for (const direction of Object.keys(RPC_CONTRACT) as (keyof typeof RPC_CONTRACT)[]) {
    const schemas: Record<string, ZodType> = RPC_CONTRACT[direction];
    assert.deepEqual(Object.keys(examples[direction]).sort(), Object.keys(schemas).sort(), `${direction}: the same ops on both sides`);
    for (const [op, schema] of Object.entries(schemas)) {
      for (const [index, example] of (examples[direction][op] ?? []).entries()) {
        const read = readMessage(schema, op, example);
        assert.ok(read.ok, `${direction} ${op} #${index}: ${read.ok ? '' : read.problem}`);
        checked += 1;
      }
    }
  }
  assert.ok(checked >= 30, `${checked} examples`);
});

void test('a message off the contract is refused with what is wrong and where, never read as undefined', () => {
  const problem = (read: ReturnType<typeof readMessage>): string => (read.ok ? 'accepted' : read.problem);
  assert.match(problem(readMessage(endedNoticeSchema, 'ended', { sessionId: 's', reason: 'error', secs: 1 })), /^the data plane's ended is off the contract: /);
  assert.match(problem(readMessage(endedNoticeSchema, 'ended', { sessionId: 's', reason: 'error', seconds: '1' })), /seconds/);
  // a field the contract does not name is refused
  assert.match(problem(readMessage(RPC_CONTRACT.request.open, 'open', { sessionId: 's', token: 't', clientAddress: 'a', displayId: 'd' })), /off the contract/);
});

void test('the configure Node builds from a configuration fits the contract, with TLS and without', async () => {
  const { configSchema } = await import('../config/configSchema.js');
  const { dataPlaneConfiguration } = await import('./dataPlaneConfig.js');
  for (const tls of [true, false]) {
    const config = configSchema.parse({ listen: { host: '127.0.0.1', port: 0, tls } });
    const built = dataPlaneConfiguration({ config, tls: { cert: 'CERT', key: 'KEY' }, upstreamSocket: '/tmp/up.sock', reusePort: false });
    const read = readMessage(RPC_CONTRACT.notice.configure, 'configure', { config: built });
    assert.ok(read.ok, read.ok ? '' : read.problem);
    assert.equal(built.listen.certPem !== undefined, tls, 'the certificate goes only with TLS');
  }
});
