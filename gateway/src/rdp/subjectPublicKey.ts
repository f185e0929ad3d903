// What CredSSP binds to and what certificate pins name: the certificate's
// SubjectPublicKey — the contents of the BIT STRING inside
// SubjectPublicKeyInfo (RFC 5280 4.1.2.7), i.e. PKCS#1 RSAPublicKey for RSA
// (270 bytes for RSA-2048), the EC point for EC — not the whole SPKI (294).
import { createHash, X509Certificate } from 'node:crypto';

export class CertificateKeyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CertificateKeyError';
  }
}

interface DerElement {
  readonly tag: number;
  readonly contentStart: number;
  readonly end: number;
}

const TAG_SEQUENCE = 0x30;
const TAG_BIT_STRING = 0x03;

function readDerElement(der: Buffer, offset: number, limit: number): DerElement {
  if (offset + 2 > limit) throw new CertificateKeyError(`der element at offset ${offset} is truncated`);
  const tag = der.readUInt8(offset);
  const first = der.readUInt8(offset + 1);
  let length = first;
  let contentStart = offset + 2;
  if (first & 0x80) {
    const bytes = first & 0x7f;
    if (bytes === 0 || bytes > 4) throw new CertificateKeyError(`der length form 0x${first.toString(16)} at offset ${offset + 1}`);
    if (contentStart + bytes > limit) throw new CertificateKeyError(`der length at offset ${offset + 1} is truncated`);
    length = der.readUIntBE(contentStart, bytes);
    contentStart += bytes;
  }
  const end = contentStart + length;
  if (end > limit) throw new CertificateKeyError(`der element at offset ${offset} runs ${end - limit} bytes past its container`);
  return { tag, contentStart, end };
}

/** The SubjectPublicKeyInfo DER of a DER certificate. */
export function subjectPublicKeyInfo(certificateDer: Buffer): Buffer {
  let certificate: X509Certificate;
  try {
    certificate = new X509Certificate(certificateDer);
  } catch (error) {
    throw new CertificateKeyError(`not a der x.509 certificate: ${(error as Error).message}`);
  }
  return certificate.publicKey.export({ type: 'spki', format: 'der' });
}

/** SubjectPublicKey bytes (BIT STRING contents, without the unused-bits octet) from an SPKI. */
export function subjectPublicKeyFromSpki(spki: Buffer): Buffer {
  const outer = readDerElement(spki, 0, spki.length);
  if (outer.tag !== TAG_SEQUENCE || outer.end !== spki.length) throw new CertificateKeyError('subjectPublicKeyInfo is not one der sequence');
  const algorithm = readDerElement(spki, outer.contentStart, outer.end);
  if (algorithm.tag !== TAG_SEQUENCE) throw new CertificateKeyError('subjectPublicKeyInfo algorithm is not a sequence');
  const bits = readDerElement(spki, algorithm.end, outer.end);
  if (bits.tag !== TAG_BIT_STRING || bits.end !== outer.end) throw new CertificateKeyError('subjectPublicKeyInfo does not end with a bit string');
  if (bits.end - bits.contentStart < 2) throw new CertificateKeyError('subjectPublicKey bit string is empty');
  const unusedBits = spki.readUInt8(bits.contentStart);
  if (unusedBits !== 0) throw new CertificateKeyError(`subjectPublicKey has ${unusedBits} unused bits`);
  return spki.subarray(bits.contentStart + 1, bits.end);
}

/** The certificate's SubjectPublicKey, what CredSSP binds to. */
export function subjectPublicKey(certificateDer: Buffer): Buffer {
  return subjectPublicKeyFromSpki(subjectPublicKeyInfo(certificateDer));
}

/** `sha256:AA:BB:…` over the whole DER certificate (what pins and the kiosk protocol show). */
export function sha256Fingerprint(certificateDer: Buffer): string {
  const digest = createHash('sha256').update(certificateDer).digest('hex').toUpperCase();
  return `sha256:${digest.replace(/(..)(?!$)/g, '$1:')}`;
}

export interface CertificateKey {
  readonly subjectPublicKey: Buffer;
  readonly fingerprint: string;
}

export function describeCertificateKey(certificateDer: Buffer): CertificateKey {
  return { subjectPublicKey: subjectPublicKey(certificateDer), fingerprint: sha256Fingerprint(certificateDer) };
}
