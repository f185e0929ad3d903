// The gateway's error type for a session's end. Codes, close codes and the
// default messages come from the protocol package's one table.
import { closeCodeFor, ERROR_CODES, type ErrorMessage, type SessionErrorCode, type SessionPhase } from '@lanterna/protocol';

export type { SessionErrorCode, SessionPhase } from '@lanterna/protocol';

/** The one error type sessions end with: a phase, a protocol code, and words a person can act on. */
export class SessionError extends Error {
  readonly closeCode: number;

  constructor(
    readonly phase: SessionPhase,
    readonly code: SessionErrorCode,
    message?: string,
    /** Sent to the display with the error: only what a person there may see and act on. */
    readonly detail: Record<string, unknown> = {},
    /**
     * For the gateway's log only: resolved addresses, the allow-list, what a
     * non-RDP server sent, internal error text. A display on the LAN is told
     * what went wrong, not how the gateway and its network are laid out.
     */
    readonly internal: Record<string, unknown> = {},
  ) {
    super(message ?? ERROR_CODES[code].message);
    this.name = 'SessionError';
    this.closeCode = closeCodeFor(code);
  }

  toMessage(): ErrorMessage & { phase: SessionPhase; code: SessionErrorCode } {
    return { type: 'error', phase: this.phase, code: this.code, message: this.message, detail: this.detail };
  }
}
