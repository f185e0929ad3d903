// A throwaway certificate for loopback TLS endpoints, with an IP SAN so clients
// that verify (websockify --ssl-target with SSL_CERT_FILE) accept it.
import { generate } from 'selfsigned';

export interface CertificatePair { certPem: string; keyPem: string }

export async function generateLoopbackCertificate(commonName = 'lanterna-loadtest-echo'): Promise<CertificatePair> {
  const pems = await generate([{ name: 'commonName', value: commonName }], {
    keySize: 2048,
    algorithm: 'sha256',
    extensions: [
      { name: 'basicConstraints', cA: true },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, keyCertSign: true },
      { name: 'extKeyUsage', serverAuth: true },
      { name: 'subjectAltName', altNames: [{ type: 2, value: 'localhost' }, { type: 7, ip: '127.0.0.1' }] },
    ],
  });
  return { certPem: pems.cert, keyPem: pems.private };
}
