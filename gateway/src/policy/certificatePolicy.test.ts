import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CertificatePolicy } from './certificatePolicy.js';
import { PinStore } from './pinStore.js';

const A = `sha256:${'AA:'.repeat(31)}AA`;
const B = `sha256:${'BB:'.repeat(31)}BB`;
const store = (): PinStore => new PinStore(join(mkdtempSync(join(tmpdir(), 'lanterna-pins-')), 'known.json'));

test('first use records the fingerprint, then accepts it and refuses a change', () => {
  const pins = store();
  const policy = new CertificatePolicy('first-use', {}, pins);
  assert.deepEqual(policy.judge({ target: 'h:3389', fingerprint: A, caVerified: false }), { trusted: true, trust: 'first-use' });
  assert.equal(pins.get('h:3389'), A);
  assert.deepEqual(policy.judge({ target: 'h:3389', fingerprint: A, caVerified: false }), { trusted: true, trust: 'pinned' });
  const changed = policy.judge({ target: 'h:3389', fingerprint: B, caVerified: false });
  assert.equal(changed.trusted, false);
  assert.equal(changed.code, 'certificate-changed');
  // A new policy object over the same file (another worker) sees the record.
  assert.equal(new CertificatePolicy('first-use', {}, pins).judge({ target: 'h:3389', fingerprint: B, caVerified: false }).trusted, false);
});

test('explicit pins win over the mode', () => {
  const policy = new CertificatePolicy('insecure', { 'h:3389': [A] }, store());
  assert.deepEqual(policy.judge({ target: 'h:3389', fingerprint: A, caVerified: false }), { trusted: true, trust: 'pinned' });
  const wrong = policy.judge({ target: 'h:3389', fingerprint: B, caVerified: false });
  assert.equal(!wrong.trusted && wrong.code, 'certificate-untrusted');
});

test('ca mode needs a verified chain; insecure takes anything', () => {
  const ca = new CertificatePolicy('ca', {}, store());
  assert.deepEqual(ca.judge({ target: 'h:1', fingerprint: A, caVerified: true }), { trusted: true, trust: 'ca' });
  assert.equal(ca.judge({ target: 'h:1', fingerprint: A, caVerified: false, caError: 'SELF_SIGNED' }).trusted, false);
  assert.deepEqual(new CertificatePolicy('insecure', {}, store()).judge({ target: 'h:1', fingerprint: A, caVerified: false }), { trusted: true, trust: 'insecure' });
});
