import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createPublicKey } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import {
  CertificateKeyError,
  describeCertificateKey,
  sha256Fingerprint,
  subjectPublicKey,
  subjectPublicKeyFromSpki,
  subjectPublicKeyInfo,
} from './subjectPublicKey.js';

const run = promisify(execFile);
const OPENSSL_DEADLINE_MS = 20_000;

/** A self-signed certificate made by the openssl CLI; returns its DER. */
async function opensslCertificate(dir: string, name: string, keyArgs: string[]): Promise<Buffer> {
  const key = join(dir, `${name}.key`);
  const der = join(dir, `${name}.der`);
  const pem = join(dir, `${name}.pem`);
  await run('openssl', ['req', '-x509', ...keyArgs, '-nodes', '-keyout', key, '-out', pem, '-days', '2', '-subj', `/CN=${name}`], { timeout: OPENSSL_DEADLINE_MS });
  await run('openssl', ['x509', '-in', pem, '-outform', 'DER', '-out', der], { timeout: OPENSSL_DEADLINE_MS });
  return readFile(der);
}

async function opensslFingerprint(dir: string, name: string): Promise<string> {
  const { stdout } = await run('openssl', ['x509', '-in', join(dir, `${name}.pem`), '-noout', '-fingerprint', '-sha256'], { timeout: OPENSSL_DEADLINE_MS });
  const match = /=([0-9A-F:]+)/.exec(stdout);
  assert.ok(match?.[1], stdout);
  return `sha256:${match[1]}`;
}

void test('RSA, EC and Ed25519 certificates give their SubjectPublicKey and fingerprint', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'lanterna-spk-'));
  t.after(() => rm(dir, { recursive: true, force: true }));

  const rsa = await opensslCertificate(dir, 'rsa', ['-newkey', 'rsa:2048']);
  const rsaKey = subjectPublicKey(rsa);
  assert.equal(rsaKey.length, 270);
  assert.equal(subjectPublicKeyInfo(rsa).length, 294);
  // Independent path: openssl's own PKCS#1 RSAPublicKey of the same key.
  await run('openssl', ['rsa', '-in', join(dir, 'rsa.key'), '-RSAPublicKey_out', '-outform', 'DER', '-out', join(dir, 'rsa.pkcs1')], { timeout: OPENSSL_DEADLINE_MS });
  assert.ok(rsaKey.equals(await readFile(join(dir, 'rsa.pkcs1'))));
  assert.equal(sha256Fingerprint(rsa), await opensslFingerprint(dir, 'rsa'));

  const ec = await opensslCertificate(dir, 'ec', ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1']);
  const ecKey = subjectPublicKey(ec);
  const jwk = createPublicKey(await readFile(join(dir, 'ec.pem'))).export({ format: 'jwk' });
  assert.ok(jwk.x !== undefined && jwk.y !== undefined);
  assert.ok(ecKey.equals(Buffer.concat([Buffer.from([0x04]), Buffer.from(jwk.x, 'base64url'), Buffer.from(jwk.y, 'base64url')])));
  assert.equal(describeCertificateKey(ec).fingerprint, await opensslFingerprint(dir, 'ec'));

  const ed = await opensslCertificate(dir, 'ed', ['-newkey', 'ed25519']);
  const edJwk = createPublicKey(await readFile(join(dir, 'ed.pem'))).export({ format: 'jwk' });
  assert.ok(edJwk.x !== undefined);
  assert.ok(subjectPublicKey(ed).equals(Buffer.from(edJwk.x, 'base64url')));
});

void test('fingerprint format is sha256: then 32 upper-case hex pairs', () => {
  const fingerprint = sha256Fingerprint(Buffer.from('abc'));
  assert.equal(fingerprint, 'sha256:BA:78:16:BF:8F:01:CF:EA:41:41:40:DE:5D:AE:22:23:B0:03:61:A3:96:17:7A:9C:B4:10:FF:61:F2:00:15:AD');
});

void test('garbage and malformed SPKI are refused', () => {
  assert.throws(() => subjectPublicKey(Buffer.from('not a certificate')), CertificateKeyError);
  const cases: [string, RegExp][] = [
    ['31 03 02 01 00', /not one der sequence/],
    ['30 05 30 00 03 03 00', /runs 2 bytes past its container/],
    ['30 03 02 01 00', /algorithm is not a sequence/],
    ['30 04 30 00 04 00', /does not end with a bit string/],
    ['30 05 30 00 03 01 00', /bit string is empty/],
    ['30 06 30 00 03 02 04 f0', /4 unused bits/],
    ['30 85 00 00 00 00 00', /der length form 0x85/],
  ];
  for (const [hex, message] of cases) {
    assert.throws(() => subjectPublicKeyFromSpki(Buffer.from(hex.replace(/ /g, ''), 'hex')), { name: 'CertificateKeyError', message });
  }
  assert.deepEqual([...subjectPublicKeyFromSpki(Buffer.from('3006300003020042', 'hex'))], [0x42]);
});
