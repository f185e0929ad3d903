// The one table of the kiosk protocol's errors (docs/kiosk-protocol.md
// "Errors"): each code's WebSocket close code, the gateway's message (lower
// case, for logs and the `error` message) and the sentence a person in the
// room reads on the display. The gateway and the page both read it here.
import { errorTable } from './errorTable.js';

/** Phases of a session, as named in docs/kiosk-protocol.md. */
export const SESSION_PHASES = ['hello', 'open', 'request', 'connect', 'x224', 'tls', 'relay'] as const;
export type SessionPhase = (typeof SESSION_PHASES)[number];

export interface ErrorCodeEntry {
  /** The WebSocket close code that goes with the `error` message. */
  readonly close: number;
  /** What the gateway says (lower case, no full stop): the `error` message's default `message`. */
  readonly message: string;
  /** What the display shows. */
  readonly sentence: string;
}

/** One of the table's codes (declared before the table it is read from). */
export type SessionErrorCode = keyof typeof table;

const table = {
  'bad-message': {
    close: 4400,
    message: 'the display sent something the gateway does not understand',
    sentence: 'The display and the gateway do not understand each other. The page may need updating.',
  },
  unauthorized: {
    close: 4401,
    message: 'this display is not authorised',
    sentence: 'This display’s token is not valid. Ask the administrator for a new display link.',
  },
  'target-forbidden': {
    close: 4403,
    message: "the presenter's computer is not allowed by the gateway's policy",
    sentence: 'The presenter’s computer is not allowed by the gateway’s policy.',
  },
  'unknown-session': {
    close: 4404,
    message: 'the session does not exist or has expired',
    sentence: 'The presentation session does not exist or has expired. Please try again.',
  },
  timeout: {
    close: 4408,
    message: "the presenter's computer did not answer in time",
    sentence: 'The presenter’s computer did not answer in time.',
  },
  replaced: {
    close: 4409,
    message: 'another kiosk took over this display',
    sentence: 'Another screen took over this display.',
  },
  'pdu-invalid': {
    close: 4400,
    message: 'a malformed RDP message',
    sentence: 'The presenter’s computer sent a malformed message.',
  },
  'pdu-too-large': {
    close: 1009,
    message: 'an RDP message larger than allowed',
    sentence: 'The presenter’s computer sent a message larger than allowed.',
  },
  'target-unreachable': {
    close: 4502,
    message: "the presenter's computer cannot be reached",
    sentence: 'The presenter’s computer cannot be reached.',
  },
  'target-refused': {
    close: 4502,
    message: "the presenter's computer refused the connection",
    sentence: 'The presenter’s computer refused the connection.',
  },
  'x224-invalid': {
    close: 4502,
    message: "the presenter's computer does not speak RDP",
    sentence: 'The presenter’s computer does not speak RDP.',
  },
  'negotiation-failed': {
    close: 4502,
    message: "the presenter's computer refused the security settings",
    sentence: 'The presenter’s computer refused the security settings.',
  },
  'legacy-security': {
    close: 4502,
    message: "the presenter's computer offers only legacy RDP security",
    sentence: 'The presenter’s computer offers only legacy RDP security, which is not allowed.',
  },
  'tls-failed': {
    close: 4502,
    message: 'the secure connection to the presenter failed',
    sentence: 'The secure connection to the presenter’s computer failed.',
  },
  'certificate-untrusted': {
    close: 4495,
    message: "the presenter's certificate is not trusted",
    sentence: 'The presenter’s certificate is not trusted.',
  },
  'certificate-changed': {
    close: 4495,
    message: "the presenter's certificate changed since last time",
    sentence: 'The presenter’s certificate changed since last time. An administrator must confirm it.',
  },
  'server-error': {
    close: 4502,
    message: "the presenter's computer sent something malformed or closed abruptly",
    sentence: 'The presenter’s computer sent something malformed or closed the connection abruptly.',
  },
  'peer-not-reading': {
    close: 4504,
    message: 'a peer stopped reading and left more unread than the gateway keeps',
    sentence: 'The connection stopped taking data, so the presentation was ended.',
  },
  'gateway-busy': {
    close: 1013,
    message: 'the gateway is at its session limit',
    sentence: 'The gateway is busy right now. Please try again in a moment.',
  },
  'rate-limited': {
    close: 4429,
    message: 'too many wrong tokens from this address',
    sentence: 'Too many wrong tokens came from this network. The display tries again in a moment.',
  },
  'gateway-shutdown': {
    close: 1001,
    message: 'the gateway is restarting',
    sentence: 'The gateway is restarting.',
  },
  internal: {
    close: 1011,
    message: 'an internal error in the gateway',
    sentence: 'The gateway ran into an internal error.',
  },
} as const satisfies Record<string, ErrorCodeEntry>;

/** Every code in the protocol document's order, its entry, the guard, and the sentence the display shows (also for a code this version does not know). */
export const { codes: SESSION_ERROR_CODES, entries: ERROR_CODES, isCode: isSessionErrorCode, sentenceFor: sentenceForCode } =
  errorTable<SessionErrorCode, ErrorCodeEntry>(table, (code) => `The gateway reported an error (${code}).`);

export function closeCodeFor(code: SessionErrorCode): number {
  return table[code].close;
}

/**
 * The code a close code stands for, when the `error` message itself was lost;
 * where several codes share a close code, the first in the table (the most
 * general: 4400 is `bad-message`, 4502 `target-unreachable`).
 */
export function codeForClose(closeCode: number): SessionErrorCode | null {
  return SESSION_ERROR_CODES.find((code) => table[code].close === closeCode) ?? null;
}


/**
 * Why the wasm RDP client ended a session (its typed ends, SessionEndReason
 * in wasm/js/lanternaRdp.d.ts), in the display's words. Ends that are no one's
 * fault (the kiosk or the presenter closed it) have no sentence.
 */
const engineEndSentences: Readonly<Record<string, string>> = {
  'wrong-password': 'The presenter’s computer did not accept the user name or password.',
  'auth-failed': 'The presenter’s computer refused the sign-in.',
  'connection-reset': 'The connection to the presenter’s computer was lost.',
  'protocol-error': 'The presenter’s computer sent something this display cannot read.',
  timeout: 'The presenter’s computer took too long to start the presentation.',
  'negotiation-failed': table['negotiation-failed'].sentence,
  'server-ended': 'The presenter’s computer ended the presentation.',
  internal: 'The display’s RDP client ran into an internal error.',
  'video-unsupported': 'The presenter’s computer sent video (H.264) that this display’s browser cannot decode.',
  'video-decode-failed': 'The video (H.264) from the presenter’s computer could not be decoded, even after restarting the decoder.',
  'out-of-memory': 'The presenter’s desktop is too large for this display’s memory.',
};

/** The sentence for an engine end, or null when the end needs no explanation. */
export function sentenceForEngineEnd(reason: string): string | null {
  if (reason === 'closed' || reason === 'stopped') return null;
  return Object.hasOwn(engineEndSentences, reason) ? (engineEndSentences[reason] ?? null) : `The presentation ended (${reason}).`;
}
