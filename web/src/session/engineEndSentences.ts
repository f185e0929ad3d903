// Why the wasm client ended a session (its typed ends, wasm/js/lanternaRdp.d.ts
// SessionEndReason), in words a person in the room can act on. Ends that are
// no fault of anyone (the kiosk or the presenter closed it) have no sentence.
const sentences: Record<string, string> = {
  'wrong-password': 'The presenter’s computer did not accept the user name or password.',
  'auth-failed': 'The presenter’s computer refused the sign-in.',
  'connection-reset': 'The connection to the presenter’s computer was lost.',
  'protocol-error': 'The presenter’s computer sent something this display cannot read.',
  timeout: 'The presenter’s computer took too long to start the presentation.',
  'negotiation-failed': 'The presenter’s computer refused the security settings.',
  'server-ended': 'The presenter’s computer ended the presentation.',
  internal: 'The display’s RDP client ran into an internal error.',
};

/** The sentence for an engine end, or null when the end needs no explanation. */
export function sentenceForEngineEnd(reason: string): string | null {
  if (reason === 'closed' || reason === 'stopped') return null;
  return sentences[reason] ?? `The presentation ended (${reason}).`;
}
