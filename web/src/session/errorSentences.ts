// Every error code and close code of docs/kiosk-protocol.md, in words a
// person in the room can act on.

const sentences: Record<string, string> = {
  'bad-message': 'The display and the gateway do not understand each other. The page may need updating.',
  unauthorized: 'This display’s token is not valid. Ask the administrator for a new display link.',
  'target-forbidden': 'The presenter’s computer is not allowed by the gateway’s policy.',
  'unknown-session': 'The presentation session does not exist or has expired. Please try again.',
  timeout: 'The presenter’s computer did not answer in time.',
  replaced: 'Another screen took over this display.',
  'pdu-invalid': 'The presenter’s computer sent a malformed message.',
  'pdu-too-large': 'The presenter’s computer sent a message larger than allowed.',
  'target-unreachable': 'The presenter’s computer cannot be reached.',
  'target-refused': 'The presenter’s computer refused the connection.',
  'x224-invalid': 'The presenter’s computer does not speak RDP.',
  'negotiation-failed': 'The presenter’s computer refused the security settings.',
  'legacy-security': 'The presenter’s computer offers only legacy RDP security, which is not allowed.',
  'tls-failed': 'The secure connection to the presenter’s computer failed.',
  'certificate-untrusted': 'The presenter’s certificate is not trusted.',
  'certificate-changed': 'The presenter’s certificate changed since last time. An administrator must confirm it.',
  'server-error': 'The presenter’s computer sent something malformed or closed the connection abruptly.',
  'gateway-shutdown': 'The gateway is restarting.',
  internal: 'The gateway ran into an internal error.',
};

const closeCodes: Record<number, string> = {
  4400: 'bad-message',
  4401: 'unauthorized',
  4403: 'target-forbidden',
  4404: 'unknown-session',
  4408: 'timeout',
  4409: 'replaced',
  4495: 'certificate-untrusted',
  4502: 'target-unreachable',
  1009: 'pdu-too-large',
  1001: 'gateway-shutdown',
  1011: 'internal',
};

export function sentenceForCode(code: string): string {
  return sentences[code] ?? `The gateway reported an error (${code}).`;
}

/** The error code a close code stands for, when the error message itself was lost. */
export function codeForClose(closeCode: number): string | null {
  return closeCodes[closeCode] ?? null;
}

export const knownErrorCodes: readonly string[] = Object.keys(sentences);
