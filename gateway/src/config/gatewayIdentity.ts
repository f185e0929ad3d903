import { mkdirSync, readFileSync, writeFileSync, existsSync, chmodSync } from 'node:fs';
import { randomBytes, X509Certificate } from 'node:crypto';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { generate } from 'selfsigned';
import type { GatewayConfig } from './configSchema.js';

export interface GatewayIdentity {
  adminToken: string;
  sessionSecret: Buffer;
  tls: { cert: string; key: string; fingerprint: string; generated: boolean };
}

function readOrCreateSecret(path: string, make: () => string): string {
  if (existsSync(path)) return readFileSync(path, 'utf8').trim();
  const value = make();
  writeFileSync(path, `${value}\n`, { mode: 0o600 });
  return value;
}

/**
 * Secrets and the kiosk-facing certificate live in the state dir so that every
 * cluster worker (and every restart) uses the same ones. Called by the primary
 * before workers start, so workers only read.
 */
export async function ensureGatewayIdentity(config: GatewayConfig & { stateDir: string }): Promise<GatewayIdentity> {
  mkdirSync(config.stateDir, { recursive: true, mode: 0o700 });
  const adminToken = config.adminToken
    ?? readOrCreateSecret(join(config.stateDir, 'admin-token'), () => randomBytes(24).toString('base64url'));
  const sessionSecret = Buffer.from(config.sessionSecret
    ?? readOrCreateSecret(join(config.stateDir, 'session-secret'), () => randomBytes(32).toString('base64url')));

  let cert: string;
  let key: string;
  let generated = false;
  if (config.tls.certFile && config.tls.keyFile) {
    cert = readFileSync(config.tls.certFile, 'utf8');
    key = readFileSync(config.tls.keyFile, 'utf8');
  } else {
    const certPath = join(config.stateDir, 'gateway-cert.pem');
    const keyPath = join(config.stateDir, 'gateway-key.pem');
    if (!existsSync(certPath) || !existsSync(keyPath)) {
      const host = hostname();
      const pems = await generate([{ name: 'commonName', value: `Lanterna gateway (${host})` }], {
        keySize: 2048,
        algorithm: 'sha256',
        notAfterDate: new Date(Date.now() + 825 * 24 * 3600 * 1000),
        extensions: [
          { name: 'basicConstraints', cA: false },
          { name: 'keyUsage', digitalSignature: true, keyEncipherment: true },
          { name: 'extKeyUsage', serverAuth: true },
          { name: 'subjectAltName', altNames: [
            { type: 2, value: 'localhost' }, { type: 2, value: host },
            { type: 7, ip: '127.0.0.1' }, { type: 7, ip: '::1' },
          ] },
        ],
      });
      writeFileSync(keyPath, pems.private, { mode: 0o600 });
      writeFileSync(certPath, pems.cert);
      generated = true;
    }
    chmodSync(keyPath, 0o600);
    cert = readFileSync(certPath, 'utf8');
    key = readFileSync(keyPath, 'utf8');
  }
  const fingerprint = new X509Certificate(cert).fingerprint256;
  return { adminToken, sessionSecret, tls: { cert, key, fingerprint, generated } };
}
