// The presenter's stop token: returned when a projection starts, it stops
// (and reads the state of) that projection and no other. Signed, not stored,
// so any worker, or any gateway sharing the session secret, checks it.
import { createHmac, timingSafeEqual } from 'node:crypto';

export class StopTokens {
  private readonly key: Buffer;

  constructor(sessionSecret: Buffer) {
    // A key of its own, derived from the session secret: a stop token can never pass as a session token's MAC or the reverse.
    this.key = createHmac('sha256', sessionSecret).update('lanterna presenter stop token v1').digest();
  }

  sign(displayId: string, sessionId: string): string {
    return `${sessionId}.${this.mac(displayId, sessionId)}`;
  }

  /** The session the token stops on that display, or undefined when it is not one of ours. */
  read(displayId: string, token: string | undefined): string | undefined {
    if (token === undefined || token.length > 256) return undefined;
    const dot = token.lastIndexOf('.');
    if (dot <= 0) return undefined;
    const sessionId = token.slice(0, dot);
    const given = Buffer.from(token.slice(dot + 1), 'base64url');
    const expected = Buffer.from(this.mac(displayId, sessionId), 'base64url');
    return given.length === expected.length && timingSafeEqual(given, expected) ? sessionId : undefined;
  }

  private mac(displayId: string, sessionId: string): string {
    return createHmac('sha256', this.key).update(`${displayId}\u0000${sessionId}`).digest('base64url');
  }
}
