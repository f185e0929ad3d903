import { chmodSync, existsSync, lstatSync, mkdirSync, readFileSync, statSync, unlinkSync } from 'node:fs';
import { randomBytes, X509Certificate } from 'node:crypto';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { generate } from 'selfsigned';
import { createFileOnceSync } from '../persist/atomicFileSync.js';
import { MIN_ADMIN_TOKEN_CHARS, MIN_SESSION_SECRET_CHARS, type GatewayConfig } from './configSchema.js';

export interface GatewayIdentity {
  adminToken: string;
  sessionSecret: Buffer;
  tls: { cert: string; key: string; fingerprint: string; generated: boolean };
  /** What was wrong but safe to fix (and was fixed), for the log. */
  repairs: string[];
}

/** The state directory or a secret in it cannot be trusted: the gateway refuses to start. */
export class StateDirError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StateDirError';
  }
}

function modeText(mode: number): string {
  return `0${(mode & 0o777).toString(8)}`;
}

/** A secret file must be ours, a plain file, and closed to everyone else; anything else may have leaked. */
function checkPrivateFile(path: string): void {
  const info = lstatSync(path);
  if (!info.isFile()) throw new StateDirError(`${path} is not a regular file`);
  const uid = process.getuid?.();
  if (uid !== undefined && info.uid !== uid) throw new StateDirError(`${path} belongs to uid ${info.uid}, not to the gateway's user (uid ${uid})`);
  if ((info.mode & 0o077) !== 0) {
    throw new StateDirError(`${path} is open to other users (mode ${modeText(info.mode)}), so the secret may have leaked: delete it to have a new one made, or chmod 600 it if it never left this machine`);
  }
}

function readOrCreateSecret(path: string, minChars: number, make: () => string): string {
  if (!existsSync(path)) createFileOnceSync(path, `${make()}\n`, 0o600);
  checkPrivateFile(path);
  const value = readFileSync(path, 'utf8').trim();
  if (value.length < minChars) {
    throw new StateDirError(`${path} holds ${value.length} characters, at least ${minChars} are needed: delete it to have a new one made`);
  }
  return value;
}

/** The state directory holds secrets: it must be ours and closed to others (fixed when it is merely too open). */
function secureStateDir(dir: string, repairs: string[]): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const info = statSync(dir);
  if (!info.isDirectory()) throw new StateDirError(`state directory ${dir} is not a directory`);
  const uid = process.getuid?.();
  if (uid !== undefined && info.uid !== uid) throw new StateDirError(`state directory ${dir} belongs to uid ${info.uid}, not to the gateway's user (uid ${uid})`);
  if ((info.mode & 0o077) !== 0) {
    chmodSync(dir, 0o700);
    repairs.push(`state directory ${dir} was open to other users (mode ${modeText(info.mode)}), now 0700`);
  }
}

/**
 * Secrets and the kiosk-facing certificate live in the state dir so that every
 * cluster worker (and every restart) uses the same ones. Called by the primary
 * before workers start, so workers only read.
 */
export async function ensureGatewayIdentity(config: GatewayConfig & { stateDir: string }): Promise<GatewayIdentity> {
  const repairs: string[] = [];
  secureStateDir(config.stateDir, repairs);
  const adminToken = config.adminToken
    ?? readOrCreateSecret(join(config.stateDir, 'admin-token'), MIN_ADMIN_TOKEN_CHARS, () => randomBytes(24).toString('base64url'));
  const sessionSecret = Buffer.from(config.sessionSecret
    ?? readOrCreateSecret(join(config.stateDir, 'session-secret'), MIN_SESSION_SECRET_CHARS, () => randomBytes(32).toString('base64url')));

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
      // A pair half-made by a crash is replaced whole.
      for (const path of [keyPath, certPath]) if (existsSync(path)) unlinkSync(path);
      createFileOnceSync(keyPath, pems.private, 0o600);
      createFileOnceSync(certPath, pems.cert, 0o644);
      generated = true;
    }
    checkPrivateFile(keyPath);
    cert = readFileSync(certPath, 'utf8');
    key = readFileSync(keyPath, 'utf8');
  }
  const fingerprint = new X509Certificate(cert).fingerprint256;
  return { adminToken, sessionSecret, tls: { cert, key, fingerprint, generated }, repairs };
}
