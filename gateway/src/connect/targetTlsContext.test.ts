// The server leg reuses one TLS context per trust setting instead of building
// one per connection; a different CA must still get its own.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { generate } from 'selfsigned';
import { targetTlsContext } from './targetTlsContext.js';

async function selfSignedPem(name: string): Promise<string> {
  return (await generate([{ name: 'commonName', value: name }], { keySize: 2048, algorithm: 'sha256' })).cert;
}

test('one context per trust setting, shared by every connection that has it', async () => {
  const a = await selfSignedPem('ca-a');
  const b = await selfSignedPem('ca-b');
  assert.equal(targetTlsContext(undefined), targetTlsContext(undefined));
  assert.equal(targetTlsContext(a), targetTlsContext(a));
  assert.notEqual(targetTlsContext(a), targetTlsContext(undefined));
  assert.notEqual(targetTlsContext(a), targetTlsContext(b));
});
