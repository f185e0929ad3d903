import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SessionTokenSigner, type SessionGrant } from './sessionToken.js';

const grant: SessionGrant = { sessionId: 's_1', displayId: 'room', target: { host: '127.0.0.1', port: 3389 }, expiresAt: Date.now() + 60_000 };

test('a signed token verifies and returns its grant', () => {
  const signer = new SessionTokenSigner(Buffer.from('a'.repeat(32)));
  const check = signer.verify(signer.sign(grant));
  assert.equal(check.ok, true);
  assert.deepEqual(check.grant.target, grant.target);
});

test('tampered, foreign, expired and malformed tokens are refused', () => {
  const signer = new SessionTokenSigner(Buffer.from('a'.repeat(32)));
  const other = new SessionTokenSigner(Buffer.from('b'.repeat(32)));
  const token = signer.sign(grant);
  const [body = '', mac = ''] = token.split('.');
  const forged = Buffer.from(JSON.stringify({ ...grant, target: { host: '10.0.0.1', port: 22 } })).toString('base64url');
  assert.deepEqual(signer.verify(`${forged}.${mac}`), { ok: false, reason: 'bad-signature' });
  assert.deepEqual(signer.verify(other.sign(grant)), { ok: false, reason: 'bad-signature' });
  assert.deepEqual(signer.verify(signer.sign({ ...grant, expiresAt: Date.now() - 1 })), { ok: false, reason: 'expired' });
  assert.deepEqual(signer.verify('garbage'), { ok: false, reason: 'malformed' });
  assert.deepEqual(signer.verify(`${body}.`), { ok: false, reason: 'bad-signature' });
});
