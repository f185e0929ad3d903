// A gateway with a certificate no system CA signed (the gateway's own
// self-signed one) is trusted by its public key: the admin copies the
// certificate to the display once. Both Chromium
// (--ignore-certificate-errors-spki-list) and the launcher's own gateway
// probe check that key, so neither ever shows or accepts another server.
import { createHash, X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { KioskConfigError } from './kioskConfig.js';

/** base64 SHA-256 of a certificate's DER SubjectPublicKeyInfo: the form Chromium's SPKI list takes. */
export function spkiPin(certificate: X509Certificate): string {
  const spki = certificate.publicKey.export({ type: 'spki', format: 'der' });
  return createHash('sha256').update(spki).digest('base64');
}

const pemBlock = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

/** The pins of every certificate in a PEM file; a file that cannot be read or holds none is a configuration error. */
export function readGatewayCertificatePins(path: string): string[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new KioskConfigError([`gatewayCertificate: cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`]);
  }
  const blocks = text.match(pemBlock) ?? [];
  if (blocks.length === 0) throw new KioskConfigError([`gatewayCertificate: no PEM certificate in ${path}`]);
  try {
    return blocks.map((block) => spkiPin(new X509Certificate(block)));
  } catch (error) {
    throw new KioskConfigError([`gatewayCertificate: ${path} holds a malformed certificate (${(error as Error).message})`]);
  }
}
