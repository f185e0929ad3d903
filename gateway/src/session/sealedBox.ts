// Secrets the broker must keep for a while (a projection's credentials, so a
// display whose gateway died can be projected again through another) are
// sealed before they reach a store that others can read: a state file, a
// Redis. AES-256-GCM under a key derived from the session secret, which every
// gateway of a deployment shares already (it signs the session tokens).
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

const NONCE_BYTES = 12;
const TAG_BYTES = 16;

export class SealedBox {
  private readonly key: Buffer;

  constructor(sessionSecret: Buffer) {
    this.key = Buffer.from(hkdfSync('sha256', sessionSecret, Buffer.alloc(0), 'lanterna projection intent v1', 32));
  }

  seal(value: unknown): string {
    const nonce = randomBytes(NONCE_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, nonce);
    const body = Buffer.concat([cipher.update(JSON.stringify(value), 'utf8'), cipher.final()]);
    return Buffer.concat([nonce, cipher.getAuthTag(), body]).toString('base64url');
  }

  /** The sealed value, or undefined when it was not sealed with this secret or was changed. */
  open(sealed: string): unknown {
    const raw = Buffer.from(sealed, 'base64url');
    if (raw.length < NONCE_BYTES + TAG_BYTES) return undefined;
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, raw.subarray(0, NONCE_BYTES));
      decipher.setAuthTag(raw.subarray(NONCE_BYTES, NONCE_BYTES + TAG_BYTES));
      const text = Buffer.concat([decipher.update(raw.subarray(NONCE_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
      return JSON.parse(text) as unknown;
    } catch {
      return undefined;
    }
  }
}
