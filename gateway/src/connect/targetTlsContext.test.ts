// The server leg reuses one TLS context per trust setting instead of building
// one per connection; a different CA must still get its own.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { targetTlsContext } from './targetTlsContext.js';

function selfSignedPem(name: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'lanterna-ctx-'));
  try {
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
    writeFileSync(join(dir, 'key.pem'), privateKey.export({ type: 'pkcs8', format: 'pem' }));
    execFileSync('openssl', ['req', '-x509', '-key', join(dir, 'key.pem'), '-subj', `/CN=${name}`, '-days', '1', '-out', join(dir, 'cert.pem')], { stdio: 'ignore' });
    return readFileSync(join(dir, 'cert.pem'), 'utf8');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('one context per trust setting, shared by every connection that has it', () => {
  const a = selfSignedPem('ca-a');
  const b = selfSignedPem('ca-b');
  assert.equal(targetTlsContext(undefined), targetTlsContext(undefined));
  assert.equal(targetTlsContext(a), targetTlsContext(a));
  assert.notEqual(targetTlsContext(a), targetTlsContext(undefined));
  assert.notEqual(targetTlsContext(a), targetTlsContext(b));
});
