// A presenter page's `present` message judged (docs/kiosk-protocol.md
// "Presenter socket"): its schema, the token-guess budget, the broker's
// single-use presenter token. One function for both relay engines: the Node
// engine's presenter socket (presenterChannel.ts) and the native data
// plane's, which passes the page's first message here whole by RPC
// (dataplane/nativeDataChannels.ts, `present`).
import { createHash } from 'node:crypto';
import { parsePresenterLegMessage } from '@lanterna/protocol';
import type { SessionLifecycle } from '../broker/sessionLifecycle.js';
import type { TokenGuesses } from '../broker/tokenGuesses.js';
import type { SessionGrant } from '../session/sessionToken.js';
import { SessionError } from '../session/sessionError.js';

/** What a display's `secured` reports of a presenter's leg (the page's own certificate, if it sent one). */
export interface PresenterIdentity {
  /** Base64 DER of the page's certificate, when its `present` message reported one. */
  readonly certificate?: string | undefined;
  /** Base64 SubjectPublicKey of that certificate. */
  readonly publicKey: string;
}

export interface AdmittedPresenter extends PresenterIdentity {
  readonly grant: SessionGrant;
}

/**
 * The page's first message (text, or undefined when it sent binary) checked:
 * a `present` with this session's unused presenter token, within the
 * address's token-guess budget. Throws the `open` phase's SessionError.
 */
export async function admitPresenter(
  deps: { sessions: Pick<SessionLifecycle, 'openPresenterLeg'>; guesses?: TokenGuesses | undefined },
  sessionId: string, first: string | undefined, address: string | undefined,
): Promise<AdmittedPresenter> {
  const parsed = first === undefined ? undefined : parsePresenterLegMessage(first);
  const present = parsed?.ok && parsed.message.type === 'present' ? parsed.message : undefined;
  if (!present) throw new SessionError('open', 'bad-message', `the first message must be present${parsed && !parsed.ok ? ` (${parsed.failure.message})` : ''}`);
  // judged first, counted after (tokenGuesses.ts)
  let grant: SessionGrant | undefined;
  let refusal: unknown;
  try {
    grant = await deps.sessions.openPresenterLeg(sessionId, present.token);
  } catch (error) {
    refusal = error;
  }
  const verdict = await deps.guesses?.check(address, 'presenter', grant !== undefined);
  if (verdict?.allowed === false) {
    const retryAfterSeconds = Math.max(1, Math.ceil(verdict.retryAfterMs / 1000));
    throw new SessionError('open', 'rate-limited', `too many wrong tokens from this address: try again in ${retryAfterSeconds} s`, { retryAfterSeconds });
  }
  if (grant === undefined) throw refusal;
  return { grant, certificate: present.certificate, publicKey: present.publicKey };
}

/** The `sha256:AA:BB:…` fingerprint of the page's certificate, or '' when it sent none. */
export function presenterFingerprint(certificate: string | undefined): string {
  if (certificate === undefined) return '';
  const digest = createHash('sha256').update(Buffer.from(certificate, 'base64')).digest('hex').toUpperCase();
  return `sha256:${digest.replace(/(..)(?!$)/g, '$1:')}`;
}
