import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** What a data socket may do: which display opened it, where it goes, until when. */
export interface SessionGrant {
  sessionId: string;
  displayId: string;
  target: { host: string; port: number; name?: string | undefined };
  expiresAt: number;
  /** `browser`: the server leg is a presenter page's socket, not a TCP target (docs/browser-presenter.md). */
  source?: 'browser' | undefined;
  /** `presenter`: this token opens the presenter's socket, not the display's data socket. */
  leg?: 'presenter' | undefined;
}

export type TokenCheck = { ok: true; grant: SessionGrant } | { ok: false; reason: 'malformed' | 'bad-signature' | 'expired' };

/**
 * Session tokens are signed, not stored, so a data socket can land on any
 * cluster worker (or any gateway sharing the secret) and still be checked.
 */
export class SessionTokenSigner {
  constructor(private readonly secret: Buffer) {}

  static newSessionId(): string {
    return `s_${randomBytes(12).toString('base64url')}`;
  }

  sign(grant: SessionGrant): string {
    const body = Buffer.from(JSON.stringify({ ...grant, nonce: randomBytes(16).toString('base64url') })).toString('base64url');
    return `${body}.${this.mac(body)}`;
  }

  verify(token: string, now = Date.now()): TokenCheck {
    const dot = token.indexOf('.');
    if (dot <= 0 || token.length > 4096) return { ok: false, reason: 'malformed' };
    const body = token.slice(0, dot);
    const given = Buffer.from(token.slice(dot + 1), 'base64url');
    const expected = Buffer.from(this.mac(body), 'base64url');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { ok: false, reason: 'bad-signature' };
    let grant: SessionGrant;
    try {
      grant = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as SessionGrant;
    } catch {
      return { ok: false, reason: 'malformed' };
    }
    if (typeof grant.expiresAt !== 'number' || grant.expiresAt < now) return { ok: false, reason: 'expired' };
    return { ok: true, grant };
  }

  private mac(body: string): string {
    return createHmac('sha256', this.secret).update(body).digest('base64url');
  }
}
