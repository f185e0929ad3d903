/** Phases of a session, as named in docs/kiosk-protocol.md. */
export type SessionPhase = 'hello' | 'open' | 'request' | 'connect' | 'x224' | 'tls' | 'relay';

export type SessionErrorCode =
  | 'bad-message' | 'unauthorized' | 'target-forbidden' | 'unknown-session' | 'timeout' | 'replaced'
  | 'pdu-invalid' | 'pdu-too-large' | 'target-unreachable' | 'target-refused' | 'x224-invalid'
  | 'negotiation-failed' | 'legacy-security' | 'tls-failed' | 'certificate-untrusted'
  | 'certificate-changed' | 'server-error' | 'gateway-shutdown' | 'internal';

interface CodeInfo { close: number; message: string }

const codes: Record<SessionErrorCode, CodeInfo> = {
  'bad-message': { close: 4400, message: 'the display sent something the gateway does not understand' },
  unauthorized: { close: 4401, message: 'this display is not authorised' },
  'target-forbidden': { close: 4403, message: "the presenter's computer is not allowed by the gateway's policy" },
  'unknown-session': { close: 4404, message: 'the session does not exist or has expired' },
  timeout: { close: 4408, message: "the presenter's computer did not answer in time" },
  replaced: { close: 4409, message: 'another kiosk took over this display' },
  'pdu-invalid': { close: 4400, message: 'a malformed RDP message' },
  'pdu-too-large': { close: 1009, message: 'an RDP message larger than allowed' },
  'target-unreachable': { close: 4502, message: "the presenter's computer cannot be reached" },
  'target-refused': { close: 4502, message: "the presenter's computer refused the connection" },
  'x224-invalid': { close: 4502, message: "the presenter's computer does not speak RDP" },
  'negotiation-failed': { close: 4502, message: "the presenter's computer refused the security settings" },
  'legacy-security': { close: 4502, message: "the presenter's computer offers only legacy RDP security" },
  'tls-failed': { close: 4502, message: 'the secure connection to the presenter failed' },
  'certificate-untrusted': { close: 4495, message: "the presenter's certificate is not trusted" },
  'certificate-changed': { close: 4495, message: "the presenter's certificate changed since last time" },
  'server-error': { close: 4502, message: "the presenter's computer sent something malformed or closed abruptly" },
  'gateway-shutdown': { close: 1001, message: 'the gateway is restarting' },
  internal: { close: 1011, message: 'an internal error in the gateway' },
};

/** The one error type sessions end with: a phase, a protocol code, and words a person can act on. */
export class SessionError extends Error {
  readonly closeCode: number;

  constructor(
    readonly phase: SessionPhase,
    readonly code: SessionErrorCode,
    message?: string,
    readonly detail: Record<string, unknown> = {},
  ) {
    super(message ?? codes[code].message);
    this.name = 'SessionError';
    this.closeCode = codes[code].close;
  }

  toMessage(): { type: 'error'; phase: SessionPhase; code: SessionErrorCode; message: string; detail: Record<string, unknown> } {
    return { type: 'error', phase: this.phase, code: this.code, message: this.message, detail: this.detail };
  }
}

export function closeCodeFor(code: SessionErrorCode): number {
  return codes[code].close;
}
