// Node's side of the contract's examples (Go's: gateway/dataplane/internal/rpc/messages_test.go, against the same file).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { ZodMiniType } from 'zod/mini';
import { readMessage, RPC_CONTRACT, endedNoticeSchema } from './dataPlaneContract.js';

const contractPath = fileURLToPath(new URL('../contract/dataPlaneContract.json', import.meta.url));
type Examples = Record<keyof typeof RPC_CONTRACT, Record<string, unknown[]>>;
const examples = JSON.parse(readFileSync(contractPath, 'utf8')) as Examples;

void test('every example of the contract fits its op\'s schema, and every op has examples', () => {
  let checked = 0;
  for (const direction of Object.keys(RPC_CONTRACT) as (keyof typeof RPC_CONTRACT)[]) {
    const schemas: Record<string, ZodMiniType> = RPC_CONTRACT[direction];
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
