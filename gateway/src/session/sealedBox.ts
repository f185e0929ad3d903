// Secrets the broker must keep or send where others can read them are sealed
// first: a projection's credentials kept so a display whose gateway died can
// be projected again through another (a state file, a Redis), the broker's
// events between gateways (Redis pub/sub), a display's room PIN in Redis.
// AES-256-GCM under a key derived from the session secret, which every
// gateway of a deployment shares already (it signs the session tokens); each
// use names its purpose, so a value sealed for one is never opened as another.
// `digest` is the keyed digest (HMAC-SHA-256, a key of its own) for values
// that must be compared where they cannot be opened (inside Redis).
import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from 'node:crypto';

const NONCE_BYTES = 12;
const TAG_BYTES = 16;

/** What a box seals; the default is the first one, whose key every stored intent was sealed with. */
export type SealPurpose = 'projection intent' | 'bus event' | 'room pin' | 'room request';

function derive(secret: Buffer, info: string): Buffer {
  return Buffer.from(hkdfSync('sha256', secret, Buffer.alloc(0), info, 32));
}

export class SealedBox {
  private readonly key: Buffer;
  private readonly digestKey: Buffer;

  constructor(sessionSecret: Buffer, purpose: SealPurpose = 'projection intent') {
    this.key = derive(sessionSecret, `lanterna ${purpose} v1`);
    this.digestKey = derive(sessionSecret, `lanterna ${purpose} digest v1`);
  }

  seal(value: unknown): string {
    const nonce = randomBytes(NONCE_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, nonce);
    const body = Buffer.concat([cipher.update(JSON.stringify(value), 'utf8'), cipher.final()]);
    return Buffer.concat([nonce, cipher.getAuthTag(), body]).toString('base64url');
  }

  /** The sealed value, or undefined when it was not sealed with this secret and purpose, or was changed. */
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

  /**
   * A keyed digest of `parts` (hex HMAC-SHA-256): equal parts give equal
   * digests under one secret, and without the secret a digest tells nothing,
   * not even of a six-digit PIN (an unkeyed hash of one is undone in a second).
   */
  digest(...parts: string[]): string {
    return createHmac('sha256', this.digestKey).update(JSON.stringify(parts)).digest('hex');
  }
}
