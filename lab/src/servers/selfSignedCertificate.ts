import { execFile } from 'node:child_process';

/** Makes an RSA-2048 self-signed certificate and key (PEM) for 127.0.0.1 with openssl. */
export function makeSelfSignedCertificate(certPath: string, keyPath: string, commonName: string): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile(
      'openssl',
      ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', keyPath, '-out', certPath, '-days', '7',
        '-subj', `/CN=${commonName}`, '-addext', 'subjectAltName=IP:127.0.0.1,DNS:localhost'],
      { timeout: 30_000 },
      (error, _stdout, stderr) => (error === null ? resolve() : reject(new Error(`openssl req failed: ${stderr.trim() || error.message}`))),
    );
  });
}
